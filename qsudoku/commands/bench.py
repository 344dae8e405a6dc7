"""``qsudoku bench``: success probability, TTS99, stage times and model size, backends side by side.

    qsudoku bench shared/data/sudoku9/norvig_top95.txt --sampler sa,tabu --time-budget 1 \\
        --jobs 2 --out top95.csv --plot figs/

Rows are written as they finish (``--out``); an interrupted run keeps them and
``--resume`` continues.  ``qsudoku bench --out top95.csv --plot figs/`` (no
puzzles) draws the figures of an existing results file.
"""

from __future__ import annotations

import json
import os
import re
import sys
from copy import copy

from ..bench import RESUME_KEY, Backend, Task, format_summary, machine_info, run_bench, summarize
from ..errors import BackendUnavailableError, ConfigError, PuzzleFormatError
from ..io.files import iter_puzzles
from ..pipeline import sampler_factory, sampler_params
from .common import add_config_args, add_input_args, config_from_args, rules_from_args


def register(sub) -> None:
    p = sub.add_parser(
        "bench", help="measure success probability, TTS99 and stage times over puzzle sets",
        description="Run every puzzle of FILE... with each --sampler and report, per puzzle "
                    "and backend: valid, success probability per read, TTS99 = t_read * "
                    "ln(0.01)/ln(1-p), wall and per-stage times, model size and route; then a "
                    "summary per set. Rows go to --out as they finish.")
    add_input_args(p)
    add_config_args(p)
    for action in p._actions:
        if action.dest == "puzzles":  # optional here: --plot alone reads --out
            action.nargs = "*"
        elif action.dest == "sampler":
            action.metavar = "A,B,..."
            action.help = "registry names to compare, comma-separated (qsudoku samplers)"
        elif action.dest == "param":
            action.help = ("a sampling parameter, e.g. num_sweeps=5000, or for one sampler "
                           "only, e.g. sa.num_sweeps=5000 (repeatable)")
    g = p.add_argument_group("benchmark")
    g.add_argument("--repeat", type=int, default=1, metavar="R", help="runs per puzzle and backend "
                   "(each with other seeds)")
    g.add_argument("--time-budget", metavar="S[,S2...]",
                   help="wall seconds per puzzle: sample again until used (several budgets = one "
                        "row each, for success-vs-budget curves)")
    g.add_argument("--jobs", type=int, default=1, metavar="J", help="parallel processes")
    g.add_argument("--limit", type=int, metavar="N", help="first N puzzles of each input")
    g.add_argument("--out", metavar="FILE", help="results .csv or .parquet (written row by row)")
    g.add_argument("--resume", action="store_true", help="continue an interrupted --out file")
    g.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    g.add_argument("--plot", metavar="DIR", help="write PNG figures of the results to DIR")
    g.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    p.set_defaults(run=run)


def _positive(value, what: str):
    if value is not None and not value > 0:
        raise ConfigError(f"{what} = {value!r} must be > 0")
    return value


def _budgets(text: str | None) -> list[float | None]:
    if not text:
        return [None]
    out = []
    for part in text.split(","):
        try:
            b = float(part)
        except ValueError:
            raise ConfigError(f"--time-budget {part!r} is not a number of seconds") from None
        _positive(b, "--time-budget")
        out.append(b)
    return out


def set_label(spec: str) -> str:
    """``shared/data/sudoku9/norvig_top95.txt`` -> ``sudoku9/norvig_top95``; literals -> ``args``."""
    if not os.path.isfile(spec):
        return "args"
    parent = os.path.basename(os.path.dirname(os.path.abspath(spec)))
    stem = re.sub(r"\.[^.]+$", "", os.path.basename(spec))
    return f"{parent}/{stem}" if parent else stem


