"""How far each propagation rule set shrinks the reduced QUBO, per shared 9x9 set.

Prints, for every file under shared/data/sudoku9 (and optionally other dirs), the median number
of QUBO variables left (and the share of puzzles solved by propagation alone) for cumulative rule
sets, plus the total propagation time per rule set relative to singles.

    python benchmarks/propagation.py [--dir sudoku9] [--limit 300]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from qsudoku.io import load_puzzles
from qsudoku.model.propagate import propagate

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
RULE_SETS = {
    "givens only": [],
    "naked singles": ["naked_single"],
    "singles": ["naked_single", "hidden_single"],
    "+ locked": ["naked_single", "hidden_single", "locked_candidates"],
    "+ pairs": ["naked_single", "hidden_single", "locked_candidates", "naked_pair", "hidden_pair"],
    "+ triples": ["naked_single", "hidden_single", "locked_candidates", "naked_pair", "hidden_pair",
                  "naked_triple", "hidden_triple"],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="sudoku9")
    ap.add_argument("--limit", type=int, default=300, help="puzzles per file (first N)")
    args = ap.parse_args()
    names = list(RULE_SETS)
    print(f"median variables left (solved by propagation %), first {args.limit} puzzles per file")
    print(f"{'file':32s} " + " ".join(f"{n:>16s}" for n in names))
    totals = {n: 0.0 for n in names}
    for f in sorted((DATA / args.dir).glob("*.txt")):
        if f.name.endswith((".solutions.txt", ".ids.txt")):
            continue
        puzzles = load_puzzles(str(f))[: args.limit]
        cells = []
        for n in names:
            t = time.perf_counter()
            cs = [propagate(p, RULE_SETS[n]) for p in puzzles]
            totals[n] += time.perf_counter() - t
            med = statistics.median(c.num_variables for c in cs)
            solved = sum(c.solved for c in cs) / len(cs)
            cells.append(f"{med:>9g} ({solved:4.0%})")
        print(f"{f.name[:-4]:32s} " + " ".join(f"{c:>16s}" for c in cells))
    ref = totals["singles"]
    print("propagation time relative to singles: " +
          ", ".join(f"{n} {totals[n] / ref:.2f}x" for n in names))


if __name__ == "__main__":
    main()
