"""This tree's default solve against another checkout's, puzzle by puzzle, interleaved.

Two worker processes, one per source tree, each import their own ``qsudoku`` and
solve the puzzles they are sent with the default sampler (``--budget`` seconds, no exact
fallback, seed = puzzle index).  Each puzzle goes to both workers in turn, the order
alternating, so both see the same machine load; the table gives per set the median wall
and CPU time of each and their ratio (this tree / the other), and the solved counts.

    git worktree add /tmp/ref 9ebe0c5
    python benchmarks/versus.py --ref /tmp/ref                    # six hardest 9x9 sets
    python benchmarks/versus.py --ref /tmp/ref --dirs sudoku16 --limit 20 --budget 5
    python benchmarks/versus.py --ref /tmp/ref --lewis 25 --budget 10      # every fraction
    python benchmarks/versus.py --ref /tmp/ref --lewis 36 --fractions 50,55 --limit 10 --budget 30

The other tree may predate :func:`qsudoku.solving.run_plan`; its workers then call
``qsudoku.route.anneal_route`` (the default solve of that time), with the same budget,
seed and no fallback.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DATA = HERE.parent / "shared" / "data"
SETS = ["norvig_top95", "norvig_hardest", "inkala_named", "forum_hardest_1106",
        "magictour_top1465", "royle_17clue"]

#: The worker: reads ``path index`` lines, answers one JSON line per puzzle.
WORKER = r"""
import json, sys, time
from qsudoku.io import load_puzzles
budget, api = float(sys.argv[1]), sys.argv[2]
if api == "plan":
    from dataclasses import replace
    from qsudoku.config import Config
    from qsudoku.solving import make_plan, run_plan
    plan = make_plan(Config().with_overrides(route={"time_budget": budget, "exact_fallback": ""}))
    plan.warm_up()
    def solve(p, i):
        return run_plan(replace(plan, seed=i), p)
else:
    from qsudoku.route import anneal_route
    def solve(p, i):
        return anneal_route(p, time_budget=budget, seed=i)
cache = {}
print("ready", flush=True)
for line in sys.stdin:
    path, i = line.split()
    i = int(i)
    if path not in cache:
        cache[path] = load_puzzles(path)
    p = cache[path][i]
    w, c = time.perf_counter(), time.process_time()
    r = solve(p, i)
    w, c = time.perf_counter() - w, time.process_time() - c
    ok = bool(r.valid and (p.solution is None or list(r.grid) == list(p.solution)))
    print(json.dumps({"wall": w, "cpu": c, "ok": ok, "rounds": r.rounds,
                      "by": r.solved_by}), flush=True)
"""


def start(tree: Path, budget: float) -> subprocess.Popen:
    """A worker importing ``qsudoku`` from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    api = "plan" if (tree / "qsudoku" / "solving").is_dir() else "route"
    proc = subprocess.Popen([sys.executable, "-c", WORKER, str(budget), api], cwd=tree, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def ask(proc: subprocess.Popen, path: Path, i: int) -> dict:
    proc.stdin.write(f"{path} {i}\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def files(args) -> list[Path]:
    if args.lewis:  # ../shared/lewis/sudokuN/lewis_pXX.txt, by fraction
        def given(f: Path) -> int:  # lewis_p45.txt -> 45
            return int(f.stem.removeprefix("lewis_p"))

        found = sorted((HERE.parent / "shared" / "lewis" / f"sudoku{args.lewis}").glob("lewis_p*.txt"),
                       key=given)
        keep = {int(x) for x in args.fractions.split(",")} if args.fractions else None
        return [f for f in found if keep is None or given(f) in keep]
    if args.dirs:
        return [f for d in args.dirs.split(",") for f in sorted((DATA / d).glob("*.txt"))
                if not f.name.endswith((".ids.txt", ".solutions.txt"))]
    return [DATA / "sudoku9" / f"{s}.txt" for s in args.sets.split(",")]


def count(path: Path) -> int:
    from qsudoku.io import load_puzzles

    return len(load_puzzles(str(path)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, help="the other source tree (a git worktree)")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--dirs", default="", help="whole data dirs instead, e.g. sudoku16")
    ap.add_argument("--lewis", type=int, default=0, metavar="N",
                    help="the lewis N x N fraction files instead (any valid grid counts)")
    ap.add_argument("--fractions", default="", metavar="P,P",
                    help="with --lewis: only these percentages given, e.g. 50,55 (default: all)")
    ap.add_argument("--limit", type=int, default=0, help="first N puzzles per file (0 = all)")
    ap.add_argument("--budget", type=float, default=2.0)
    args = ap.parse_args()
    trees = {"this": HERE, "ref": Path(args.ref).resolve()}
    workers = {name: start(tree, args.budget) for name, tree in trees.items()}
    print(f"command: python benchmarks/versus.py {' '.join(sys.argv[1:])}")
    print(f"this = {HERE}, ref = {trees['ref']}; budget {args.budget} s, no fallback, "
          f"seed = puzzle index; load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'set':28s} {'n':>5s} {'solved this/ref':>16s} {'wall ms this':>13s} {'ref':>7s} "
          f"{'ratio':>6s} {'cpu ms this':>12s} {'ref':>7s} {'ratio':>6s}", flush=True)
    turn = 0
    for f in files(args):
        n = count(f) if not args.limit else min(args.limit, count(f))
        got: dict[str, list[dict]] = {"this": [], "ref": []}
        for i in range(n):
            order = ["this", "ref"] if turn % 2 == 0 else ["ref", "this"]
            turn += 1
            for name in order:
                got[name].append(ask(workers[name], f, i))
        med = {(name, k): 1e3 * statistics.median(r[k] for r in rows)
               for name, rows in got.items() for k in ("wall", "cpu")}
        solved = "/".join(str(sum(r["ok"] for r in got[name])) for name in ("this", "ref"))
        print(f"{f.parent.name + '/' + f.stem:28s} {n:5d} {solved:>16s} "
              f"{med['this', 'wall']:13.2f} {med['ref', 'wall']:7.2f} "
              f"{med['this', 'wall'] / med['ref', 'wall']:6.2f} "
              f"{med['this', 'cpu']:12.2f} {med['ref', 'cpu']:7.2f} "
              f"{med['this', 'cpu'] / med['ref', 'cpu']:6.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at end")
    for proc in workers.values():
        proc.stdin.close()
        proc.wait()


if __name__ == "__main__":
    main()
