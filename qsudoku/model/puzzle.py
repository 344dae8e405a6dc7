"""The puzzle model: a size, the givens and a list of units.

``Puzzle.units`` is the only geometry: a Sudoku, a jigsaw and a Sudoku-X differ only in
that list, and nothing downstream branches on the variant.  Cells are flat ``r * n + c``
internally and ``(row, col)`` (0-based) in the API; digits are ``1..n``, ``0`` a blank.

>>> p = Puzzle.standard([0] * 16, box=(2, 2))
>>> p.size, len(p.units), p.kind
(4, 12, 'sudoku 4x4 (2x2 boxes)')
>>> [u.label for u in p.units_of(5)]
['row 2', 'column 2', 'box 1']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Sequence

from qsudoku.checks import describe, need_int, need_ints, need_type
from qsudoku.errors import ContradictionError, PuzzleFormatError

__all__ = ["Unit", "Puzzle", "UNIT_KINDS", "default_box", "row_units", "column_units",
           "box_units", "region_units", "diagonal_units"]

#: Kinds of units; each has its own penalty weight (``region`` shares ``box``'s).
UNIT_KINDS = ("row", "column", "box", "region", "extra")


@dataclass(frozen=True)
class Unit:
    """A house: a set of ``n`` cells that must hold each digit exactly once.

    Attributes:
        kind: One of :data:`UNIT_KINDS`.
        index: 0-based index within its kind.
        cells: Flat cell indices (``r * n + c``).
        name: Display name of the kind (``"diagonal"`` for an ``extra`` unit).
    """

    kind: str
    index: int
    cells: tuple[int, ...]
    name: str = ""

    def __post_init__(self):
        need_type("kind", self.kind, str)
        if self.kind not in UNIT_KINDS:
            raise ValueError(f"kind = {self.kind!r} is not one of {', '.join(UNIT_KINDS)}")
        need_int("index", self.index, low=0)
        object.__setattr__(self, "cells", need_ints("cells", self.cells, low=0, high=2**62))
        need_type("name", self.name, str)

    @property
    def label(self) -> str:
        """Human label with a 1-based index, e.g. ``"box 3"``."""
        return f"{self.name or self.kind} {self.index + 1}"


def row_units(n: int) -> list[Unit]:
    """The ``n`` rows of an ``n x n`` grid."""
    n = need_int("n", n, low=1)
    return [Unit("row", r, tuple(r * n + c for c in range(n)), "row") for r in range(n)]


def column_units(n: int) -> list[Unit]:
    """The ``n`` columns of an ``n x n`` grid."""
    n = need_int("n", n, low=1)
    return [Unit("column", c, tuple(r * n + c for r in range(n)), "column") for c in range(n)]


def box_units(n: int, rows: int, cols: int) -> list[Unit]:
    """Boxes of ``rows x cols`` cells tiling an ``n x n`` grid (``rows * cols == n``).

    >>> [u.cells for u in box_units(4, 2, 2)][:2]
    [(0, 1, 4, 5), (2, 3, 6, 7)]
    """
    n = need_int("n", n, low=1)
    rows, cols = need_int("rows", rows, low=1), need_int("cols", cols, low=1)
    if rows * cols != n:
        raise PuzzleFormatError(f"boxes of {rows}x{cols} do not tile a {n}x{n} grid")
    units = []
    for b in range(n):
        r0, c0 = (b // rows) * rows, (b % rows) * cols
        cells = tuple((r0 + i) * n + c0 + j for i in range(rows) for j in range(cols))
        units.append(Unit("box", b, cells, "box"))
    return units


def region_units(regions: Sequence[int], n: int) -> list[Unit]:
    """Jigsaw regions from a flat region-id map (ids ``0..n-1``, one per cell).

    Raises:
        PuzzleFormatError: If there are not ``n`` regions of ``n`` cells each.
    """
    regions = _ints("regions", regions)
    n = need_int("n", n, low=1)
    if len(regions) != n * n:
        raise PuzzleFormatError(f"region map has {len(regions)} cells, expected {n * n}")
    ids = sorted(set(regions))
    if len(ids) != n:
        raise PuzzleFormatError(f"region map has {len(ids)} regions, a {n}x{n} jigsaw needs {n}")
    units = []
    for k, rid in enumerate(ids):
        cells = tuple(i for i, x in enumerate(regions) if x == rid)
        if len(cells) != n:
            raise PuzzleFormatError(
                f"region {k + 1} has {len(cells)} cells, expected {n}", cell=divmod(cells[0], n)
            )
        units.append(Unit("region", k, cells, "region"))
    return units


def diagonal_units(n: int) -> list[Unit]:
    """The two main diagonals of an ``n x n`` grid (Sudoku-X): extra units to pass as
    ``Puzzle.standard(givens, extra=diagonal_units(n))`` or ``Puzzle.jigsaw(...)``.

    >>> [u.cells for u in diagonal_units(4)]
    [(0, 5, 10, 15), (3, 6, 9, 12)]
    """
    n = need_int("n", n, low=1)
    main = tuple(i * n + i for i in range(n))
    anti = tuple(i * n + (n - 1 - i) for i in range(n))
    return [Unit("extra", 0, main, "diagonal"), Unit("extra", 1, anti, "diagonal")]


def default_box(n: int) -> tuple[int, int] | None:
    """The most square ``rows x cols`` box shape for size ``n`` (rows <= cols).

    >>> default_box(9), default_box(6), default_box(12), default_box(7)
    ((3, 3), (2, 3), (3, 4), None)
    """
    for r in range(math.isqrt(n), 1, -1):
        if n % r == 0:
            return r, n // r
    return None


@dataclass(frozen=True)
class Puzzle:
    """A grid to fill: size, givens and units.

    Attributes:
        size: ``n``; the grid is ``n x n`` with digits ``1..n``.
        givens: Row-major tuple of ``n*n`` ints, ``0`` = blank.
        units: Every house; the single source of truth for the rules.
        kind: Free-text description (for display only; nothing branches on it).
        name: Optional name (e.g. the seed's name or ``file:line``).
        solution: The known solution, if the input provided one (for checks).
        alphabet: Symbols used to write digits ``1..n`` (``alphabet[d - 1]``).
    """

    size: int
    givens: tuple[int, ...]
    units: tuple[Unit, ...]
    kind: str = ""
    name: str = ""
    solution: tuple[int, ...] | None = field(default=None, compare=False)
    alphabet: str = field(default="", compare=False)

    def __post_init__(self):
        n = need_int("size", self.size, low=1)
        if isinstance(self.givens, (str, bytes)) or not isinstance(self.givens, Iterable):
            need_ints("givens", self.givens, low=0, high=n)  # raises the TypeError
        givens = tuple(self.givens)
        if len(givens) != n * n:
            raise PuzzleFormatError(f"{len(givens)} cells given for a {n}x{n} grid")
        for i, d in enumerate(givens):
            if type(d) is not int:
                need_int(f"givens[{i}]", d)
            if not 0 <= d <= n:
                raise PuzzleFormatError(f"value {d} out of range 1..{n}", cell=divmod(i, n))
        object.__setattr__(self, "givens", tuple(int(d) for d in givens))
        object.__setattr__(self, "units", tuple(_units("units", self.units)))
        for name in ("kind", "name", "alphabet"):
            need_type(name, getattr(self, name), str)
        if self.solution is not None:
            object.__setattr__(self, "solution", need_ints("solution", self.solution, low=1,
                                                           high=n, length=n * n))
        for u in self.units:
            if len(u.cells) != n or len(set(u.cells)) != n:
                raise PuzzleFormatError(f"{u.label} does not have {n} distinct cells")
        if not self.alphabet:
            from qsudoku.model.symbols import default_alphabet

            object.__setattr__(self, "alphabet", default_alphabet(n))
        elif len(self.alphabet) != n:  # a symbol for each value 1..n, or format() fails
            raise PuzzleFormatError(f"alphabet {self.alphabet!r} has {len(self.alphabet)} "
                                    f"symbols, a {n}x{n} grid needs {n}")
        else:
            from qsudoku.model.symbols import check_alphabet

            check_alphabet(self.alphabet)

    # -- constructors -----------------------------------------------------------------
    @classmethod
    def standard(cls, givens: Iterable[int], box: tuple[int, int] | None = None,
                 extra: Iterable[Unit] = (), **kw) -> "Puzzle":
        """A Sudoku with rows, columns and ``box`` (default: most square shape)."""
        givens = _ints("givens", givens)
        n = _side(len(givens))
        extra = _units("extra", extra)
        box = default_box(n) if box is None else _box(box, n)
        if box is None:
            raise PuzzleFormatError(f"a {n}x{n} grid has no box shape; give a region map (jigsaw)")
        units = row_units(n) + column_units(n) + box_units(n, *box) + list(extra)
        kind = kw.pop("kind", None) or _kind("sudoku", n, f" ({box[0]}x{box[1]} boxes)", extra)
        return cls(n, givens, tuple(units), kind=kind, **kw)

    @classmethod
    def jigsaw(cls, givens: Iterable[int], regions: Sequence[int],
               extra: Iterable[Unit] = (), **kw) -> "Puzzle":
        """A jigsaw: rows, columns and irregular regions from a flat region-id map."""
        givens = _ints("givens", givens)
        n = _side(len(givens))
        regions = _ints("regions", regions)
        extra = _units("extra", extra)
        units = row_units(n) + column_units(n) + region_units(regions, n) + list(extra)
        kind = kw.pop("kind", None) or _kind("jigsaw", n, "", extra)
        return cls(n, givens, tuple(units), kind=kind, **kw)

    # -- derived geometry -------------------------------------------------------------
    @cached_property
    def cell_units(self) -> tuple[tuple[int, ...], ...]:
        """For each flat cell, the indices (into ``units``) of the units containing it."""
        per = [[] for _ in range(self.size * self.size)]
        for k, u in enumerate(self.units):
            for c in u.cells:
                per[c].append(k)
        return tuple(tuple(x) for x in per)

    @cached_property
    def peers(self) -> tuple[frozenset[int], ...]:
        """For each flat cell, the other cells sharing a unit with it."""
        out = []
        for c, ks in enumerate(self.cell_units):
            s = set()
            for k in ks:
                s.update(self.units[k].cells)
            s.discard(c)
            out.append(frozenset(s))
        return tuple(out)

    def units_of(self, cell: int) -> list[Unit]:
        """Units containing flat ``cell``."""
        return [self.units[k] for k in self.cell_units[self._cell(cell)]]

    def rc(self, cell: int) -> tuple[int, int]:
        """``(row, col)`` of a flat cell index."""
        return divmod(self._cell(cell), self.size)

    def _cell(self, cell) -> int:
        return need_int("cell", cell, low=0, high=self.size * self.size - 1)

    @property
    def num_blanks(self) -> int:
        """Number of open cells in the givens."""
        return sum(1 for d in self.givens if d == 0)

    # -- checks -----------------------------------------------------------------------
    def check_givens(self) -> None:
        """Raise :class:`ContradictionError` (exit code 2) if two givens clash in a unit."""
        n = self.size
        for u in self.units:
            seen = {}
            for c in u.cells:
                d = self.givens[c]
                if d and d in seen:
                    r1, c1 = divmod(seen[d], n)
                    r2, c2 = divmod(c, n)
                    raise ContradictionError(
                        f"digit {self.alphabet[d - 1]} given twice in {u.label} "
                        f"(r{r1 + 1}c{c1 + 1} and r{r2 + 1}c{c2 + 1})",
                        cell=(r2, c2), unit=u.label, digit=d, source=self.name or None,
                        exit_code=2,
                    )
                seen[d] = c

    def broken_units(self, grid: Sequence[int]) -> list[tuple[Unit, int]]:
        """``(unit, digit)`` pairs whose one-of-each rule the full ``grid`` breaks.

        >>> p = Puzzle.standard([0] * 16)
        >>> p.broken_units([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
        []
        """
        grid = need_ints("grid", grid, low=0, high=self.size, length=self.size * self.size)
        broken = []
        for u in self.units:
            counts = [0] * (self.size + 1)
            for c in u.cells:
                counts[grid[c]] += 1
            broken.extend((u, d) for d in range(1, self.size + 1) if counts[d] != 1)
        return broken

    def is_solution(self, grid: Sequence[int]) -> bool:
        """True if ``grid`` is complete, keeps the givens and breaks no unit."""
        _sized("grid", grid)
        if len(grid) != len(self.givens) or any(not 1 <= d <= self.size for d in grid):
            return False
        if any(g and g != d for g, d in zip(self.givens, grid)):
            return False
        return not self.broken_units(grid)

    def format(self, grid: Sequence[int] | None = None) -> str:
        """Row-major string of ``grid`` (default: the givens) in this puzzle's alphabet."""
        grid = self.givens if grid is None else need_ints("grid", grid, low=0, high=self.size,
                                                          length=self.size * self.size)
        return "".join(self.alphabet[d - 1] if d else "." for d in grid)


def _sized(name: str, values) -> None:
    """``TypeError`` naming ``name`` unless ``values`` is a sized sequence (not a string)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") \
            or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of integers, not {describe(values)}")


def _ints(name: str, values) -> tuple[int, ...]:
    """``values`` as a tuple of ints (``TypeError`` naming ``name``); ranges are checked later."""
    return need_ints(name, values, low=-(2**63), high=2**63 - 1)


def _units(name: str, units) -> list[Unit]:
    """``units`` as a list of :class:`Unit`; ``TypeError`` naming ``name`` otherwise."""
    if isinstance(units, (str, bytes)) or not isinstance(units, Iterable):
        raise TypeError(f"{name} must be a sequence of Unit, not {describe(units)}")
    units = list(units)
    for k, u in enumerate(units):
        need_type(f"{name}[{k}]", u, Unit)
    return units


def _box(box, n: int) -> tuple[int, int]:
    """``box`` checked: a pair of positive integers whose product is ``n``."""
    if isinstance(box, (str, bytes)) or not isinstance(box, Sequence) or len(box) != 2:
        raise TypeError(f"box must be a pair of integers (rows, cols), not {describe(box)}")
    rows = need_int("box[0]", box[0], low=1)
    cols = need_int("box[1]", box[1], low=1)
    if rows * cols != n:
        raise PuzzleFormatError(f"boxes of {rows}x{cols} do not tile a {n}x{n} grid")
    return rows, cols


def _side(num_cells: int) -> int:
    n = math.isqrt(num_cells)
    if n * n != num_cells or n < 1:
        raise PuzzleFormatError(f"{num_cells} cells is not a square grid")
    return n


def _kind(base: str, n: int, suffix: str, extra) -> str:
    names = sorted({u.name or u.kind for u in extra})
    plus = "".join(f" + {x}s" for x in names)
    return f"{base} {n}x{n}{suffix}{plus}"
