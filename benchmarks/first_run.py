"""First and later `qsudoku solve` runs, and time limits on blank big grids.

1. ``solve``: ``qsudoku solve <hard 9x9>`` in a fresh process with an empty numba cache
   (``NUMBA_CACHE_DIR`` a new temporary directory: the kernels compile), then ``--repeat``
   times with the cache filled (they load), and as often on an easy puzzle (solved by
   propagation, no kernel): wall and CPU seconds of each process, and their medians; beside
   them, as often, the floor: a process that only imports numpy, numba and dimod.  With
   ``--against TREE`` (another checkout of the package, e.g. ``git archive main | tar -x -C
   /tmp/main``) the warm runs alternate between that tree and this one (``PYTHONPATH``), so
   that both see the same load.
2. ``limits``: the route on a blank n x n grid with a time budget and an exact fallback
   limit: seconds spent in the route and in the fallback against their limits, the verdict
   and the peak RSS (one child process per grid).

    python benchmarks/first_run.py
    python benchmarks/first_run.py --parts solve --repeat 7 --against /tmp/main
    python benchmarks/first_run.py --parts limits --sizes 25:0.05:0.5,36:2:2,49:5:5

Timings depend on the machine's load: the load average is printed with the results; CPU
seconds are less sensitive to it than wall seconds.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HARD = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "sudoku9" / \
    "forum_hardest_1106.txt"

_LIMITS = """
import resource, string, sys, time
from qsudoku import Config, Puzzle
from qsudoku.solving import make_plan, run_plan
n, budget, flim = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
config = Config().with_overrides(seed=1, route={"time_budget": budget, "exact_fallback": "sat,csp",
                                                "fallback_time_limit": flim})
plan = make_plan(config)
plan.warm_up()
p = Puzzle.standard([0] * (n * n), alphabet=(string.digits[1:] + string.ascii_letters)[:n])
r = run_plan(plan, p)
t = r.timings
fallback = t.get("fallback", 0.0)  # absent when no fallback ran
route = t["total"] - fallback
print(f"{n}x{n}: route {route:.2f} s of {budget:g} s, fallback {fallback:.2f} s of {flim:g} s,"
      f" {'VALID' if r.valid else 'not decided'} ({r.solved_by}), {r.rounds} rounds, peak RSS "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")
"""


def timed(cmd, env, cwd=None) -> tuple[float, float]:
    """Wall and CPU (user + sys of the child) seconds of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, cwd=cwd)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


#: What a warm solve of a hard puzzle imports in any case: the arrays, the kernels' compiler
#: and the BQM's library.
FLOOR = "import numpy, numba, dimod"
EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def _stats(times: list[tuple[float, float]]) -> str:
    wall, cpu = sorted(w for w, _ in times), sorted(c for _, c in times)
    return (f"median {statistics.median(wall):.3f} s wall (min {wall[0]:.3f}, max {wall[-1]:.3f}), "
            f"{statistics.median(cpu):.3f} s CPU")


def run_solve(path: str, repeat: int, against: str | None) -> None:
    hard = Path(path).read_text().split()[0][:81]  # the file's first puzzle
    here = str(Path(__file__).resolve().parents[1])
    trees = ([("against", against)] if against else []) + [("this tree", here)]
    pyc = "off (PYTHONDONTWRITEBYTECODE)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(f"bytecode caching: {pyc}; trees: {', '.join(f'{k} = {t}' for k, t in trees)}")
    with tempfile.TemporaryDirectory() as cache:  # also the cwd: -m imports from the cwd
        envs = {k: dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=t) for k, t in trees}
        for k, _ in trees:
            cmd = [sys.executable, "-m", "qsudoku", "solve", hard]
            wall, cpu = timed(cmd, envs[k], cwd=cache)
            print(f"{k}: qsudoku solve <hard>, empty cache (compile): {wall:.2f} s wall, "
                  f"{cpu:.2f} s CPU", flush=True)
        runs = {(k, p): [] for k, _ in trees for p in ("hard", "easy")}
        floor = []  # the libraries a warm hard solve cannot do without, imported alone
        for _ in range(repeat):  # alternating, so that every tree sees the same load
            for (k, p), times in runs.items():
                times.append(timed([sys.executable, "-m", "qsudoku", "solve",
                                    hard if p == "hard" else EASY], envs[k], cwd=cache))
            floor.append(timed([sys.executable, "-c", FLOOR], envs[trees[-1][0]], cwd=cache))
        for (k, p), times in runs.items():
            print(f"{k}: qsudoku solve <{p}>, filled cache, {repeat} runs: {_stats(times)}",
                  flush=True)
        print(f"floor: python -c {FLOOR!r}, {repeat} runs: {_stats(floor)}", flush=True)
        if against:
            for p in ("hard", "easy"):
                old, new = (statistics.median(w for w, _ in runs[k, p]) for k, _ in trees)
                print(f"<{p}> median wall, this tree / against: {new / old:.2f}")


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
    ap.add_argument("--repeat", type=int, default=5, help="warm runs of each puzzle (and tree)")
    ap.add_argument("--against", metavar="TREE",
                    help="another checkout of the package to alternate the warm runs with")
    ap.add_argument("--sizes", default="25:0.05:0.5,36:2:2,49:5:5",
                    help="n:time_budget:fallback_time_limit, comma-separated")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "solve" in args.parts:
        run_solve(args.file, args.repeat, args.against)
    if "limits" in args.parts:
        run_limits(args.sizes)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
