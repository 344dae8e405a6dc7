"""The sampling rounds alone on hard 25x25 puzzles, with chosen ``aco`` settings side by side.

Per puzzle (seed = index): solved or not, wall time, and the lowest energy of the rounds'
reads (4 per empty cell: the cell's group and its three units' digit groups), so that a
setting that gets closer shows even when none solves.  ``--set KEY=VALUE`` overrides the
``aco`` sampler's registered defaults (``qsudoku.samplers.get_spec("aco").defaults``);
``--alt KEY=VALUE`` adds a
second setting (the first one plus these), run on each puzzle right after the first, so
that both see the same load.  The default file is ``data/sudoku25/gecode.txt`` of the shared
directory (12 unique puzzles); ``--file`` takes another one relative to it.

    python benchmarks/gecode25.py                               # aco's defaults
    python benchmarks/gecode25.py --set refute=false
    python benchmarks/gecode25.py --file lewis/sudoku25/lewis_p45.txt --first 20 \\
        --budget 10 --alt refute=false
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import time
from pathlib import Path

from qsudoku import Config, solve
from qsudoku.io import load_puzzles
from qsudoku.samplers import get_spec

ROOT = Path(__file__).resolve().parents[1]


def value(text: str):
    """A ``--set`` value: a Python literal, else the text itself.

    >>> value("5"), value("fewest"), value("0.5")
    (5, 'fewest', 0.5)
    """
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def settings(pairs: list[str], base: dict) -> dict:
    """``base`` updated with ``KEY=VALUE`` pairs."""
    out = dict(base)
    for kv in pairs:
        key, _, text = kv.partition("=")
        out[key] = value(text)
    return out


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--file", default="data/sudoku25/gecode.txt",
                    help="puzzle file, relative to --shared")
    ap.add_argument("--first", type=int, default=12, help="puzzles (from the first)")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per puzzle")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an aco parameter (default: its registered defaults)")
    ap.add_argument("--alt", action="append", default=[], metavar="KEY=VALUE",
                    help="a second setting: the first plus this parameter")
    ap.add_argument("--seeds", type=int, default=1,
                    help="runs per puzzle, seeds index, index + 1000, index + 2000, ...")
    args = ap.parse_args()
    runs = [settings(args.set, get_spec("aco").defaults)]
    if args.alt:
        runs.append(settings(args.alt, runs[0]))
    puzzles = load_puzzles(str(args.shared / args.file))[: args.first]
    print(f"{args.file}, sampling rounds alone (no fallback), budget {args.budget} s, "
          f"seed = index (+ 1000 per further run: {args.seeds} per puzzle); {load()}")
    for k, params in enumerate(runs):
        print(f"  setting {k}: aco {params}")
    times = [[] for _ in runs]
    jobs = [(i, p, i + 1000 * run) for run in range(args.seeds) for i, p in enumerate(puzzles)]
    for i, p, seed in jobs:
        row = []
        for k, params in enumerate(runs):
            t = time.perf_counter()
            config = Config().with_overrides(
                sampler="aco", seed=seed, params=params,
                route={"time_budget": args.budget, "exact_fallback": ""})
            r = solve(p, config)
            dt = time.perf_counter() - t
            ok = r.valid and p.is_solution(r.grid)
            times[k].append(dt if ok else float("inf"))
            e = min(r.sampleset.record.energy) if r.sampleset is not None else 0.0
            row.append(f"{'solved' if ok else 'unsolved':8s} {dt:7.3f} s  energy {e:3g}")
        print(f"{i:3d} {seed:5d}  " + "  |  ".join(row), flush=True)
    for k, ts in enumerate(times):
        ok = sum(t < float("inf") for t in ts)
        print(f"setting {k}: solved {ok}/{len(ts)}, median {statistics.median(ts):.3f} s, "
              f"max solved {max((t for t in ts if t < float('inf')), default=float('nan')):.2f} s")
    print(load(), flush=True)


if __name__ == "__main__":
    main()
