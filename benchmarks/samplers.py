"""Every registered offline sampler on the shared 9x9 sets at equal wall budgets.

Reference: dwave-samplers' SimulatedAnnealingSampler with its own defaults (1 read of
1,000 sweeps per call), called again and again within the same budget on the same BQM.
Every other backend uses its registered defaults as batch size (see ``qsudoku samplers``)
and the same budget under solve's one round policy (``qsudoku.solving.run_plan`` with that
budget: rounds until a valid read, batches of at most ``num_reads`` sized to what is left;
samplers with ``time_limit`` get the remaining time).

Puzzles: from each file under shared/data/sudoku9, the ones that still need sampling
after the default propagation (naked + hidden singles), ``--per-set`` of them, evenly
spaced (propagation alone solves the rest, identically for every sampler).

Prints, per budget, each backend's solved share, mean success probability per read, median
TTS99 and median wall, and its ratios to the reference (solved / reference solved,
geometric mean of reference TTS99 / TTS99 over the puzzles both solved).  Rows go to --out (resumable), figures to --plot.

    python benchmarks/samplers.py [--per-set 5] [--budgets 0.3,1] [--jobs 2]
        [--out benchmarks/results/samplers.csv] [--plot benchmarks/results/figures/samplers]
"""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path

from qsudoku.experiments.bench import format_summary, points, summarize, typed_row
from qsudoku.config import Config
from qsudoku.io import load_puzzles
from qsudoku.model.propagate import propagate
from qsudoku.model.result import format_seconds
from qsudoku.experiments.runner import Point, Source, Task
from qsudoku.samplers import get_spec, names

from _recorded import print_machine, run_recorded

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
REFERENCE = "sa (dwave defaults)"
#: dwave-samplers' own defaults for SimulatedAnnealingSampler.sample, spelled out (they
#: override qsudoku's registered defaults for ``sa``).
DWAVE_SA_DEFAULTS = {"num_reads": 1, "num_sweeps": 1000}


def pick(path: Path, per_set: int, rules) -> list[tuple[int, object]]:
    """``per_set`` evenly spaced puzzles of ``path`` that propagation leaves open."""
    open_ = [(i, p) for i, p in enumerate(load_puzzles(str(path)))
             if propagate(p, rules).num_variables > 0]
    if len(open_) <= per_set:
        return open_
    step = len(open_) / per_set
    return [open_[int(k * step)] for k in range(per_set)]


#: Offline but not a sampler to time: the QPU emulator embeds the model onto a mock Pegasus
#: graph and anneals the ~5,000 physical qubits (about 50 s per 9x9 here, no time limit).
SKIP = ("mock-qpu",)


def backends(only: list[str] | None, skip=SKIP) -> dict[str, Config]:
    """Label -> config: each offline sampler with its registered defaults, and the reference."""
    out = {}
    for name in names():
        if get_spec(name).offline and (not only or name in only) and name not in skip:
            out[name] = Config().with_overrides(sampler=name)
    out[REFERENCE] = Config().with_overrides(sampler="sa", params=DWAVE_SA_DEFAULTS)
    return out


def _median(xs):
    xs = sorted(x for x in xs if x == x)
    return statistics.median(xs) if xs else math.nan


def _key(r: dict) -> tuple:
    return (r["set"], r["index"], r.get("repeat", 0))


def ratio_table(rows: list[dict]) -> str:
    """Per budget and backend over all sets, with ratios to the reference.

    ``x ref solved``: puzzles solved / the reference's.  ``x ref TTS99``: geometric mean over
    the puzzles both solved of reference TTS99 / backend TTS99 (> 1 = faster), with their count.
    """
    rows = [typed_row(r) for r in rows]
    out = []
    for budget in sorted({r["budget"] for r in rows}, key=lambda b: (b is None, b)):
        at = [r for r in rows if r["budget"] == budget]
        ref = [r for r in at if r["sampler"] == REFERENCE]
        ref_solved = sum(r["valid"] for r in ref)
        ref_by = {_key(r): r["tts99"] for r in ref}
        out.append(f"\nbudget {budget:g} s per puzzle, {len({(r['set'], r['index']) for r in at})} "
                   f"puzzles")
        out.append(f"{'backend':22s} {'solved':>9s} {'p/read':>7s} {'TTS99 med':>10s} "
                   f"{'wall med':>9s} {'reads med':>9s} {'x ref solved':>12s} {'x ref TTS99 (n)':>15s}"
                   f" errors")
        for name in sorted({r["sampler"] for r in at}, key=lambda s: (s == REFERENCE, s)):
            rs = [r for r in at if r["sampler"] == name]
            solved = sum(r["valid"] for r in rs)
            tts = _median([r["tts99"] for r in rs])
            ps = [r["success_prob"] for r in rs if r["success_prob"] == r["success_prob"]]
            x_solved = f"{solved / ref_solved:.2f}" if ref_solved else ("inf" if solved else "-")
            both = [math.log(ref_by[k] / r["tts99"]) for k, r in
                    ((_key(r), r) for r in rs) if k in ref_by
                    and math.isfinite(ref_by[k]) and math.isfinite(r["tts99"]) and r["tts99"] > 0]
            x_tts = f"{math.exp(statistics.fmean(both)):.2f} ({len(both)})" if both else "-"
            errors = sum(r["status"] != "ok" for r in rs)
            out.append(f"{name:22s} {solved:4d}/{len(rs):<4d} "
                       f"{(statistics.fmean(ps) if ps else math.nan):7.3f} {format_seconds(tts):>10s} "
                       f"{format_seconds(_median([r['wall'] for r in rs])):>9s} "
                       f"{_median([r['num_reads'] for r in rs]):9.0f} {x_solved:>12s} {x_tts:>15s}"
                       f" {errors}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-set", type=int, default=5)
    ap.add_argument("--budgets", default="0.3,1", help="wall seconds per puzzle, comma-separated")
    ap.add_argument("--samplers", help="only these registered samplers (comma-separated)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/results/samplers.csv")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--plot", default="benchmarks/results/figures/samplers")
    args = ap.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    rules = Config().propagate.rules
    bks = backends(args.samplers.split(",") if args.samplers else None)
    print_machine(args.jobs)
    print(f"backends: {', '.join(bks)} (skipped: {', '.join(SKIP)}: the QPU emulator, "
          "which embeds onto a mock Pegasus graph; minutes per set, not a sampler speed)")
    tasks, picked = [], {}
    for f in sorted((DATA / "sudoku9").glob("*.txt")):
        if f.name.endswith((".solutions.txt", ".ids.txt")):
            continue
        chosen = pick(f, args.per_set, rules)
        picked[f"sudoku9/{f.stem}"] = len(chosen)
        for i, p in chosen:
            for b in budgets:
                for name, cfg in bks.items():
                    (pt,) = points(cfg, [cfg.sampler.name], [b])
                    src = Source.file(str(f), i, f"sudoku9/{f.stem}")
                    tasks.append(Task(p, src, Point(name, pt.config, budget=b)))
    print("puzzles that need sampling, per set (of --per-set): "
          + ", ".join(f"{k.split('/')[1]} {v}" for k, v in picked.items()))
    rows = run_recorded(args.out, tasks, jobs=args.jobs, resume=args.resume)
    print(ratio_table(rows))
    print("\nper set:")
    print(format_summary(summarize(rows)))
    if args.plot:
        from qsudoku.plots.bench import plot_all

        print("figures: " + ", ".join(plot_all(rows, args.plot)))


if __name__ == "__main__":
    main()
