"""End to end: the default ``solve`` (``qsudoku.solve`` with the default config,
whatever route it takes) over every shared set.

Large sets are subsampled: at most ``--per-set`` puzzles per file, evenly spaced (all of a
smaller file); the output says how many of each file ran.  Prints per set: puzzles, share
solved, share solved by propagation alone, median and 95th percentile wall, median model
size, and where the time goes (share of the summed wall spent in propagate / build /
sample / the rest: decode, the exact fallback, loading the compiled kernels), and which
route finished each puzzle: propagation alone, the route's sampler (``aco (N rounds)``), or
the exact fallback.

    python benchmarks/end_to_end.py [--per-set 12] [--jobs 1]
        [--out benchmarks/results/end_to_end.csv] [--plot benchmarks/results/figures/end_to_end]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from qsudoku.experiments.bench import points, summarize, typed_row
from qsudoku.config import Config
from qsudoku.io import load_puzzles
from qsudoku.model.result import format_seconds
from qsudoku.experiments.runner import Source, Task

from _recorded import print_machine, run_recorded

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
STAGES = ("t_propagate", "t_build", "t_sample")


def puzzle_files() -> list[Path]:
    return [f for f in sorted(DATA.glob("*/*.txt")) + [DATA / "seeds" / "seeds.tsv"]
            if not f.name.endswith((".solutions.txt", ".ids.txt")) and f.exists()]


def evenly(items: list, k: int) -> list:
    if len(items) <= k:
        return items
    step = len(items) / k
    return [items[int(j * step)] for j in range(k)]


def table(rows: list[dict], counts: dict[str, tuple[int, int]]) -> str:
    rows = [typed_row(r) for r in rows]
    summary = {s["set"]: s for s in summarize(rows)}
    head = (f"{'set':32s} {'ran/of':>9s} {'solved':>7s} {'prop':>6s} {'sample':>6s} "
            f"{'fallbk':>6s} {'wall med':>9s} {'wall p95':>9s} {'vars med':>8s}  "
            "time share prop/build/sample/rest")
    out = [head, "-" * len(head)]
    for name in sorted(summary):
        rs = [r for r in rows if r["set"] == name]
        s = summary[name]
        total = sum(r["wall"] for r in rs) or 1.0
        parts = [sum(r[k] for r in rs if r[k] == r[k]) for k in STAGES]
        shares = "/".join(f"{100 * x / total:.0f}%" for x in parts + [total - sum(parts)])
        ran, of = counts.get(name, (len(rs), len(rs)))
        prop = sum(r["route"] == "propagation" for r in rs) / len(rs)
        ann = sum(_by_sampling(r) for r in rs) / len(rs)
        fb = sum(r["route"] == "fallback" for r in rs) / len(rs)
        out.append(f"{name:32s} {ran:4d}/{of:<4d} {s['solved_pct']:6.1f}% {100 * prop:5.0f}% "
                   f"{100 * ann:5.0f}% {100 * fb:5.0f}% "
                   f"{format_seconds(s['wall_median']):>9s} {format_seconds(s['wall_p95']):>9s} "
                   f"{statistics.median(r['num_variables'] for r in rs):8.0f}  {shares}")
    allr = rows
    solved = sum(r["valid"] for r in allr)
    out.append(f"\nall: {solved}/{len(allr)} solved ({100 * solved / len(allr):.1f}%), "
               f"{sum(r['route'] == 'propagation' for r in allr)} by propagation alone, "
               f"{sum(_by_sampling(r) for r in allr)} by the route's sampler, "
               f"{sum(r['route'] == 'fallback' for r in allr)} by the exact fallback; "
               f"wall median {format_seconds(statistics.median(r['wall'] for r in allr))}")
    return "\n".join(out)


def _by_sampling(row: dict) -> bool:
    """Finished by the route's sampler (``aco (N rounds)``), not propagation or fallback."""
    return row["route"] == "sampling" and row["valid"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-set", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes; each solve already samples on every core, so > 1 slows each")
    ap.add_argument("--out", default="benchmarks/results/end_to_end.csv")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--plot", default="benchmarks/results/figures/end_to_end")
    args = ap.parse_args()
    print_machine(args.jobs)
    cfg = Config()
    print(f"measured: qsudoku.solve(puzzle, Config()); config rules "
          f"{list(cfg.propagate.rules)}, sampler {cfg.sampler.name} (registered defaults)")
    (point,) = points(cfg, ["solve"], [None])
    tasks, counts = [], {}
    for f in puzzle_files():
        label = f"{f.parent.name}/{f.stem}"
        puzzles = list(enumerate(load_puzzles(str(f))))
        chosen = evenly(puzzles, args.per_set)
        counts[label] = (len(chosen), len(puzzles))
        tasks += [Task(p, Source.file(str(f), i, label), point) for i, p in chosen]
    sub = [f"{k} {a}/{b}" for k, (a, b) in counts.items() if a < b]
    print(f"subsampled (evenly spaced, at most {args.per_set} per file): " + ", ".join(sub))
    rows = run_recorded(args.out, tasks, jobs=args.jobs, resume=args.resume)
    print()
    print(table(rows, counts))
    if args.plot:
        from qsudoku.plots.bench import plot_all

        print("figures: " + ", ".join(plot_all(rows, args.plot)))


if __name__ == "__main__":
    main()
