"""The sampling rounds across the phase transition of random-fraction 16x16 and 25x25 grids.

Four parts (each can be skipped with ``--parts``):

1. ``lewis``: per size and fixed fraction of ``../shared/lewis`` (the first ``--limit``
   instances of each file; they are not unique, any valid grid counts), the route alone
   (:func:`qsudoku.solve`, default config and sampler, no exact fallback, ``--budget16`` /
   ``--budget25`` seconds, seed = instance index): solved %, median and p95 wall time.  Beside
   it, dwave-samplers SA on the same reduced QUBO (singles) for the same wall time as the route
   took on that instance (:func:`qsudoku.solve` with ``sampler="sa"``, SA's registered
   defaults, no exact fallback, that time as ``budget``): solved %.
2. ``sets``: the route alone on ``sudoku25/gecode`` (``--gecode-budget``) and on
   ``sudoku16/krazydad_4_super_tough`` (the default budget, 0.8 s).
3. ``nine``: the route with ``aco`` and with ``swap-tabu`` side by side (interleaved, the
   order alternating per puzzle) on the first ``--nine`` puzzles of the hardest 9x9 sets:
   median and p95 wall and CPU time of each, and their ratio.
4. The figure: solved % and median time against the fixed fraction, per size, route and SA
   (``--figure``).

    python benchmarks/phase_transition.py                    # a modest run (~15-25 min)
    python benchmarks/phase_transition.py --limit 12 --nine 250 --gecode 12 --tough 400
    python benchmarks/phase_transition.py --parts nine --nine 100
    python benchmarks/phase_transition.py --shared /path/to/shared      # data not beside the repo

Wall times depend on the machine's load: the script prints the load average with its results.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from qsudoku import Config, solve
from qsudoku.config import DEFAULTS
from qsudoku.io import load_puzzles
from qsudoku.samplers import get_spec
from qsudoku.solving import make_plan

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"  # --shared DIR overrides it (a worktree elsewhere)
NINE = ["forum_hardest_1106", "norvig_top95", "magictour_top1465"]


def pct(xs, q):
    return float(np.percentile(xs, q, method="higher")) if len(xs) else float("nan")


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def fraction_files(size: int) -> list[tuple[int, Path]]:
    files = (SHARED / "lewis" / f"sudoku{size}").glob("lewis_p*.txt")
    return sorted((int(f.stem.split("_p")[1]), f) for f in files)


def route_alone(puzzle, budget: float, seed: int, sampler: str | None = None):
    """The default solve's sampling rounds for ``budget`` seconds, no exact fallback."""
    config = Config().with_overrides(sampler=sampler, seed=seed,
                                     route={"time_budget": budget, "exact_fallback": ""})
    return solve(puzzle, config)


def sa_for(puzzle, wall: float, seed: int) -> bool:
    """dwave-samplers SA on the route's reduced QUBO (singles) for ``wall`` seconds: valid?"""
    config = Config().with_overrides(sampler="sa", seed=seed,
                                     rules=DEFAULTS["propagate"]["rules"],
                                     route={"exact_fallback": ""})
    r = solve(puzzle, config, budget=max(wall, 0.05))
    return bool(r.valid and puzzle.is_solution(r.grid))


def run_lewis(args, out) -> dict:
    """Per size and fraction: the route alone, and SA at the same wall time."""
    curves = {}
    print(f"lewis: route alone (no fallback), first {args.limit} instances per file, seed = "
          f"index; SA = dwave-samplers SA ({dict(get_spec('sa').defaults)}) on the same reduced "
          f"QUBO for the route's wall time on each instance; {load()}", file=out, flush=True)
    print(f"{'size':>4s} {'fixed':>5s} {'n':>3s} {'solved':>7s} {'median s':>9s} {'p95 s':>7s} "
          f"{'max s':>7s} {'SA solved':>9s}", file=out, flush=True)
    for size in args.sizes:
        budget = args.budget16 if size == 16 else args.budget25
        rows = []
        for frac, f in fraction_files(size):
            if args.fractions and frac not in args.fractions:
                continue
            puzzles = load_puzzles(str(f))[: args.limit]
            times, ok, sa_ok = [], 0, 0
            for i, p in enumerate(puzzles):
                t = time.perf_counter()
                r = route_alone(p, budget, i)
                dt = time.perf_counter() - t
                good = r.valid and p.is_solution(r.grid)
                ok += good
                times.append(dt if good else float("inf"))
                if args.sa:
                    sa_ok += sa_for(p, dt, i)
            n = len(puzzles)
            finite = [t for t in times if t < float("inf")]
            med = statistics.median(times)
            rows.append((frac, ok / n, med, sa_ok / n if args.sa else float("nan")))
            print(f"{size:4d} {frac:4d}% {n:3d} {ok / n:7.0%} {med:9.3f} {pct(times, 95):7.3f} "
                  f"{max(finite, default=float('nan')):7.2f} "
                  f"{(f'{sa_ok / n:.0%}' if args.sa else '-'):>9s}", file=out, flush=True)
        curves[size] = rows
    return curves


