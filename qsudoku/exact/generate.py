"""Random puzzles in the manner of Lewis (J. Heuristics 13:387, 2007).

For any geometry (the puzzle's units are the only input), in two steps:

1. **A random valid grid**: a few cells get random candidates, the exact search completes
   the grid, which is then shuffled by the geometry's :func:`symmetries` and a random
   relabelling of the digits.
2. **Givens removed at random** down to ``fraction``; with ``unique=True`` only while
   :func:`~qsudoku.exact.count.count_solutions` proves one solution (the puzzle may then
   keep more givens than asked).

Every random choice comes from one seeded :class:`random.Random` and the search is
deterministic, so a seed gives the same puzzles on every platform.

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
import time
from collections import deque
from dataclasses import replace

from qsudoku.checks import need_real, need_type
from qsudoku.errors import ConfigError, ContradictionError, TimeLimitError
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, default_box
from qsudoku.model.symbols import REGION_LABELS
from qsudoku.exact.count import count_solutions
from qsudoku.exact.search import complete_grid

__all__ = ["random_grid", "remove_givens", "make_puzzle", "random_regions", "symmetries",
           "region_letters", "pattern_grid", "PATTERN_FROM"]

#: Attempts at a random grid before giving up (a jigsaw region map may have no solution).
ATTEMPTS = 8
#: Nodes the search may visit to complete one random start (a count, not seconds, so a
#: seed gives the same grid on any machine).
COMPLETE_NODES = 200_000
#: From this size up a geometry that a box pattern fills starts from :func:`pattern_grid`,
#: not a search (smaller sizes keep their seeds' grids).
PATTERN_FROM = 50


def symmetries(puzzle: Puzzle) -> list[tuple[int, ...]]:
    """The cell maps (``new index of cell i``) that map every unit of ``puzzle`` onto a unit.

    The candidates are swaps of two aligned blocks of rows (of any divisor of ``n``), of
    columns, and the transpose.

    >>> from qsudoku.io import Rules
    >>> len(symmetries(Rules().make([0] * 81)))  # 9 + 3 row swaps, as many column swaps, transpose
    25
    >>> len(symmetries(Rules(variant="x").make([0] * 81)))  # only the transpose keeps the diagonals
    1
    """
    need_type("puzzle", puzzle, Puzzle)
    n = puzzle.size
    units = {frozenset(u.cells) for u in puzzle.units}
    # every candidate maps rows and columns onto rows and columns: check only the others
    others = [u for u in units if len({c // n for c in u}) > 1 and len({c % n for c in u}) > 1]
    found = []
    for cell in _moves(n):
        if all(frozenset(cell(c) for c in u) in units for u in others):
            found.append(tuple(cell(c) for c in range(n * n)))
    return found


def _moves(n: int):
    """Candidate cell maps: block swaps of rows and of columns, then the transpose."""
    for k in (d for d in range(1, n) if n % d == 0):
        for a in range(n // k):
            for b in range(a + 1, n // k):
                line = list(range(n))
                for i in range(k):
                    line[a * k + i], line[b * k + i] = b * k + i, a * k + i
                yield lambda c, line=line: line[c // n] * n + c % n
                yield lambda c, line=line: c - c % n + line[c % n]
    yield lambda c: (c % n) * n + c // n


def random_grid(template: Puzzle, rng, moves=None, *, deadline: float | None = None,
                progress=None) -> tuple[int, ...]:
    """A random complete grid obeying every unit of ``template`` (its givens are ignored).

    From :data:`PATTERN_FROM` up, a geometry :func:`pattern_grid` fills starts from the
    pattern (a search takes minutes there); the shuffles make it random either way.

    Args:
        template: The geometry.
        rng: The source of every random choice (a :class:`random.Random`, or a seed:
            an int or ``None``).
        moves: :func:`symmetries` of ``template`` (computed if not given).
        deadline: A :func:`time.monotonic` time to stop at (``None``: no limit).
        progress: Called with a line saying each search attempt (``None``: silent).

    Raises:
        ContradictionError: No grid found in :data:`ATTEMPTS` attempts.
        ConfigError: ``moves`` are not permutations of the cells.
        TimeLimitError: ``deadline`` passed first.
    """
    need_type("template", template, Puzzle)
    rng = _random(rng)
    n = template.size
    blank = replace(template, givens=(0,) * (n * n), solution=None)
    moves = symmetries(blank) if moves is None else _check_moves(moves, n)
    grid = pattern_grid(blank) if n >= PATTERN_FROM else None
    for attempt in range(1, ATTEMPTS * (grid is None) + 1):
        if progress is not None:
            progress(f"searching a random {template.kind} grid, attempt {attempt} of "
                     f"{ATTEMPTS}")
        grid = _complete(blank, rng, deadline)
        if grid is not None:
            break
    else:
        if grid is None:
            raise ContradictionError(f"no valid {template.kind} grid found in {ATTEMPTS} "
                                     "attempts (the region map may have no solution)")
    for _ in range(4 * n * bool(moves)):
        move = moves[rng.randrange(len(moves))]
        shuffled = [0] * (n * n)
        for c, d in enumerate(grid):
            shuffled[move[c]] = d
        grid = shuffled
    labels = list(range(1, n + 1))
    rng.shuffle(labels)
    return tuple(labels[d - 1] for d in grid)


def pattern_grid(puzzle: Puzzle) -> list[int] | None:
    """A complete grid without search: ``(c * (row % r) + row // r + col) % n + 1`` for the
    first ``r x c = n`` under which every unit holds each digit once; else ``None``.

    >>> from qsudoku.io import Rules
    >>> grid = pattern_grid(Rules(box=(2, 3)).make([0] * 36))
    >>> grid[:12]
    [1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3]
    >>> pattern_grid(Rules(variant="x").make([0] * 81)) is None
    True
    """
    n = puzzle.size
    for r in (d for d in range(1, n + 1) if n % d == 0):
        c = n // r
        grid = [(c * (row % r) + row // r + col) % n + 1 for row in range(n) for col in range(n)]
        if all(len({grid[i] for i in u.cells}) == len(u.cells) for u in puzzle.units):
            return grid
    return None


def _random(rng) -> random.Random:
    """``rng`` as a :class:`random.Random`: an int or ``None`` seeds a new one."""
    if rng is None or (isinstance(rng, int) and not isinstance(rng, bool)):
        return random.Random(rng)
    if isinstance(rng, random.Random):
        return rng
    raise ConfigError(f"rng must be a random.Random, an int seed or None, not "
                      f"{type(rng).__name__} {rng!r:.40}")


def _check_moves(moves, n: int) -> list:
    """``moves`` if each is a permutation of the ``n*n`` cells (see :func:`symmetries`)."""
    cells = set(range(n * n))
    try:
        moves = [tuple(m) for m in moves]
        ok = all(len(m) == n * n and set(m) == cells for m in moves)
    except TypeError:
        ok = False
    if not ok:
        raise ConfigError(f"moves must be cell maps of a {n}x{n} grid, each a permutation of "
                          f"its {n * n} cells (as symmetries() returns)")
    return moves


def _left(deadline: float | None, what: str) -> float | None:
    """Seconds left before ``deadline`` (``None``: no limit); ``TimeLimitError`` past it."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeLimitError(f"{what} stopped at its time limit")
    return left


def _complete(blank: Puzzle, rng: random.Random, deadline: float | None = None
              ) -> list[int] | None:
    """``n`` random cells get random candidates, the search completes the grid (or ``None``)."""
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
    left = _left(deadline, "the random grid")
    try:
        grid = complete_grid(cands, node_limit=COMPLETE_NODES, time_limit=left)
    except ContradictionError:
        return None
    if grid is None:  # the node limit, or the time limit
        _left(deadline, "the random grid")
    return grid


def remove_givens(puzzle: Puzzle, fraction: float, rng, *, unique: bool = False,
                  deadline: float | None = None, progress=None) -> Puzzle:
    """``puzzle`` with givens removed at random down to ``round(fraction * n * n)``.

    Args:
        puzzle: A puzzle whose ``solution`` is set, or whose givens are complete.
        fraction: Share of cells left given, in ``[0, 1]``.
        rng: The source of the random order (a :class:`random.Random` or a seed).
        unique: Remove a given only while the puzzle keeps exactly one solution.
        deadline: A :func:`time.monotonic` time to stop at (``None``: no limit).
        progress: Called with a line saying how far the removal is (``None``: silent).

    Raises:
        TimeLimitError: ``deadline`` passed first.
    """
    need_type("puzzle", puzzle, Puzzle)
    need_real("fraction", fraction, low=0, high=1, low_open=False)
    rng = _random(rng)
    solution = puzzle.solution or puzzle.givens
    n2 = len(solution)
    keep = round(fraction * n2)
    givens = list(solution)
    left = n2
    for tried, cell in enumerate(rng.sample(range(n2), n2)):
        if left <= keep:
            break
        givens[cell] = 0
        if unique:
            if progress is not None:
                progress(f"removing givens, {tried} of {n2} cells tried")
            count = count_solutions(replace(puzzle, givens=tuple(givens)),
                                    time_limit=_left(deadline, "removing givens"))
            if not count.decided:
                _left(deadline, "removing givens")
            if not count.unique:
                givens[cell] = solution[cell]
                continue
        left -= 1
    return replace(puzzle, givens=tuple(givens), solution=tuple(solution))


def make_puzzle(template: Puzzle, fraction: float, rng, *, unique: bool = False,
                moves=None, time_limit: float | None = None, progress=None) -> Puzzle:
    """One random puzzle: :func:`random_grid`, then :func:`remove_givens`.

    Args:
        template: The geometry (its givens are ignored).
        fraction: Share of cells left given, in ``[0, 1]``.
        rng: A :class:`random.Random`, or a seed (an int, or ``None`` for a fresh one).
        unique: Only a puzzle with exactly one solution.
        moves: :func:`symmetries` of ``template`` (computed if not given).
        time_limit: Seconds the puzzle may take (``None``: no limit).
        progress: Called with a line saying how far the work is (``None``: silent).

    Raises:
        TimeLimitError: ``time_limit`` ran out first.
    """
    need_type("template", template, Puzzle)
    need_real("time_limit", time_limit, low=0, allow_none=True)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    rng = _random(rng)
    grid = random_grid(template, rng, moves, deadline=deadline, progress=progress)
    return remove_givens(replace(template, givens=grid, solution=grid), fraction, rng,
                         unique=unique, deadline=deadline, progress=progress)


def random_regions(n: int, rng, steps: int | None = None, *,
                   deadline: float | None = None) -> tuple[int, ...]:
    """A random jigsaw region map: ``n`` connected regions of ``n`` cells.

    From the boxes (or the rows), ``steps`` times (default ``10 * n * n``) a random border
    cell of regions A and B and a cell of B bordering A swap regions, kept when both stay
    connected.  ``rng`` is a :class:`random.Random` or a seed; ``deadline`` a
    :func:`time.monotonic` time.

    Raises:
        ConfigError: ``n`` is not an int >= 2, or ``rng`` is no source of randomness.
        TimeLimitError: ``deadline`` passed first.

    >>> r = random_regions(6, random.Random(1))
    >>> sorted(r.count(k) for k in range(6))
    [6, 6, 6, 6, 6, 6]
    >>> random_regions("9", random.Random(1))
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: a jigsaw's size n must be an int >= 2, not str '9'
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ConfigError(f"a jigsaw's size n must be an int >= 2, not {type(n).__name__} {n!r:.40}")
    rng = _random(rng)
    box = default_box(n)
    labels = [(r // box[0]) * box[0] + c // box[1] if box else r
              for r in range(n) for c in range(n)]
    members: dict[int, set[int]] = {}
    for cell, x in enumerate(labels):
        members.setdefault(x, set()).add(cell)
    for step in range(10 * n * n if steps is None else steps):
        if step % 256 == 0:
            _left(deadline, "the random region map")
        a = rng.randrange(n * n)
        others = sorted({labels[b] for b in _neighbours(a, n)} - {labels[a]})
        if not others:
            continue
        la, lb = labels[a], rng.choice(others)
        back = sorted(c for c in members[lb]
                      if any(labels[d] == la for d in _neighbours(c, n)))
        c = rng.choice(back)
        _swap(labels, members, a, c)
        if not (_connected(members[la], n) and _connected(members[lb], n)):
            _swap(labels, members, a, c)
    first: dict[int, int] = {}
    return tuple(first.setdefault(x, len(first)) for x in labels)


def _swap(labels: list[int], members: dict, a: int, c: int) -> None:
    """Exchange the regions of cells ``a`` and ``c``."""
    la, lc = labels[a], labels[c]
    members[la] ^= {a, c}
    members[lc] ^= {a, c}
    labels[a], labels[c] = lc, la


def _neighbours(cell: int, n: int) -> list[int]:
    r, c = divmod(cell, n)
    return [rr * n + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < n and 0 <= cc < n]


def _connected(cells: set[int], n: int) -> bool:
    start = next(iter(cells))
    seen, todo = {start}, deque([start])
    while todo:
        for b in _neighbours(todo.popleft(), n):
            if b in cells and b not in seen:
                seen.add(b)
                todo.append(b)
    return len(seen) == len(cells)


def region_letters(puzzle: Puzzle) -> str | None:
    """A jigsaw's region map as letters of :data:`~qsudoku.model.symbols.REGION_LABELS`
    in order of first appearance; ``None`` without regions.

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
