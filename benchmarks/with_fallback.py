"""The default solve, exact fallback included, on one shared lewis file: what a user gets.

Per puzzle (seed 0): valid or not, what solved it (``aco (1 round)``, ``sat fallback after
...`` or ``none``), the wall time of the ``solve`` call and its stage timings.  The
sampling budget is ``--budget`` seconds (``[route] time_budget``); the fallback keeps its
configured limit (``[route] fallback_time_limit``, 60 s).  One puzzle at a time; the load
average is printed before and after.

    python benchmarks/with_fallback.py --shared ../shared --size 36 --fraction 50 --first 10 --budget 30
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from qsudoku import Config, solve
from qsudoku.io import load_puzzles


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default="../shared", help="the shared directory")
    ap.add_argument("--size", type=int, default=36)
    ap.add_argument("--fraction", default="50", help="percent given, as in lewis_pXX.txt")
    ap.add_argument("--first", type=int, default=10, help="puzzles from the start of the file")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds of sampling rounds")
    args = ap.parse_args()
    path = Path(args.shared) / "lewis" / f"sudoku{args.size}" / f"lewis_p{args.fraction}.txt"
    config = Config().with_overrides(route={"time_budget": args.budget}, seed=0)
    print(f"# {path}, budget {args.budget} s, {load()}")
    puzzles = load_puzzles(str(path))[:args.first]
    solved = 0
    for i, puzzle in enumerate(puzzles):
        t = time.perf_counter()
        r = solve(puzzle, config)
        solved += r.valid
        stages = ", ".join(f"{k} {v:.1f}" for k, v in r.timings.items())
        print(f"{i} {r.valid} {r.solved_by!r} {time.perf_counter() - t:.1f} s ({stages})",
              flush=True)
    print(f"# solved {solved}/{len(puzzles)}, {load()}")


if __name__ == "__main__":
    main()