def run_sets(args, out) -> None:
    print(f"\nsets: route alone (no fallback), seed = index; {load()}", file=out, flush=True)
    for rel, budget, limit in (("sudoku25/gecode", args.gecode_budget, args.gecode),
                               ("sudoku16/krazydad_4_super_tough", 0.8, args.tough)):
        puzzles = load_puzzles(str(SHARED / "data" / f"{rel}.txt"))[:limit]
        times, ok = [], 0
        for i, p in enumerate(puzzles):
            t = time.perf_counter()
            r = route_alone(p, budget, i)
            dt = time.perf_counter() - t
            good = r.valid and list(r.grid) == list(p.solution or r.grid)
            ok += good
            times.append(dt if good else float("inf"))
        print(f"{rel:32s} budget {budget:4.1f} s  n {len(puzzles):4d}  solved {ok}/{len(puzzles)}"
              f"  median {statistics.median(times):.3f} s  p95 {pct(times, 95):.3f} s",
              file=out, flush=True)


def run_nine(args, out) -> None:
    """aco and swap-tabu routes side by side on the hardest 9x9 sets."""
    names = ("aco", "swap-tabu")
    print(f"\nnine: the route (2 s, no fallback) with aco vs swap-tabu, interleaved, first "
          f"{args.nine} puzzles per set; {load()}", file=out, flush=True)
    print(f"{'set':20s} {'n':>4s} " + " ".join(f"{n + ' ok':>13s} {'med ms':>7s} {'p95 ms':>7s} "
                                                f"{'cpu ms':>7s}" for n in names)
          + f" {'med aco/st':>10s}", file=out, flush=True)
    for s in NINE:
        puzzles = load_puzzles(str(SHARED / "data" / "sudoku9" / f"{s}.txt"))[: args.nine]
        wall = {n: [] for n in names}
        cpu = {n: [] for n in names}
        ok = {n: 0 for n in names}
        for i, p in enumerate(puzzles):
            for n in names if i % 2 == 0 else names[::-1]:
                t, c = time.perf_counter(), time.process_time()
                r = route_alone(p, 2.0, i, sampler=n)
                wall[n].append(time.perf_counter() - t)
                cpu[n].append(time.process_time() - c)
                ok[n] += r.valid
        med = {n: statistics.median(wall[n]) for n in names}
        print(f"{s[:20]:20s} {len(puzzles):4d} "
              + " ".join(f"{ok[n]:13d} {1e3 * med[n]:7.1f} {1e3 * pct(wall[n], 95):7.1f} "
                         f"{1e3 * statistics.median(cpu[n]):7.1f}" for n in names)
              + f" {med['aco'] / med['swap-tabu']:10.2f}", file=out, flush=True)


def draw(curves: dict, path: Path, title: str) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    for size, rows in curves.items():
        x = [r[0] for r in rows]
        ax1.plot(x, [100 * r[1] for r in rows], "o-", label=f"{size}x{size} route")
        if not np.isnan(rows[0][3]):
            ax1.plot(x, [100 * r[3] for r in rows], "x--", label=f"{size}x{size} SA, same time")
        ax2.plot(x, [r[2] for r in rows], "o-", label=f"{size}x{size} route")
    ax1.set(xlabel="fixed cells (%)", ylabel="solved (%)", ylim=(-5, 105),
            title="solved, route alone vs SA")
    ax2.set(xlabel="fixed cells (%)", ylabel="median wall time (s)", yscale="log",
            title="median time, route alone")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


class Tee:
    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)

    def flush(self):
        for st in self.streams:
            st.flush()


def main(argv=None) -> None:
    global SHARED
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="lewis,sets,nine")
    ap.add_argument("--sizes", default="16,25")
    ap.add_argument("--fractions", default="", help="e.g. 40,45,50 (default: every file)")
    ap.add_argument("--limit", type=int, default=3, help="instances per fraction file")
    ap.add_argument("--budget16", type=float, default=1.0)
    ap.add_argument("--budget25", type=float, default=10.0)
    ap.add_argument("--no-sa", dest="sa", action="store_false")
    ap.add_argument("--gecode", type=int, default=12)
    ap.add_argument("--gecode-budget", type=float, default=20.0)
    ap.add_argument("--tough", type=int, default=50)
    ap.add_argument("--nine", type=int, default=50)
    ap.add_argument("--shared", default=str(SHARED),
                    help="the shared directory (data/, lewis/); default: beside the repository")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "phase_transition.txt"))
    ap.add_argument("--figure", default=str(ROOT / "benchmarks" / "results" / "figures"
                                            / "phase_transition.png"))
    args = ap.parse_args(argv)
    SHARED = Path(args.shared)
    args.sizes = [int(x) for x in args.sizes.split(",") if x]
    args.fractions = {int(x) for x in args.fractions.split(",") if x}
    parts = set(args.parts.split(","))
    for name in (Config().sampler.name, "swap-tabu"):
        make_plan(Config().with_overrides(sampler=name)).warm_up()  # load the kernels once
    with open(args.out, "w") as f:
        out = Tee(sys.stdout, f)
        print(f"command: python benchmarks/phase_transition.py {' '.join(argv or sys.argv[1:])}",
              file=out)
        if "lewis" in parts:
            curves = run_lewis(args, out)
            draw(curves, Path(args.figure), f"route alone (no fallback), first {args.limit} "
                 f"instances per fraction of shared/lewis; {load()}")
        if "sets" in parts:
            run_sets(args, out)
        if "nine" in parts:
            run_nine(args, out)
        print(f"\ndone; {load()}", file=out, flush=True)


if __name__ == "__main__":
    main()
