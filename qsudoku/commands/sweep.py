"""``qsudoku sweep``: a grid of penalty weights and sampler parameters -> a tidy results table."""

from __future__ import annotations

import sys
from copy import copy

from qsudoku.errors import ConfigError
from qsudoku.experiments.stats import optimal_over_axes
from qsudoku.io.output import is_stdout
from qsudoku.experiments.sweep import SWEEP_SAMPLER, parse_axis, points, summarize
from qsudoku.experiments.tasks import format_value
from qsudoku.commands.common import config_from_args
from qsudoku.commands.experiment import (add_experiment_args, check_experiment_args,
                                         experiment_tasks, read_experiment_inputs,
                                         run_experiment, say_wrote)

EPILOG = """\
axes: one flag per swept key, KEY=start:stop:count (count values spaced geometrically)
or KEY=a,b,c (TOML values, as in a config file: "beta_range=[0.03,3],[1,9]").  Weight
keys: cell, row, column, box, extra, and unit (= row, column, box and extra together);
sampler=sa,tabu compares samplers (each with its registered defaults, plus --reads and
--seed); every other key is a sampling parameter.  Each run is a fixed sample: one
sampler call of --reads reads, all counted, no fallback (the round policy, --time-budget
and --no-route do not apply).  Repeat r runs with seed --seed + r; without --seed each
run draws a seed and its row names it.  The summary (p per read, median TTS99 with 95%
intervals, and the optimal TTS99 over each swept axis) is printed and written next to
--output (F.summary.csv, F.summary.json); see docs/measurement.md.

examples:
  qsudoku sweep PUZZLE --grid cell=0.5:4:8 --grid unit=1 --param num_sweeps=100,1000,10000
  qsudoku sweep puzzles.txt --first 5 --grid cell=1,2 --reads 100 --repeat 3 --jobs 2 \\
      -o sweep.parquet
  qsudoku sweep puzzles.txt --grid cell=1,2 -o sweep.csv --resume   # after an interruption
  qsudoku sweep puzzles.txt --grid cell=1,2 --scheduler tcp://head:8786 -o s.csv
"""


def register(sub) -> None:
    import argparse

    p = sub.add_parser(
        "sweep", help="sweep penalty weights and sampler parameters; one row per run",
        description="Run every puzzle x setting x repeat as a fixed sample of --reads reads "
                    "and record success probability per read, min/mean energy, broken "
                    "constraints by kind, TTS99 (with 95% intervals) and times, one row per "
                    "run, written as each run finishes (-o/--output), on a local or remote Dask "
                    "cluster (--jobs, --scheduler).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = add_experiment_args(
        p, "sweep", param="a sampling parameter or a swept one, e.g. num_sweeps=100,1000 or "
                          "num_sweeps=100:10000:3 (repeatable)",
        sampler=f"registry name (default here: {SWEEP_SAMPLER}; qsudoku samplers lists "
                "them), or module:Class for any importable dimod.Sampler")
    g.add_argument("--grid", action="append", default=[], metavar="KEY=VALUES",
                   help="a swept weight or parameter, e.g. cell=0.5:4:8 or unit=1,2 (repeatable)")
    g.add_argument("--plot", metavar="DIR",
                   help="write p per read and the median TTS99 with their 95%% intervals "
                        "against each swept axis (PNG, tts99_vs_AXIS.png) to DIR")
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
    from qsudoku.experiments import runner
    from qsudoku.experiments.results import check_format

    check_experiment_args(args)
    if not (args.puzzles or getattr(args, "generate", None) is not None):
        raise ConfigError("give puzzles to sweep (PUZZLE arguments or a --spec that names "
                          "or [generate]s them)")
    if args.out:
        check_format(args.out)  # a .parquet output without pyarrow: before any work
    if args.plot:  # no matplotlib, or a --plot that is a file: before any work
        from qsudoku.io.output import make_directory
        from qsudoku.plots.base import need_matplotlib

        need_matplotlib()
        make_directory(args.plot, "--plot")
    axes = _axes(args)
    # the params are swept here, not set by config_from_args; weights only matter to
    # samplers that see the whole QUBO: sweep with plain SA
    unswept = copy(args)
    unswept.param = []
    cfg = config_from_args(unswept, default_sampler=SWEEP_SAMPLER)
    pts = points(cfg, axes)
    for pt in pts:
        runner.check_point(pt)  # a bad weight, parameter or sampler fails before any run
    sources = read_experiment_inputs(args)
    rows = run_experiment(args, experiment_tasks(args, sources, pts), list(axes), points=pts)
    stream = is_stdout(args.out)  # --output -: the rows are in ``rows``, stdout has them
    file = None if stream else args.out  # with a file: all of it, streamed (any format)
    by = list(axes) or ["setting"]
    summary = summarize(file if file else rows, by=by)
    best = optimal_over_axes(summary.to_dict("records"), list(axes))
    if not args.quiet and len(summary):
        shown = [c for c in [*by, "runs", "propagation", "p_read", "p_read_low", "p_read_high",
                             "tts99_median", "tts99_median_low", "tts99_median_high",
                             "residual_energy_median", "min_energy_mean"] if c in summary]
        target = sys.stderr if stream else sys.stdout
        print(summary[shown].to_string(index=False, float_format=lambda x: f"{x:.4g}"),
              file=target)
        for b in best:
            others = " ".join(f"{k}={format_value(b[k])}" for k in axes if k != b["axis"])
            at = f" at {b['axis']}={format_value(b['at'])}" if b["at"] != "" else ""
            print(f"optimal TTS99 over {b['axis']}{' (' + others + ')' if others else ''}: "
                  f"{b['tts99_optimal']:.4g} s [{b['tts99_optimal_low']:.4g}, "
                  f"{b['tts99_optimal_high']:.4g}]{at}", file=target)
    if file:
        from qsudoku.experiments.bench import write_summary

        say_wrote(args, write_summary(summary.to_dict("records"), file, best))
    if args.plot and len(summary):
        say_wrote(args, _plot(summary, list(axes), args.plot))
    return 0


def _plot(summary, axes: list[str], out_dir: str) -> list[str]:
    """``tts99_vs_AXIS.png`` for each axis with several values (the other axes as hue)."""
    import os

    import pandas as pd

    from qsudoku.plots.grid import save_figure
    from qsudoku.plots.sweep import interval_curves

    paths = []
    for axis in axes:
        if summary[axis].astype(str).nunique() < 2:
            continue
        others = [a for a in axes if a != axis]
        d = summary.copy()
        hue = None
        if others:
            hue = " ".join(others)
            d[hue] = d[others].astype(str).agg(" ".join, axis=1)
        numeric = pd.to_numeric(d[axis], errors="coerce")
        logx = bool(numeric.notna().all() and (numeric > 0).all())
        if not numeric.notna().all():
            d[axis] = d[axis].astype(str)
        name = "".join(c if c.isalnum() or c in "_-" else "_" for c in axis)
        fig = interval_curves(d, axis, hue=hue, logx=logx)
        paths.append(save_figure(fig, os.path.join(out_dir, f"tts99_vs_{name}.png")))
    return paths
