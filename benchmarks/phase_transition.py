"""The sampling rounds across the phase transition of random-fraction grids, 9x9 to 49x49.

Four parts (each can be skipped with ``--parts``):

1. ``lewis``: per size and fixed fraction, the route alone: ``qsudoku bench FILE
   --no-fallback --time-budget B --seed 0 --limit L --jobs J`` (the default solve, its
   sampler and round policy, no exact fallback, ``--budgetN`` seconds per instance) on
   the first ``--limit`` instances of each fraction file, one ``bench`` process (and Dask
   cluster) per file, so that a row's ``peak_rss_mb`` (the ``VmHWM`` of the worker that
   ran it) is that fraction's own.  The files are ``../shared/lewis/sudokuN/lewis_pNN.txt``
   (``--source shared``, 50 instances per fraction up to 25x25, 10 at 36x36 and 49x49) or
   the sets that ship, ``data/generated/sudokuN/fraction_F.txt`` (``--source data``, 5
   per fraction up to 25x25, 3 at 36x36 and 49x49); the default takes ``shared`` when it
   is there.  The instances are not unique: any valid grid that keeps the givens counts.
   Per size and fraction (:func:`phase_table`): n, solved by propagation alone, solved %
   (no fallback), median and p95 time to a valid grid (unsolved = inf), the longest run,
   the median variables after propagation and the peak resident memory (MB).  The rows
   stay beside ``--out`` (``<stem>_<size>.csv``, ``--resume`` continues them).  Beside
   them, dwave-samplers SA on the same reduced QUBO (singles) for the same wall time as
   the route took on that instance (:func:`qsudoku.solve` with ``sampler="sa"``, SA's
   registered defaults, no exact fallback, that time as ``budget``): solved % (``--no-sa``:
   not run).
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

The study at 36x36 and 49x49 (issue 33: at 30-60% given, >= 99% / 95% solved by sampling,
median <= 10 s / 30 s, each <= 30 s / 60 s), every instance of ``../shared/lewis``
(worst case 10 x 21 x (30 + 60) s, about 5 h at 2 workers; ``--resume`` continues an
interrupted run)::

    python benchmarks/phase_transition.py --parts lewis --sizes 36,49 --limit 10 --no-sa \\
        --jobs 2 --worker-memory 3GiB --out benchmarks/results/phase_transition_big.txt \\
        --figure benchmarks/results/figures/phase_transition_big.png

``--fractions 0.3,0.35,0.4,0.45,0.5,0.55,0.6`` keeps it to the band of the criteria.
``--jobs 2`` runs two instances at once, one per core, in single-threaded Dask workers
(each bounded by ``--worker-memory``); a solve that samples on both cores itself is
measured as a user runs it with ``--jobs 1`` (the default: one instance at a time, in the
``bench`` process, as the 16x16 and 25x25 figures were taken).

Wall times depend on the machine's load: the script prints the load average with its results.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from qsudoku import Config, solve
from qsudoku.config import DEFAULTS
from qsudoku.experiments.bench import SOLVE, percentile, typed_row
from qsudoku.experiments.results import iter_rows
from qsudoku.io import load_puzzles
from qsudoku.samplers import get_spec
from qsudoku.solving import make_plan

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"  # --shared DIR overrides it (a worktree elsewhere)
NINE = ["forum_hardest_1106", "norvig_top95", "magictour_top1465"]
#: Seconds per instance of each size (``--budgetN``).
BUDGETS = {9: 1.0, 16: 1.0, 25: 10.0, 36: 30.0, 49: 60.0}


def pct(xs, q):
    return float(np.percentile(xs, q, method="higher")) if len(xs) else float("nan")


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def fraction_files(size: int, source: str = "shared") -> list[tuple[int, Path]]:
    """``(percent given, file)`` of every random-fraction file of ``size``, by percent:
    ``shared/lewis/sudokuN/lewis_pNN.txt`` (``source="shared"``) or the sets that ship,
    ``data/generated/sudokuN/fraction_F.txt`` (``"data"``)."""
    if source == "shared":
        files = (SHARED / "lewis" / f"sudoku{size}").glob("lewis_p*.txt")
        return sorted((int(f.stem.split("_p")[1]), f) for f in files)
    files = (ROOT / "data" / "generated" / f"sudoku{size}").glob("fraction_*.txt")
    return sorted((round(100 * float(f.stem.split("_")[1])), f) for f in files
                  if f.stem.count(".") == 1)  # not the .solutions/.ids companions


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


def set_name(path: Path) -> str:
    """The ``set`` column ``qsudoku bench`` gives the rows of ``path``: ``dir/stem``."""
    return f"{path.parent.name}/{path.stem}"


def rows_path(out: str, size: int) -> Path:
    """The bench rows of ``size`` beside the text results ``out``: ``<stem>_<size>.csv``."""
    return Path(out).with_name(f"{Path(out).stem}_{size}.csv")


def bench_fraction(path: Path, budget: float, rows: Path, args) -> None:
    """``qsudoku bench`` on the first ``--limit`` puzzles of ``path``: the default solve
    with no exact fallback, ``budget`` seconds, seed 0, ``--jobs`` workers; the rows are
    added to ``rows``.  Each file is a fresh process (and cluster), so the rows'
    ``peak_rss_mb`` is the peak of the processes that solved that fraction alone."""
    cmd = [sys.executable, "-m", "qsudoku", "bench", str(path), "--no-fallback",
           "--time-budget", f"{budget:g}", "--seed", "0", "--first", str(args.limit),
           "--jobs", str(args.jobs), "-o", str(rows), "--resume", "--quiet"]
    if args.worker_memory:
        cmd += ["--worker-memory", args.worker_memory]
    subprocess.run(cmd, check=True)


def phase_table(rows: Iterable[Mapping], sets: Mapping[str, tuple[int, int]],
                budgets: Mapping[int, float], limit: int) -> list[dict]:
    """Per size and percent given (``sets``: ``set`` column -> ``(size, percent)``), from
    bench rows of the ``solve`` backend at that size's budget, the first ``limit`` puzzles:

    ``n``; ``propagation`` (solved with no sampling); ``solved`` and ``solved_pct`` (a
    valid grid with no fallback: these rows are run without one); ``median`` and ``p95``
    of the time to a valid grid (an unsolved run counts as ``inf``); ``max`` (the longest
    run, solved or not, whose bound is the budget); ``variables`` (median number of
    variables after propagation); ``peak_mb`` (largest ``peak_rss_mb``: the peak resident
    memory of a process that ran them).  Rows of other sets, budgets or backends are
    left out.

    >>> rows = [{"set": "s/p30", "sampler": "solve", "budget": "1.0", "index": str(i),
    ...          "valid": str(i != 2), "solved_by": "aco (1 round)", "wall": str(0.1 * (i + 1)),
    ...          "num_variables": "40", "peak_rss_mb": str(200 + i)} for i in range(3)]
    >>> (t,) = phase_table(rows, {"s/p30": (9, 30)}, {9: 1.0}, limit=3)
    >>> t["n"], t["solved"], round(t["median"], 2), t["p95"], round(t["max"], 2), t["peak_mb"]
    (3, 2, 0.2, inf, 0.3, 202.0)
    """
    groups: dict[tuple[int, int], list[dict]] = {}
    for r in map(typed_row, rows):
        key = sets.get(str(r.get("set")))
        if (key is None or r.get("sampler") != SOLVE or r.get("budget") != budgets[key[0]]
                or not isinstance(r.get("index"), int) or r["index"] >= limit):
            continue
        groups.setdefault(key, []).append(r)
    table = []
    for (size, percent), rs in sorted(groups.items()):
        solved = [r for r in rs if r.get("valid")]
        times = [r["wall"] if r.get("valid") else math.inf for r in rs]
        peaks = [m for m in (r.get("peak_rss_mb") for r in rs)
                 if isinstance(m, (int, float)) and m == m]  # "" (not told) reads as NaN
        variables = [r["num_variables"] for r in rs if isinstance(r.get("num_variables"), int)]
        table.append({
            "size": size, "percent": percent, "n": len(rs),
            "propagation": sum(r.get("solved_by") == "propagation" for r in rs),
            "solved": len(solved), "solved_pct": 100.0 * len(solved) / len(rs),
            "median": percentile(times, 50), "p95": percentile(times, 95),
            "max": max(r["wall"] for r in rs),
            "variables": statistics.median(variables) if variables else math.nan,
            "peak_mb": max(peaks, default=math.nan)})
    return table


def format_table(table: Sequence[Mapping], sa: Mapping[tuple[int, int], float] = {}) -> str:
    """The table of :func:`phase_table` as text, one line per size and percent given (and
    SA's solved share at the same wall time, where ``sa`` has it)."""
    lines = [f"{'size':>4s} {'fixed':>5s} {'n':>3s} {'prop':>4s} {'solved':>7s} "
             f"{'median s':>9s} {'p95 s':>7s} {'max s':>7s} {'vars':>7s} {'peak MB':>8s} "
             f"{'SA solved':>9s}"]
    for t in table:
        s = sa.get((t["size"], t["percent"]))
        lines.append(f"{t['size']:4d} {t['percent']:4d}% {t['n']:3d} {t['propagation']:4d} "
                     f"{t['solved_pct'] / 100:7.0%} {t['median']:9.3f} {t['p95']:7.3f} "
                     f"{t['max']:7.2f} {t['variables']:7.0f} {t['peak_mb']:8.0f} "
                     f"{('-' if s is None else f'{s:.0%}'):>9s}")
    return "\n".join(lines)


def run_lewis(args, out) -> dict:
    """Per size and fraction: the route alone through ``qsudoku bench`` (one process per
    fraction file), and SA at the same wall time on each instance (``--no-sa``: not)."""
    sets, budgets = {}, {}
    sa_text = (f"SA = dwave-samplers SA ({dict(get_spec('sa').defaults)}) on the same reduced "
               "QUBO for the route's wall time on each instance; " if args.sa else "")
    print(f"lewis: route alone (no fallback) through qsudoku bench --jobs {args.jobs}, one "
          f"process per file, {args.source} instances (first {args.limit} per file), seed 0; "
          f"{sa_text}{load()}", file=out, flush=True)
    sa: dict[tuple[int, int], float] = {}
    for size in args.sizes:
        budgets[size] = getattr(args, f"budget{size}")
        rows = rows_path(args.out, size)
        if not args.resume:
            for stale in rows.parent.glob(rows.stem + ".*"):  # rows, summary, machine record
                stale.unlink()
        for percent, f in fraction_files(size, args.source):
            if args.fractions and percent not in args.fractions:
                continue
            sets[set_name(f)] = (size, percent)
            bench_fraction(f, budgets[size], rows, args)
            if args.sa:
                sa[(size, percent)] = sa_share(f, rows, budgets[size], args.limit)
        print(f"  {size}x{size}: budget {budgets[size]:g} s, rows in {rows}; {load()}",
              file=out, flush=True)
    table = phase_table(itertools.chain.from_iterable(
        iter_rows(str(rows_path(args.out, s))) for s in args.sizes), sets, budgets, args.limit)
    print(format_table(table, sa), file=out, flush=True)
    curves: dict[int, list] = {}
    for t in table:
        curves.setdefault(t["size"], []).append(
            (t["percent"], t["solved_pct"] / 100, t["median"],
             sa.get((t["size"], t["percent"]), float("nan"))))
    return curves


def sa_share(path: Path, rows: Path, budget: float, limit: int) -> float:
    """SA's solved share on the first ``limit`` puzzles of ``path``, each for the wall time
    the route took on it (its row at ``budget`` in ``rows``)."""
    walls = {r["index"]: r["wall"] for r in map(typed_row, iter_rows(str(rows)))
             if r.get("set") == set_name(path) and r.get("budget") == budget}
    puzzles = load_puzzles(str(path))[:limit]
    return sum(sa_for(p, walls.get(i, 0.0), i) for i, p in enumerate(puzzles)) / len(puzzles)


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
    ax2.set(xlabel="fixed cells (%)", ylabel="median time to a valid grid (s)", yscale="log",
            title="median time, route alone (under half solved: not drawn)")
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
    ap.add_argument("--sizes", default="16,25", help="e.g. 9,16,25,36,49")
    ap.add_argument("--fractions", default="",
                    help="fixed fractions, e.g. 0.3,0.35 or percents 30,35 (default: every file)")
    ap.add_argument("--limit", type=int, default=3, help="instances per fraction file")
    for size, budget in BUDGETS.items():
        ap.add_argument(f"--budget{size}", type=float, default=budget,
                        help=f"seconds per {size}x{size} instance (default {budget:g})")
    ap.add_argument("--source", choices=["auto", "shared", "data"], default="auto",
                    help="shared: ../shared/lewis; data: data/generated (the sets that ship); "
                         "auto (default): shared when it is there")
    ap.add_argument("--jobs", type=int, default=1,
                    help="qsudoku bench --jobs: 1 (default): one instance at a time, in the "
                         "bench process; J > 1: a Dask cluster of J single-threaded workers "
                         "per fraction file")
    ap.add_argument("--worker-memory", help="qsudoku bench --worker-memory, e.g. 3GiB "
                    "(default: its own, auto)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the bench rows of an earlier run with the same --out and run "
                         "the rest (default: start afresh)")
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
    args.fractions = {round(100 * float(x)) if "." in x else int(x)
                      for x in args.fractions.split(",") if x}
    if args.source == "auto":
        args.source = "shared" if (SHARED / "lewis").is_dir() else "data"
    parts = set(args.parts.split(","))
    unknown = [s for s in args.sizes if s not in BUDGETS]
    if unknown and "lewis" in parts:
        ap.error(f"--sizes: no budget flag for size {unknown[0]} (sizes: "
                 f"{', '.join(map(str, BUDGETS))})")
    if parts & {"sets", "nine"}:
        for name in (Config().sampler.name, "swap-tabu"):
            make_plan(Config().with_overrides(sampler=name)).warm_up()  # load the kernels once
    with open(args.out, "w") as f:
        out = Tee(sys.stdout, f)
        print(f"command: python benchmarks/phase_transition.py {' '.join(map(str, argv or sys.argv[1:]))}",
              file=out)
        if "lewis" in parts:
            curves = run_lewis(args, out)
            draw(curves, Path(args.figure), f"route alone (no fallback), first {args.limit} "
                 f"instances per fraction ({args.source}); {load()}")
        if "sets" in parts:
            run_sets(args, out)
        if "nine" in parts:
            run_nine(args, out)
        print(f"\ndone; {load()}", file=out, flush=True)


if __name__ == "__main__":
    main()
