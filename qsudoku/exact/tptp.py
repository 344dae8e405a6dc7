"""TPTP: the puzzle as a first-order problem for a finite model finder (Paradox-style).

The domain is the ``n`` digits ``d1 .. dn`` (which also name rows and columns);
``val(R, C)`` is the digit in row ``R``, column ``C``.  Axioms (FOF): the digits are
distinct and the only elements; per unit kind that partitions the grid a function
``<kind>_of(R, C)`` and "two cells of one unit with one value are one cell"; for any
other unit a predicate ``in_<kind>_<k>(R, C)`` and the same axiom; one equation per
given.  A model of the axioms is a solution.

>>> from qsudoku.io import parse_puzzle
>>> text = to_tptp(parse_puzzle("12.." "34.." "...." "...."))
>>> "fof(given_r1c2, axiom, val(d1, d2) = d2)." in text, text.count("fof(")
(True, 21)
"""

from __future__ import annotations

from qsudoku.model.puzzle import Puzzle

__all__ = ["to_tptp", "partition_kinds"]


def partition_kinds(puzzle: Puzzle) -> list[str]:
    """Unit kinds whose units tile the grid (n units, every cell in exactly one)."""
    n = puzzle.size
    return [kind for kind, units in _by_kind(puzzle).items()
            if len(units) == n and sorted(c for u in units for c in u.cells) == list(range(n * n))]


def _by_kind(puzzle: Puzzle) -> dict[str, list]:
    kinds: dict[str, list] = {}
    for u in puzzle.units:
        kinds.setdefault(u.kind, []).append(u)
    return kinds


def _d(i: int) -> str:
    return f"d{i}"


def _cell(puzzle: Puzzle, c: int) -> tuple[str, str]:
    r, col = divmod(c, puzzle.size)
    return _d(r + 1), _d(col + 1)


def _same_cell_axiom(name: str, premise: str) -> str:
    return (f"fof({name}, axiom, ![R1, C1, R2, C2]: (({premise} & val(R1, C1) = val(R2, C2)) "
            f"=> (R1 = R2 & C1 = C2))).")


def to_tptp(puzzle: Puzzle) -> str:
    """The FOF problem text (axioms only: a model is a solution)."""
    n = puzzle.size
    digits = [_d(i) for i in range(1, n + 1)]
    out = [f"% qsudoku: {puzzle.kind}{' - ' + puzzle.name if puzzle.name else ''}",
           f"% puzzle: {puzzle.format()}",
           "% val(R, C) is the digit in row R, column C; d1..dn are the digits and index",
           "% rows and columns. Every model (of size n) is a solution.", ""]
    pairs = [f"{a} != {b}" for i, a in enumerate(digits) for b in digits[i + 1:]]
    out.append(f"fof(digits_distinct, axiom, ({' & '.join(pairs) or '$true'})).")
    out.append(f"fof(digits_only, axiom, ![X]: ({' | '.join(f'X = {d}' for d in digits)})).")
    partition = partition_kinds(puzzle)
    for kind, units in _by_kind(puzzle).items():
        if kind in partition:
            fn = f"{kind}_of"
            for k, u in enumerate(units, start=1):
                facts = [f"{fn}({r}, {c}) = {_d(k)}" for r, c in (_cell(puzzle, x) for x in u.cells)]
                out.append(f"fof({kind}_{k}, axiom, ({' & '.join(facts)})).")
            out.append(_same_cell_axiom(f"{kind}_once", f"{fn}(R1, C1) = {fn}(R2, C2)"))
            continue
        for k, u in enumerate(units, start=1):
            pred = f"in_{u.name or kind}_{k}"
            cells = " | ".join(f"(R = {r} & C = {c})" for r, c in (_cell(puzzle, x) for x in u.cells))
            out.append(f"fof({pred}_def, axiom, ![R, C]: ({pred}(R, C) <=> ({cells}))).")
            out.append(_same_cell_axiom(f"{pred}_once", f"{pred}(R1, C1) & {pred}(R2, C2)"))
    for c, g in enumerate(puzzle.givens):
        if g:
            r, col = _cell(puzzle, c)
            out.append(f"fof(given_r{c // n + 1}c{c % n + 1}, axiom, val({r}, {col}) = {_d(g)}).")
    return "\n".join(out) + "\n"
