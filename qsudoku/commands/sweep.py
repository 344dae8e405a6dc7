"""``qsudoku sweep``: a grid of penalty weights and sampler parameters -> a tidy results table."""

from __future__ import annotations

import sys

from ..errors import ConfigError
from ..sweep import load, parse_axis, run_sweep, summarize
from ..sweep import SWEEP_SAMPLER
from .common import add_config_args, add_input_args, config_from_args, iter_inputs

EPILOG = """\
axes: one flag per swept key, KEY=start:stop:count (count values spaced geometrically)
or KEY=a,b,c (Python literals: "beta_range=(0.03,3),(1,9)").  Weight keys: cell, row,
column, box, extra, and unit (= row, column, box and extra together); sampler=sa,tabu
compares samplers (each with its registered defaults, plus --reads and --seed); every
other key is a sampling parameter.  Repeat r runs with seed (--seed or 0) + r.

examples:
  qsudoku sweep PUZZLE --grid cell=0.5:4:8 --grid unit=1 --param num_sweeps=100,1000,10000
  qsudoku sweep puzzles.txt --limit 5 --grid cell=1,2 --reads 100 --repeat 3 --jobs 2 \\
      --out sweep.parquet
  qsudoku sweep puzzles.txt --grid cell=1,2 --out sweep.csv --resume   # after an interruption
"""


def register(sub) -> None:
    import argparse

    p = sub.add_parser(
        "sweep", help="sweep penalty weights and sampler parameters; one row per run",
        description="Run every puzzle x setting x repeat and record success probability, "
                    "min/mean energy, broken constraints by kind, TTS99 and times, one row per "
                    "run, written as each run finishes (--out), in parallel (--jobs).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_args(p)
    add_config_args(p)
    for action in p._actions:  # --param of a sweep takes lists and ranges too
        if action.dest == "param":
            action.help = ("a sampling parameter or a swept one, e.g. num_sweeps=100,1000 or "
                           "num_sweeps=100:10000:3 (repeatable)")
    g = p.add_argument_group("sweep")
    g.add_argument("--grid", action="append", default=[], metavar="KEY=VALUES",
                   help="a swept weight or parameter, e.g. cell=0.5:4:8 or unit=1,2 (repeatable)")
    g.add_argument("--repeat", type=int, default=1, metavar="R",
                   help="runs per puzzle and setting (seeds: base seed + repeat)")
    g.add_argument("--jobs", type=int, default=1, metavar="J",
                   help="worker processes (0 = one per CPU)")
    g.add_argument("--limit", type=int, metavar="K", help="only the first K puzzles")
    g.add_argument("--out", metavar="FILE", help="results table, .csv or .parquet, written "
                                                "row by row")
    g.add_argument("--resume", action="store_true", help="keep the rows --out has, run the rest")
    g.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def _axes(args) -> dict:
    axes: dict = {}
    for spec in list(args.grid) + list(args.param):
        key, values = parse_axis(spec)
        if key in axes:
            raise ConfigError(f"{key} is swept twice; give one --grid/--param {key}=...")
        axes[key] = values
    return axes


def run(args) -> int:
    axes = _axes(args)
    params = args.param
    args.param = []  # swept here, not by config_from_args
    try:
        cfg = config_from_args(args)
        if args.sampler is None and args.config is None:
            # weights only matter to samplers that see the whole QUBO: sweep with plain SA
            cfg = cfg.with_overrides(sampler=SWEEP_SAMPLER)
    finally:
        args.param = params
    if args.resume and not args.out:
        raise ConfigError("--resume needs --out FILE")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit {args.limit} must be >= 1")
    puzzles = []
    for p in iter_inputs(args, lambda e: print(f"qsudoku: error: {e}", file=sys.stderr)):
        puzzles.append(p)
        if args.limit and len(puzzles) >= args.limit:
            break
    rows = run_sweep(puzzles, axes, cfg, repeat=args.repeat, jobs=args.jobs, out=args.out,
                     resume=args.resume, overwrite=args.overwrite,
                     progress=not args.no_progress and sys.stderr.isatty())
    df = load(args.out) if args.out else load(rows)
    if len(df):
        print(summarize(df).to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    if args.out:
        print(f"{len(rows)} new rows, {len(df)} in {args.out}", file=sys.stderr)
    return 0
