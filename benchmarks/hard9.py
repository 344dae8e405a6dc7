"""The default solve on the hardest shared 9x9 sets, and the structured samplers vs SA.

Three parts (each can be skipped):

1. ``route``: every puzzle of each set (or the first ``--limit``) through
   :func:`qsudoku.solve` (default config) with ``--budget`` seconds and no exact fallback: solved %,
   how many propagation alone solved, median / p95 wall time, mean rounds, and the share
   solved within ``--within`` seconds.
2. ``compare``: on the reduced QUBO (singles) of the first ``--compare`` puzzles per set that
   propagation does not solve, dwave-samplers SA (``--sa-reads`` x ``--sa-sweeps``) and then each
   structured sampler (``swap-tabu``, ``swap``, ``aco``; their registered defaults,
   ``get_spec(name).defaults``, no early stop) for the same wall
   time.  Per-read success (valid reads / reads, pooled; a ``swap-tabu`` read is one tabu walk,
   ending at a ground state or after ``stall`` iterations without a new best), its ratio to
   SA's, and successes per second.
3. ``compile``: the first sampler calls in a fresh process with an empty numba cache
   (compile) and with the cache filled (load).

    python benchmarks/hard9.py                      # everything, all six sets
    python benchmarks/hard9.py --limit 50 --parts route
    python benchmarks/hard9.py --dirs sudoku16,sudoku25 --limit 5 --budget 10 --parts route

Wall times depend on the machine's load: the script prints the load average with its results.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from qsudoku.model.decode import decode
from qsudoku.io import load_puzzles
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.config import DEFAULTS, Config
from qsudoku.samplers import get_sampler, get_spec
from qsudoku.solving import make_plan, run_plan

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SETS = ["norvig_top95", "norvig_hardest", "inkala_named", "forum_hardest_1106",
        "magictour_top1465", "royle_17clue"]
#: The structured samplers compared with SA (each with its registered defaults).
STRUCTURED = ("swap-tabu", "swap", "aco")
#: The propagation rules of the QUBO that is sampled (singles).
RULES = tuple(DEFAULTS["propagate"]["rules"])


def files(args) -> list[Path]:
    if args.dirs:
        out = []
        for d in args.dirs.split(","):
            out += [f for f in sorted((DATA / d).glob("*.txt"))
                    if not f.name.endswith((".ids.txt", ".solutions.txt"))]
        return out
    return [DATA / "sudoku9" / f"{s}.txt" for s in args.sets.split(",")]


def pct(xs, q):
    return float(np.percentile(xs, q)) if xs else float("nan")


def run_route(args, out) -> None:
    print(f"route: budget {args.budget} s, no fallback, seed = puzzle index; "
          f"load average {os.getloadavg()[0]:.1f}", file=out)
    print(f"{'set':28s} {'n':>5s} {'solved':>8s} {'by prop':>8s} {'median s':>9s} {'p95 s':>8s} "
          f"{'max s':>7s} {'rounds':>7s} {f'<= {args.within:g} s':>9s}", file=out, flush=True)
    plan = make_plan(Config().with_overrides(
        route={"time_budget": args.budget, "exact_fallback": ""}))
    plan.warm_up()  # load the compiled kernels once
    for f in files(args):
        puzzles = load_puzzles(str(f))[: args.limit or None]
        times, ok, prop, rounds, within = [], 0, 0, [], 0
        for i, p in enumerate(puzzles):
            t = time.perf_counter()
            r = run_plan(replace(plan, seed=i), p)  # one plan, seed = puzzle index
            dt = time.perf_counter() - t
            ok += r.valid and (p.solution is None or list(r.grid) == list(p.solution))
            prop += r.solved_by == "propagation"
            within += bool(r.valid and dt <= args.within)
            times.append(dt)
            rounds.append(r.rounds)
            if args.verbose and not r.valid:
                print(f"  unsolved: {f.stem} #{i} ({r.num_variables} vars, E {r.energy})", file=out)
        n = len(puzzles)
        print(f"{f.parent.name + '/' + f.stem:28s} {n:5d} {ok / n:8.1%} {prop:8d} "
              f"{statistics.median(times):9.3f} {pct(times, 95):8.3f} {max(times):7.2f} "
              f"{np.mean(rounds):7.2f} {within / n:9.1%}", file=out, flush=True)


def run_compare(args, out) -> None:
    from dwave.samplers import SimulatedAnnealingSampler

    sa = SimulatedAnnealingSampler()
    ours = {name: (get_sampler(name), {k: v for k, v in get_spec(name).defaults.items()
                                       if k != "num_reads"}) for name in STRUCTURED}
    for sampler, _ in ours.values():
        sampler.warm_up()  # load the compiled kernels before any time limit runs
    print(f"\ncompare on the reduced QUBO (rules {', '.join(RULES)}): SA {args.sa_reads} x "
          f"{args.sa_sweeps} sweeps vs, for the same wall time, "
          + "; ".join(f"{n} {p}" for n, (_, p) in ours.items())
          + f" (no early stop); p = valid reads / reads; load average {os.getloadavg()[0]:.1f}",
          file=out)
    cols = ["SA"] + list(ours)
    print(f"{'set':22s} {'n':>3s} {'vars':>5s} "
          + " ".join(f"{c + ' ok/reads':>16s} {'p ' + c:>11s}" for c in cols) + " "
          + " ".join(f"{'x SA ' + c:>14s}" for c in cols[1:]) + " "
          + " ".join(f"{'ok/s ' + c:>14s}" for c in cols), file=out, flush=True)
    tot = np.zeros((len(cols), 3))  # per sampler: valid reads, reads, seconds
    for f in files(args):
        chosen = []
        for p in load_puzzles(str(f)):
            c = propagate(p, RULES)
            if not c.solved:
                chosen.append(build_model(c))
            if len(chosen) == args.compare:
                break
        if not chosen:
            continue
        acc = np.zeros((len(cols), 3))
        for i, m in enumerate(chosen):
            t = time.perf_counter()
            ss = sa.sample(m.bqm, num_reads=args.sa_reads, num_sweeps=args.sa_sweeps, seed=i)
            t_sa = time.perf_counter() - t
            acc[0] += [sum(d.valid for d in decode(m, ss)), len(ss), t_sa]
            for k, (sampler, params) in enumerate(ours.values(), start=1):
                t = time.perf_counter()
                ss = sampler.sample(m.bqm, groups=m.groups(), num_reads=10**7, time_limit=t_sa,
                                    seed=i, **params)
                acc[k] += [sum(d.valid for d in decode(m, ss)), len(ss), time.perf_counter() - t]
        tot += acc
        vars_ = int(np.median([m.num_variables for m in chosen]))
        print_row(f.stem, len(chosen), vars_, acc, out)
    print_row("all", 0, 0, tot, out)


def print_row(name, n, vars_, acc, out) -> None:
    p = acc[:, 0] / acc[:, 1]
    ratios = [pk / p[0] if p[0] else (float("inf") if pk else float("nan")) for pk in p[1:]]
    print(f"{name[:22]:22s} {n:3d} {vars_:5d} "
          + " ".join(f"{f'{a[0]:.0f}/{a[1]:.0f}':>16s} {pk:11.3f}" for a, pk in zip(acc, p)) + " "
          + " ".join(f"{r:14.1f}" for r in ratios) + " "
          + " ".join(f"{a[0] / a[2]:14.2f}" for a in acc), file=out, flush=True)


_FIRST_CALL = """
import time
t = time.perf_counter()
from qsudoku.io import parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.samplers import get_sampler
m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
t1 = time.perf_counter()
s = get_sampler("swap")
s.sample(m.bqm, groups=m.groups(), num_reads=2, num_sweeps=5, seed=1)
s.sample(m.bqm, groups=m.groups(), num_reads=2, num_sweeps=5, num_replicas=2, seed=1)
get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=2, max_iters=5, seed=1)
print(time.perf_counter() - t1)
"""


def run_compile(out) -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        res = []
        for _ in range(2):
            r = subprocess.run([sys.executable, "-c", _FIRST_CALL], env=env, capture_output=True,
                               text=True, check=True)
            res.append(float(r.stdout.strip().splitlines()[-1]))
    print(f"\nfirst sampler calls (swap's anneal + replica kernels, swap-tabu's kernel) in a fresh "
          f"process: "
          f"{res[0]:.2f} s with an empty numba cache (compile), {res[1]:.2f} s with the cache "
          f"filled (load)", file=out, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--dirs", default="", help="whole data dirs instead, e.g. sudoku16,sudoku25")
    ap.add_argument("--limit", type=int, default=0, help="first N puzzles per file (0 = all)")
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--within", type=float, default=0.8,
                    help="also report the share solved within this many seconds")
    ap.add_argument("--compare", type=int, default=10, help="puzzles per set in the comparison")
    ap.add_argument("--sa-reads", type=int, default=20)
    ap.add_argument("--sa-sweeps", type=int, default=10000)
    ap.add_argument("--parts", default="route,compare,compile")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    parts = args.parts.split(",")
    out = sys.stdout
    from qsudoku.experiments.bench import machine_info

    print("machine: " + json.dumps(machine_info()), file=out)
    print("command: python benchmarks/hard9.py " + " ".join(sys.argv[1:]), file=out, flush=True)
    if "route" in parts:
        run_route(args, out)
    if "compare" in parts:
        run_compare(args, out)
    if "compile" in parts:
        run_compile(out)


if __name__ == "__main__":
    main()