def _backends(args) -> dict[str, Backend]:
    names = [s.strip() for s in (args.sampler or "").split(",") if s.strip()] or [None]
    out = {}
    for name in names:
        a = copy(args)
        a.sampler = name
        a.param = _params_for(args.param, name or config_from_args(a).sampler.name)
        cfg = config_from_args(a)
        try:
            sampler = sampler_factory(cfg)
        except BackendUnavailableError as e:
            print(f"qsudoku: note: skipping {cfg.sampler.name}: {e}", file=sys.stderr)
            continue
        sampler_params(sampler, cfg)  # bad parameters fail now, not once per puzzle
        out[cfg.sampler.name] = Backend(cfg.sampler.name, cfg.sampler.name, cfg)
    if not out:
        raise BackendUnavailableError("none of the requested samplers can run here")
    return out


def _params_for(items: list[str], name: str) -> list[str]:
    """The ``--param`` items for sampler ``name``: plain ones, and ``name.KEY=VALUE`` ones
    with the prefix removed.

    >>> _params_for(["num_reads=3", "sa.num_sweeps=9", "tabu.timeout=5"], "sa")
    ['num_reads=3', 'num_sweeps=9']
    """
    from ..samplers import names

    known = set(names())
    out = []
    for item in items or []:
        key = item.partition("=")[0]
        prefix, dot, rest = key.partition(".")
        if dot and prefix in known:
            if prefix == name:
                out.append(item[len(prefix) + 1:])
        else:
            out.append(item)
    return out


def _tasks(args, backends, budgets) -> list[Task]:
    rules = rules_from_args(args)
    tasks = []
    for spec in args.puzzles:
        label = set_label(spec)
        count = 0
        for index, item in enumerate(iter_puzzles(spec, rules)):
            if args.limit is not None and count >= args.limit:
                break
            if isinstance(item, Exception):
                if args.keep_going:
                    print(f"qsudoku: error: {item}", file=sys.stderr)
                    continue
                raise item
            count += 1
            for repeat in range(args.repeat):
                for name in backends:
                    for budget in budgets:
                        tasks.append(Task(label, index, item, name, budget, repeat))
    return tasks


def run(args) -> int:
    from ..runlog import RowWriter, read_rows

    _positive(args.repeat, "--repeat")
    _positive(args.jobs, "--jobs")
    _positive(args.limit, "--limit")
    if not args.puzzles:
        if not (args.plot and args.out):
            raise ConfigError("give puzzle files to run, or --out FILE --plot DIR to draw "
                              "an existing results file")
        if not (os.path.exists(args.out) or os.path.exists(args.out + ".partial.csv")):
            raise ConfigError(f"results file not found: {args.out}")
        return _report(args, read_rows(args.out))
    if args.resume and not args.out:
        raise ConfigError("--resume needs --out FILE")
    budgets = _budgets(args.time_budget)
    backends = _backends(args)
    tasks = _tasks(args, backends, budgets)
    if not tasks:
        raise PuzzleFormatError("no puzzles to run")
    progress = not args.quiet and sys.stderr.isatty()
    if args.out is None:
        rows = run_bench(tasks, backends, None, jobs=args.jobs, progress=progress)
        return _report(args, rows)
    writer = RowWriter(args.out, RESUME_KEY, resume=args.resume, overwrite=args.overwrite)
    _write_machine(args.out)
    try:
        with writer:
            before = len(writer.done)
            if before and not args.quiet:
                print(f"qsudoku: resuming {args.out}: {before} rows already there",
                      file=sys.stderr)
            run_bench(tasks, backends, writer, jobs=args.jobs, progress=progress)
    except KeyboardInterrupt:
        print(f"qsudoku: interrupted; {len(writer.done)} rows kept in {args.out} "
              "(--resume continues)", file=sys.stderr)
        raise
    return _report(args, read_rows(args.out))


def _write_machine(out: str) -> None:
    with open(out + ".machine.json", "w", encoding="utf-8") as f:
        json.dump(machine_info(), f, indent=1, sort_keys=True)


def _report(args, rows) -> int:
    if not args.quiet:
        print(format_summary(summarize(rows)))
    if args.plot:
        from ..plots_bench import plot_all

        for path in plot_all(rows, args.plot):
            print(f"wrote {path}", file=sys.stderr)
    return 0
