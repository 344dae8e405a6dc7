"""Random puzzles in the manner of Lewis (J. Heuristics 13:387, 2007).

A puzzle is made in two steps, for any geometry a :class:`~qsudoku.model.puzzle.Puzzle`
describes (its units are the only input: a standard grid of any box shape, a jigsaw,
a Sudoku-X):

1. **A random valid grid.**  A few cells get random digits drawn from their
   propagated candidates, qsudoku's exact search completes the grid, and the grid
   is then shuffled by the symmetries of the geometry: swaps of two rows (or two
   aligned blocks of rows), of two columns (or blocks of columns) and the transpose,
   each taken only if it maps every unit onto a unit (so a 9x9 grid gets row swaps
   within a band and band swaps, a Sudoku-X keeps its transpose), and a random
   relabelling of the digits.
2. **Givens removed at random** until ``fraction`` of the cells remain given.  With
   ``unique=True`` a given is removed only while :func:`~qsudoku.exact.count.count_solutions`
   proves the puzzle still has exactly one solution; when no further given can go,
   the puzzle keeps more givens than asked (it is then minimal).

Every random choice comes from one :class:`random.Random` seeded by the caller, and the
search is deterministic, so the same seed gives the same puzzles on every platform.

>>> import random
>>> from qsudoku.io import Rules
>>> template = Rules(box=(2, 3)).make([0] * 36)
>>> p = make_puzzle(template, 0.5, random.Random(7))
>>> sum(1 for d in p.givens if d), p.is_solution(p.solution)
(18, True)
>>> q = make_puzzle(template, 0.0, random.Random(7), unique=True)
>>> count_solutions(q).unique
True
>>> make_puzzle(template, 0.5, random.Random(7)) == p
True
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import replace

from qsudoku.checks import need_real, need_type
from qsudoku.errors import ConfigError, ContradictionError
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, default_box
from qsudoku.model.symbols import REGION_LABELS
from qsudoku.exact.count import count_solutions
from qsudoku.exact.search import complete_grid

__all__ = ["random_grid", "remove_givens", "make_puzzle", "random_regions", "symmetries",
           "region_letters"]

#: Attempts at a random grid before giving up (a jigsaw region map may have no solution).
ATTEMPTS = 8
#: Nodes the search may visit to complete one random start: a count, not seconds, so
#: that a seed gives the same grid however fast or loaded the machine (a 49x49 start
#: takes about 5,000 nodes; a start with no completion is dropped after this many).
COMPLETE_NODES = 200_000


def symmetries(puzzle: Puzzle) -> list[tuple[int, ...]]:
    """The cell maps (``new index of cell i``) that map every unit of ``puzzle`` onto a unit.

    The candidates are swaps of two aligned blocks of rows (block sizes: the divisors
    of ``n`` below ``n``, so single rows too), the same for columns, and the transpose.

    >>> from qsudoku.io import Rules
    >>> len(symmetries(Rules().make([0] * 81)))  # 9 + 3 row swaps, as many column swaps, transpose
    25
    >>> len(symmetries(Rules(variant="x").make([0] * 81)))  # only the transpose keeps the diagonals
    1
    """
    n = puzzle.size
    units = {frozenset(u.cells) for u in puzzle.units}
    found = []
    for move in _moves(n):
        if all(frozenset(move[c] for c in u) in units for u in units):
            found.append(move)
    return found


def _moves(n: int):
    """Candidate cell maps: block swaps of rows and of columns, then the transpose."""
    for k in (d for d in range(1, n) if n % d == 0):
        for a in range(n // k):
            for b in range(a + 1, n // k):
                line = list(range(n))
                for i in range(k):
                    line[a * k + i], line[b * k + i] = b * k + i, a * k + i
                yield tuple(line[r] * n + c for r in range(n) for c in range(n))
                yield tuple(r * n + line[c] for r in range(n) for c in range(n))
    yield tuple(c * n + r for r in range(n) for c in range(n))


def random_grid(template: Puzzle, rng: random.Random, moves=None) -> tuple[int, ...]:
    """A random complete grid obeying every unit of ``template`` (its givens are ignored).

    Args:
        template: The geometry.
        rng: The source of every random choice.
        moves: :func:`symmetries` of ``template`` (computed if not given).

    Raises:
        ContradictionError: No grid was found in :data:`ATTEMPTS` attempts (a region map
            with no solution).
    """
    n = template.size
    blank = replace(template, givens=(0,) * (n * n), solution=None)
    moves = symmetries(blank) if moves is None else moves
    for _ in range(ATTEMPTS):
        grid = _complete(blank, rng)
        if grid is not None:
            break
    else:
        raise ContradictionError(f"no valid {template.kind} grid found in {ATTEMPTS} attempts "
                                 "(the region map may have no solution)")
    for _ in range(4 * n * bool(moves)):
        move = moves[rng.randrange(len(moves))]
        shuffled = [0] * (n * n)
        for c, d in enumerate(grid):
            shuffled[move[c]] = d
        grid = shuffled
    labels = list(range(1, n + 1))
    rng.shuffle(labels)
    return tuple(labels[d - 1] for d in grid)


def _complete(blank: Puzzle, rng: random.Random) -> list[int] | None:
    """``n`` random cells get random candidates (undone if propagation then fails), and
    the search completes the grid; ``None`` if it cannot."""
    n = blank.size
    givens = [0] * (n * n)
    cands = propagate(blank)
    for cell in rng.sample(range(n * n), n):
        if cands.grid[cell]:
            continue
        givens[cell] = rng.choice(cands.digits(cell))
        try:
            cands = propagate(replace(blank, givens=tuple(givens)))
        except ContradictionError:
            givens[cell] = 0
    try:
        return complete_grid(cands, node_limit=COMPLETE_NODES)
    except ContradictionError:
        return None


def remove_givens(puzzle: Puzzle, fraction: float, rng: random.Random, *,
                  unique: bool = False) -> Puzzle:
    """``puzzle`` (complete, or with its ``solution``) with givens removed at random
    down to ``round(fraction * n * n)`` givens.

    Args:
        puzzle: A puzzle whose ``solution`` is set, or whose givens are complete.
        fraction: Share of cells left given, in ``[0, 1]``.
        rng: The source of the random order.
        unique: Remove a given only while the puzzle keeps exactly one solution.
    """
    need_real("fraction", fraction, low=0, high=1, low_open=False)
    solution = puzzle.solution or puzzle.givens
    n2 = len(solution)
    keep = round(fraction * n2)
    givens = list(solution)
    left = n2
    for cell in rng.sample(range(n2), n2):
        if left <= keep:
            break
        givens[cell] = 0
        if unique and not count_solutions(replace(puzzle, givens=tuple(givens))).unique:
            givens[cell] = solution[cell]
            continue
        left -= 1
    return replace(puzzle, givens=tuple(givens), solution=tuple(solution))


def make_puzzle(template: Puzzle, fraction: float, rng: random.Random, *,
                unique: bool = False, moves=None) -> Puzzle:
    """One random puzzle: :func:`random_grid`, then :func:`remove_givens`."""
    need_type("template", template, Puzzle)
    grid = random_grid(template, rng, moves)
    return remove_givens(replace(template, givens=grid, solution=grid), fraction, rng,
                         unique=unique)


def random_regions(n: int, rng: random.Random, steps: int | None = None) -> tuple[int, ...]:
    """A random jigsaw region map: ``n`` connected regions of ``n`` cells.

    It starts from the boxes (or, for a size with no box shape, the rows) and, ``steps``
    times (default ``10 * n * n`` tries), moves a random cell on the border of regions A
    and B into B and a cell of B bordering A into A, kept when both stay connected.
    Whether a map admits a solution is left to :func:`random_grid`.

    >>> r = random_regions(6, random.Random(1))
    >>> sorted(r.count(k) for k in range(6))
    [6, 6, 6, 6, 6, 6]
    """
    if n < 2:
        raise ConfigError(f"a jigsaw needs a size >= 2, not {n}")
    box = default_box(n)
    labels = [(r // box[0]) * box[0] + c // box[1] if box else r
              for r in range(n) for c in range(n)]
    for _ in range(10 * n * n if steps is None else steps):
        a = rng.randrange(n * n)
        others = sorted({labels[b] for b in _neighbours(a, n)} - {labels[a]})
        if not others:
            continue
        la, lb = labels[a], rng.choice(others)
        back = [c for c in range(n * n) if labels[c] == lb
                and any(labels[d] == la for d in _neighbours(c, n))]
        c = rng.choice(back)
        labels[a], labels[c] = lb, la
        if not (_connected(labels, la, n) and _connected(labels, lb, n)):
            labels[a], labels[c] = la, lb
    first: dict[int, int] = {}
    return tuple(first.setdefault(x, len(first)) for x in labels)


def _neighbours(cell: int, n: int) -> list[int]:
    r, c = divmod(cell, n)
    return [rr * n + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < n and 0 <= cc < n]


def _connected(labels: list[int], label: int, n: int) -> bool:
    cells = {i for i, x in enumerate(labels) if x == label}
    start = next(iter(cells))
    seen, todo = {start}, deque([start])
    while todo:
        for b in _neighbours(todo.popleft(), n):
            if b in cells and b not in seen:
                seen.add(b)
                todo.append(b)
    return len(seen) == len(cells)


def region_letters(puzzle: Puzzle) -> str | None:
    """The region map of a jigsaw as letters (``a`` for the region of the first cell, then
    in order of first appearance, from :data:`~qsudoku.model.symbols.REGION_LABELS`, which
    :func:`~qsudoku.io.text.parse_regions` reads back at every size), as jigsaw files
    write it; ``None`` without regions.

    >>> from qsudoku.io import Rules
    >>> region_letters(Rules(regions=(1, 1, 0, 0) * 2 + (2, 2, 3, 3) * 2).make([0] * 16))
    'aabbaabbccddccdd'
    >>> region_letters(Rules().make([0] * 16)) is None
    True
    """
    labels = [0] * len(puzzle.givens)
    regions = [u for u in puzzle.units if u.kind == "region"]
    for k, u in enumerate(regions):
        for c in u.cells:
            labels[c] = k
    first: dict[int, int] = {}
    return "".join(REGION_LABELS[first.setdefault(x, len(first))] for x in labels) \
        if regions else None
