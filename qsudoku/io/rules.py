"""Rules: which units a puzzle read from text gets.

Rules come from flags or a file's place under a data folder
(:func:`qsudoku.io.files.rules_from_path`); :meth:`Rules.make` builds the puzzle.

>>> Rules(box=(2, 3)).make([0] * 36).kind
'sudoku 6x6 (2x3 boxes)'
>>> Rules(variant="x").make([0] * 81).kind
'sudoku 9x9 (3x3 boxes) + diagonals'
>>> Rules(digits="0-9A-Z").digits[-3:]
'XYZ'
>>> Rules(regions="aabb/aabb/ccdd/ccdd").regions  # a region map, as --regions takes it
(0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Sequence

from qsudoku.checks import describe, need_int, need_ints, need_type
from qsudoku.errors import PuzzleFormatError
from qsudoku.model.puzzle import Puzzle, diagonal_units
from qsudoku.model.symbols import MAX_SIZE, REGION_SEPARATORS, parse_digits

__all__ = ["Rules", "parse_box", "parse_regions", "VARIANTS"]

#: Extra-unit variants: name -> builder of the extra units for size n.
VARIANTS = {"x": diagonal_units, "standard": lambda n: []}


@dataclass(frozen=True)
class Rules:
    """How to read puzzle text and which units to give it.

    Attributes:
        box: ``(rows, cols)`` of a box; ``None`` = the most square shape.
        variant: ``"standard"`` or ``"x"`` (both main diagonals).
        regions: Flat jigsaw region ids, or a region map (``"aabb/aabb/ccdd/ccdd"``); when
            set the puzzle is a jigsaw (no boxes).
        digits: Alphabet for values ``1..n``, ranges allowed (``"0-9A-Z"``); ``None`` = the
            default convention.
        format: ``"auto"``, ``"line"``, ``"grid"`` or ``"tuples"``.
        size: Grid size for tuple lists (``None``: a ``# size N`` line, the box shape or
            region map gives it; a list with none is refused, never guessed).
    """

    box: tuple[int, int] | None = None
    variant: str = "standard"
    regions: tuple[int, ...] | None = None
    digits: str | None = None
    format: str = "auto"
    size: int | None = None

    def __post_init__(self):
        if self.box is not None:
            box = self.box
            if isinstance(box, (str, bytes)) or not isinstance(box, Sequence) or len(box) != 2:
                raise TypeError(f"box must be a pair of integers (rows, cols) or None, not "
                                f"{describe(box)}")
            object.__setattr__(self, "box", (need_int("box[0]", box[0], low=1),
                                             need_int("box[1]", box[1], low=1)))
        need_type("variant", self.variant, str)
        need_type("format", self.format, str)
        need_type("digits", self.digits, (str, type(None)), "a str or None")
        if self.digits is not None:  # ranges as on the command line: "0-9A-Z"
            object.__setattr__(self, "digits", parse_digits(self.digits))
        if isinstance(self.regions, str):  # a region map, as the CLI's --regions takes it
            object.__setattr__(self, "regions", parse_regions(self.regions, source="regions",
                                                                 line=None))
        if self.regions is not None:
            object.__setattr__(self, "regions", need_ints("regions", self.regions,
                                                          low=-(2**63), high=2**63 - 1))
        need_int("size", self.size, allow_none=True)
        if self.variant not in VARIANTS:
            raise PuzzleFormatError(
                f"unknown variant {self.variant!r}; choose from {', '.join(sorted(VARIANTS))}"
            )
        if self.format not in ("auto", "line", "grid", "tuples"):
            raise PuzzleFormatError(f"unknown format {self.format!r}")
        if self.size is not None and not 2 <= self.size <= MAX_SIZE:
            raise PuzzleFormatError(f"grid size {self.size} is not supported (2..{MAX_SIZE})")

    @property
    def comments(self) -> bool:
        """True if ``#`` starts a comment line: unless ``#`` is one of the digits.

        >>> Rules().comments, Rules(digits="#12345678").comments
        (True, False)
        """
        return self.digits is None or "#" not in self.digits

    def merged(self, other: "Rules") -> "Rules":
        """``self`` with every field that ``other`` sets explicitly taken from ``other``."""
        changes = {k: v for k, v in vars(other).items() if v not in (None, "auto", "standard")}
        return replace(self, **changes)

    def make(self, givens: Sequence[int], *, regions: Sequence[int] | None = None,
             name: str = "", solution: Sequence[int] | None = None,
             alphabet: str = "") -> Puzzle:
        """Build the puzzle for ``givens`` under these rules."""
        givens = tuple(givens)
        regions = regions if regions is not None else self.regions
        n = round(len(givens) ** 0.5)
        extra = VARIANTS[self.variant](n)
        kw = dict(name=name, alphabet=alphabet,
                  solution=tuple(solution) if solution is not None else None)
        if regions is not None:
            return Puzzle.jigsaw(givens, regions, extra=extra, **kw)
        return Puzzle.standard(givens, box=self.box, extra=extra, **kw)


def parse_regions(text: str, n: int | None = None, *, source="<regions>", line=1) -> tuple[int, ...]:
    """Parse a jigsaw region map into flat region ids ``0..n-1`` (first-appearance order)."""
    s = "".join(ch for ch in text if not ch.isspace() and ch not in REGION_SEPARATORS)
    m = math.isqrt(len(s))
    if n is None:
        if m * m != len(s) or m < 2:
            raise PuzzleFormatError(f"region map has {len(s)} cells, which is not an n x n grid",
                                    source=source, line=line)
        n = m
    if len(s) != n * n:
        raise PuzzleFormatError(f"region map has {len(s)} cells, a {n}x{n} grid needs {n * n}",
                                source=source, line=line)
    ids: dict[str, int] = {}
    return tuple(ids.setdefault(ch, len(ids)) for ch in s)


def parse_box(spec: str) -> tuple[int, int]:
    """Parse ``"2x3"`` into ``(2, 3)``.

    >>> parse_box("3x4")
    (3, 4)
    """
    m = re.fullmatch(r"\s*(\d+)\s*[xX*]\s*(\d+)\s*", spec or "")
    if not m:
        raise PuzzleFormatError(f"box shape {spec!r} is not of the form RxC (e.g. 2x3)")
    r, c = int(m.group(1)), int(m.group(2))
    if r < 1 or c < 1:
        raise PuzzleFormatError(f"box shape {spec!r} must have positive sides")
    return r, c
