"""Classical propagation over ``Puzzle.units``: forced cells and candidates.

Every rule reads only the units list, so it works for any geometry.  Candidates are
bitmasks (bit ``d - 1`` for digit ``d``).  The givens eliminate their digit from their
peers; the selected rules then run to a fixpoint:

* ``naked_single``: a cell with one candidate takes it.
* ``hidden_single``: a digit with one place in a unit goes there.
* ``locked_candidates``: if a digit's places in unit A all lie in unit B, it is
  removed from the rest of B (pointing and claiming, for any pair of units).
* ``naked_pair`` / ``naked_triple``: k cells of a unit whose candidates are k
  digits remove those digits from the unit's other cells.
* ``hidden_pair`` / ``hidden_triple``: k digits of a unit confined to the same
  k cells remove every other candidate from those cells.

>>> from qsudoku.io import parse_puzzle
>>> c = propagate(parse_puzzle("1..." "..2." ".3.." "...4"))
>>> c.solved, c.format()
(True, '1243342143122134')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable, Sequence

import numpy as np

from qsudoku.checks import describe, need_type
from qsudoku.errors import ConfigError, ContradictionError
from qsudoku.model.puzzle import Puzzle

__all__ = ["Candidates", "propagate", "RULES", "DEFAULT_RULES", "check_rules", "candidate_bits"]

DEFAULT_RULES = ("naked_single", "hidden_single")


@dataclass
class Candidates:
    """Result of propagation.

    Attributes:
        puzzle: The puzzle propagated.
        grid: Row-major values after propagation (givens + forced digits; 0 = open).
        masks: Candidate bitmask per cell (a single bit for a filled cell).
        fired: How many times each rule acted (cells filled or candidates removed).
        rules: The rules that were run.
    """

    puzzle: Puzzle
    grid: list[int]
    masks: list[int]
    fired: Counter = field(default_factory=Counter)
    rules: tuple[str, ...] = DEFAULT_RULES

    def digits(self, cell: int) -> list[int]:
        """Candidate digits of flat ``cell``, ascending."""
        m = self.masks[cell]
        return [d + 1 for d in range(self.puzzle.size) if m >> d & 1]

    @property
    def open_cells(self) -> list[int]:
        """Flat indices of the cells left open."""
        return [c for c, v in enumerate(self.grid) if v == 0]

    @property
    def num_variables(self) -> int:
        """Candidate variables left: the size of the reduced QUBO."""
        return sum(self.masks[c].bit_count() for c in self.open_cells)

    @property
    def solved(self) -> bool:
        """True when propagation filled every cell."""
        return all(self.grid)

    def format(self) -> str:
        """Row-major string of the propagated grid."""
        return self.puzzle.format(self.grid)

    def open_bits(self) -> np.ndarray:
        """:func:`candidate_bits` of the masks, all False on the filled cells."""
        bits = candidate_bits(self.masks, self.puzzle.size)
        bits[np.asarray(self.grid, dtype=np.int64) != 0] = False
        return bits


def candidate_bits(masks: Sequence[int], n: int) -> np.ndarray:
    """``(len(masks), n)`` booleans: bit ``d`` of each candidate mask (digit ``d + 1``), for
    any ``n`` (through the masks' little-endian bytes).

    >>> candidate_bits([0b101, 0b010], 3).astype(int).tolist()
    [[1, 0, 1], [0, 1, 0]]
    >>> int(candidate_bits([(1 << 64) - 1], 64).sum())
    64
    """
    width = max(1, (n + 7) // 8)
    raw = b"".join(m.to_bytes(width, "little") for m in masks)
    bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")
    return bits.reshape(len(masks), width * 8)[:, :n].astype(bool)


class _State:
    def __init__(self, puzzle: Puzzle, fired: Counter):
        self.p = puzzle
        n = puzzle.size
        self.full = (1 << n) - 1
        self.grid = [0] * (n * n)
        self.masks = [self.full if g == 0 else 1 << (g - 1) for g in puzzle.givens]
        self.fired = fired

    def where(self, cell):
        r, c = self.p.rc(cell)
        return f"r{r + 1}c{c + 1}"

    def place(self, cell: int, digit: int) -> None:
        """Fill ``cell`` with ``digit`` and remove the digit from its peers."""
        self.grid[cell] = digit
        bit = 1 << (digit - 1)
        self.masks[cell] = bit
        for q in self.p.peers[cell]:
            if self.masks[q] & bit:
                self.remove(q, bit)

    def remove(self, cell: int, bits: int) -> bool:
        """Remove candidate ``bits`` from ``cell``; True if anything changed."""
        m = self.masks[cell]
        if not m & bits:
            return False
        m &= ~bits
        self.masks[cell] = m
        if m == 0:
            raise ContradictionError(f"cell {self.where(cell)} has no candidate left",
                                     cell=self.p.rc(cell), source=self.p.name or None)
        return True


def _naked_single(s: _State) -> int:
    count = 0
    for cell, m in enumerate(s.masks):
        if s.grid[cell] == 0 and m.bit_count() == 1:
            s.place(cell, m.bit_length())
            count += 1
    return count


def _no_place(s: _State, unit, bits: int) -> ContradictionError:
    d = (bits & -bits).bit_length()  # the lowest digit of ``bits``
    return ContradictionError(f"digit {s.p.alphabet[d - 1]} has no place left in {unit.label}",
                              unit=unit.label, digit=d, source=s.p.name or None)


def _hidden_single(s: _State) -> int:
    count = 0
    masks, grid = s.masks, s.grid
    for unit in s.p.units:
        cells = unit.cells
        union = twice = 0
        for c in cells:  # digits seen once (union & ~twice) and more than once, by bit tricks
            m = masks[c]
            twice |= union & m
            union |= m
        if union != s.full:
            raise _no_place(s, unit, s.full & ~union)
        single = union & ~twice
        while single:
            bit = single & -single
            single ^= bit
            places = [c for c in cells if masks[c] & bit]  # again: a placement may have acted
            if not places:
                raise _no_place(s, unit, bit)
            if len(places) == 1 and grid[places[0]] == 0:
                s.place(places[0], bit.bit_length())
                count += 1
    return count


def _locked_candidates(s: _State) -> int:
    count = 0
    units, masks, grid = s.p.units, s.masks, s.grid
    in_units = [sum(1 << k for k in ks) for ks in s.p.cell_units]  # units of each cell, as bits
    for k, unit in enumerate(units):
        open_cells = [c for c in unit.cells if grid[c] == 0]
        if len(open_cells) < 2:
            continue
        union = 0
        for c in open_cells:
            union |= masks[c]
        while union:
            bit = union & -union
            union ^= bit
            places = [c for c in open_cells if masks[c] & bit]
            if len(places) < 2:
                continue
            shared = ~(1 << k)
            for c in places:
                shared &= in_units[c]
            while shared > 0:  # every other unit holding all of the digit's places
                low = shared & -shared
                shared ^= low
                for c in units[low.bit_length() - 1].cells:
                    if not in_units[c] >> k & 1 and grid[c] == 0 and s.remove(c, bit):
                        count += 1
    return count


def _naked_subset(size: int):
    def rule(s: _State) -> int:
        count = 0
        for unit in s.p.units:
            open_cells = [c for c in unit.cells if s.grid[c] == 0]
            small = [c for c in open_cells if 2 <= s.masks[c].bit_count() <= size]
            for group in combinations(small, size):
                union = 0
                for c in group:
                    union |= s.masks[c]
                if union.bit_count() == size:
                    for c in open_cells:
                        if c not in group and s.remove(c, union):
                            count += 1
        return count
    return rule


def _hidden_subset(size: int):
    def rule(s: _State) -> int:
        count = 0
        n = s.p.size
        for unit in s.p.units:
            open_cells = [c for c in unit.cells if s.grid[c] == 0]
            where = {}
            for d in range(1, n + 1):
                bit = 1 << (d - 1)
                spots = frozenset(c for c in open_cells if s.masks[c] & bit)
                if 2 <= len(spots) <= size:
                    where[d] = spots
            for digits in combinations(sorted(where), size):
                cells = frozenset().union(*(where[d] for d in digits))
                if len(cells) == size:
                    keep = sum(1 << (d - 1) for d in digits)
                    for c in cells:
                        if s.remove(c, s.masks[c] & ~keep):
                            count += 1
        return count
    return rule


#: Rule name -> function acting on the state; cheap rules first.
RULES = {
    "naked_single": _naked_single,
    "hidden_single": _hidden_single,
    "locked_candidates": _locked_candidates,
    "naked_pair": _naked_subset(2),
    "hidden_pair": _hidden_subset(2),
    "naked_triple": _naked_subset(3),
    "hidden_triple": _hidden_subset(3),
}


def check_rules(rules: Iterable[str]) -> tuple[str, ...]:
    """Validate rule names and return them in :data:`RULES` order.

    >>> check_rules(["bogus"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: unknown propagation rule 'bogus'; choose from naked_single, ..., hidden_triple, or none (only the givens eliminate: --rules none, rules = [])
    """
    if isinstance(rules, (str, bytes)) or not isinstance(rules, Iterable):
        raise TypeError(f"rules must be a sequence of rule names, not {describe(rules)}")
    rules = tuple(rules)
    for k, r in enumerate(rules):
        need_type(f"rules[{k}]", r, str, "a rule name (str)")
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise ConfigError(f"unknown propagation rule{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(map(repr, unknown))}; choose from {', '.join(RULES)}, "
                          "or none (only the givens eliminate: --rules none, rules = [])")
    return tuple(r for r in RULES if r in rules)


def propagate(puzzle: Puzzle, rules: Sequence[str] = DEFAULT_RULES,
              start: Candidates | None = None) -> Candidates:
    """Fill forced cells and return every open cell's candidates.

    The rules run to a fixpoint, cheapest first (after any rule acts, from the first).

    Args:
        puzzle: The puzzle.
        rules: Rule names (see :data:`RULES`).
        start: An earlier result for ``puzzle`` to continue from (e.g. with more rules);
            the fixpoint is the one a fresh run reaches (rules only remove candidates no
            solution uses).

    >>> from qsudoku.io import parse_puzzle
    >>> p = parse_puzzle("1..." "..2." "...." "...4")
    >>> first = propagate(p, ())
    >>> propagate(p, start=first).grid == propagate(p).grid
    True

    Raises:
        ContradictionError: Duplicate givens, a cell with no candidate, or a digit
            with no place in a unit; the message names the cell or unit.
    """
    need_type("puzzle", puzzle, Puzzle)
    need_type("start", start, (Candidates, type(None)), "Candidates or None")
    rules = check_rules(rules)
    fired: Counter = Counter({r: 0 for r in rules})
    s = _State(puzzle, fired)
    if start is None:
        puzzle.check_givens()
        for cell, g in enumerate(puzzle.givens):
            if g:
                s.place(cell, g)
    else:
        other = start.puzzle
        if other is not puzzle and (other.givens != puzzle.givens or other.units != puzzle.units):
            raise ValueError("start is the propagation of another puzzle")
        s.grid, s.masks = list(start.grid), list(start.masks)
        fired.update(start.fired)
    funcs = [(name, RULES[name]) for name in rules]
    progress = True
    while progress:
        progress = False
        for name, fn in funcs:
            acted = fn(s)
            if acted:
                fired[name] += acted
                progress = True
                break
    if "hidden_single" not in rules:
        _check_units(s)
    return Candidates(puzzle, s.grid, s.masks, fired, rules)


def _check_units(s: _State) -> None:
    """Every digit must still have a place in every unit (hidden_single checks it too)."""
    for unit in s.p.units:
        union = 0
        for c in unit.cells:
            union |= s.masks[c]
        if union != s.full:
            raise _no_place(s, unit, s.full & ~union)
