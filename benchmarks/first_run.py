"""First and later `qsudoku solve` runs, and time limits on blank big grids (issue 16).

1. ``solve``: ``qsudoku solve <hard 9x9>`` in a fresh process with an empty numba cache
   (``NUMBA_CACHE_DIR`` a new temporary directory: the kernels compile), then again with
   the cache filled (they load): wall and CPU seconds of each process.
2. ``limits``: the route on a blank n x n grid with a time budget and an exact fallback
   limit: seconds spent in the route and in the fallback against their limits, the verdict
   and the peak RSS (one child process per grid).

    python benchmarks/first_run.py
    python benchmarks/first_run.py --parts limits --sizes 25:0.05:0.5,36:2:2,49:5:5

Timings depend on the machine's load: the load average is printed with the results; CPU
seconds are less sensitive to it than wall seconds.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HARD = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "sudoku9" / \
    "forum_hardest_1106.txt"

_LIMITS = """
import resource, string, sys, time
from qsudoku.puzzle import Puzzle
from qsudoku.route import anneal_route
from qsudoku.samplers import get_sampler
n, budget, flim = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
from qsudoku.config import ROUTE_SAMPLER
get_sampler(ROUTE_SAMPLER).warm_up()
p = Puzzle.standard([0] * (n * n), alphabet=(string.digits[1:] + string.ascii_letters)[:n])
r = anneal_route(p, time_budget=budget, fallback=("sat", "csp"), fallback_time_limit=flim, seed=1)
t = r.timings
route = t["total"] - t["fallback"]
print(f"{n}x{n}: route {route:.2f} s of {budget:g} s, fallback {t['fallback']:.2f} s of {flim:g} s,"
      f" {'VALID' if r.valid else 'not decided'} ({r.solved_by}), {r.rounds} rounds, peak RSS "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")
"""


def timed(cmd, env) -> tuple[float, float]:
    """Wall and CPU (user + sys of the child) seconds of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_solve(path: str) -> None:
    puzzle = Path(path).read_text().split()[0]  # the file's first puzzle
    cmd = [sys.executable, "-m", "qsudoku", "solve", puzzle]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for what in ("empty cache (compile)", "filled cache (load)", "filled cache (load)"):
            wall, cpu = timed(cmd, env)
            print(f"qsudoku solve, {what}: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)


def run_limits(sizes: str) -> None:
    for spec in sizes.split(","):
        n, budget, flim = spec.split(":")
        out = subprocess.run([sys.executable, "-c", _LIMITS, n, budget, flim], check=True,
                             capture_output=True, text=True)
        print(out.stdout.strip(), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="solve,limits")
    ap.add_argument("--file", default=str(HARD), help="puzzles; the first one is solved")
    ap.add_argument("--sizes", default="25:0.05:0.5,36:2:2,49:5:5",
                    help="n:time_budget:fallback_time_limit, comma-separated")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "solve" in args.parts:
        run_solve(args.file)
    if "limits" in args.parts:
        run_limits(args.sizes)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
