"""MiniZinc: a generic AllDifferent model plus the puzzle's data, in one file.

The model is the same for every puzzle (a ``grid`` restricted to its candidates,
``alldifferent`` over every row of the ``units`` table); the data part holds the size,
givens, candidates and units.  Solve with ``minizinc file.mzn``.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> text = to_minizinc(propagate(parse_puzzle("12.." "34.." "...." "...."), rules=()))
>>> "n = 4;" in text, "num_units = 12;" in text, text.count("alldifferent(")
(True, True, 1)
"""

from __future__ import annotations

from qsudoku.model.propagate import Candidates

__all__ = ["MODEL", "to_minizinc", "data_section"]

#: The puzzle-independent model.
MODEL = """\
include "alldifferent.mzn";

int: n;
set of int: N = 1..n;
array[N, N] of 0..n: givens;          % 0 = blank
array[N, N] of set of int: cand;      % candidates left by propagation
int: num_units;
array[1..num_units, N] of 1..n*n: units;  % flat cell numbers (r-1)*n + c

array[N, N] of var N: grid;

constraint forall(r, c in N)(grid[r, c] in cand[r, c]);
constraint forall(r, c in N where givens[r, c] > 0)(grid[r, c] = givens[r, c]);
constraint forall(u in 1..num_units)(
    alldifferent([grid[(units[u, k] - 1) div n + 1, (units[u, k] - 1) mod n + 1] | k in N]));

solve satisfy;

output [show(grid[r, c]) ++ if c == n then "\\n" else " " endif | r, c in N];
"""


def _table(rows: list[list[str]]) -> str:
    """A 2-D array literal ``[| a, b | c, d |]``, one row per line."""
    return "[| " + "\n   | ".join(", ".join(r) for r in rows) + " |]"


def data_section(cands: Candidates) -> str:
    """The data assignments (``n``, ``givens``, ``cand``, ``num_units``, ``units``)."""
    p = cands.puzzle
    n = p.size
    givens = [[str(p.givens[r * n + c]) for c in range(n)] for r in range(n)]
    cand = [["{" + ", ".join(map(str, cands.digits(r * n + c))) + "}" for c in range(n)]
            for r in range(n)]
    units = [[str(x + 1) for x in u.cells] for u in p.units]
    names = ", ".join(u.label for u in p.units)
    return (f"n = {n};\n"
            f"givens = {_table(givens)};\n"
            f"cand = {_table(cand)};\n"
            f"% units: {names}\n"
            f"num_units = {len(p.units)};\n"
            f"units = {_table(units)};\n")


def to_minizinc(cands: Candidates) -> str:
    """The model with its data, ready for ``minizinc``."""
    p = cands.puzzle
    head = (f"% qsudoku: {p.kind}{' - ' + p.name if p.name else ''}\n"
            f"% puzzle: {p.format()}\n"
            f"% propagated: {cands.format()}\n\n")
    return head + MODEL + "\n% ---- data (assignment items) ----\n" + data_section(cands)
