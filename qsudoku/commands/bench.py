"""``qsudoku bench``: success probability, TTS99, stage times and model size, backends side by side.

    qsudoku bench data/sudoku9/magictour_top1465.txt --first 20 --sampler solve,sa,tabu \\
        --reads 100 --time-budget 1 --jobs 2 -o top.csv --plot figs/

With no ``--sampler`` (or ``solve``) each row is what ``qsudoku solve`` does; a registry
name takes a fixed sample of the reduced QUBO with that sampler (``--reads`` reads, no
fallback), or with ``--in-rounds`` runs as ``qsudoku solve --sampler NAME --no-fallback``
within each ``--time-budget``.  Rows are written as they finish (``-o``), the summary next
to them; ``--resume`` continues an interrupted run; ``-o F --plot DIR`` without puzzles
draws the figures of an existing results file.
"""

from __future__ import annotations

import os
import sys
from copy import copy

from qsudoku.io.output import is_stdout
from qsudoku.experiments.bench import SOLVE, format_summary, points, summarize
from qsudoku.errors import BackendUnavailableError, ConfigError, ParameterError, QSudokuError
from qsudoku.commands.common import SecondsListAction, config_from_args
from qsudoku.commands.experiment import (add_experiment_args, check_experiment_args,
                                         experiment_tasks, read_experiment_inputs,
                                         run_experiment, say_wrote)


def register(sub) -> None:
    p = sub.add_parser(
        "bench", help="measure success probability, TTS99 and stage times over puzzle sets",
        description="Run every puzzle of FILE... with each backend and report, per puzzle "
                    "and backend: valid, solved_by, success probability per read with its 95% "
                    "interval, TTS99 = t_read * ln(0.01)/ln(1-p) with its interval, wall and "
                    "per-stage times and model size; then a summary per set (median TTS99 "
                    "with a bootstrap interval; see docs/measurement.md). The backend 'solve' "
                    "(the default) is exactly what 'qsudoku solve' does; a registry name takes "
                    "a fixed sample of --reads reads of the reduced QUBO with that sampler, "
                    "all counted, no fallback; puzzles propagation solves are counted apart. "
                    "Rows go to -o/--output as they finish, the summary to F.summary.csv/.json.")
    g = add_experiment_args(
        p, "benchmark", budget=False,
        sampler="backends to compare, comma-separated: 'solve' (the default: what qsudoku "
                "solve does), registry names (qsudoku samplers) or module:Class for any "
                "importable dimod.Sampler",
        option="a sampler constructor option as a TOML value, e.g. topology=zephyr, or for "
               "one backend only, e.g. decompose.qpu_sampler=mock-qpu (repeatable)",
        param="a sampling parameter, e.g. num_sweeps=5000, or for one sampler only, e.g. "
              "sa.num_sweeps=5000 (repeatable)")
    next(a for a in p._actions if a.dest == "sampler").metavar = "A,B,..."
    g.add_argument("--time-budget", action=SecondsListAction, metavar="S[,S2...]",
                   help="wall seconds per puzzle of the 'solve' backend (several budgets = "
                        "one row each, for success-vs-budget curves); a sampler's row is a "
                        "fixed sample of --reads reads, whatever the budget")
    g.add_argument("--in-rounds", action="store_true",
                   help="run each registry sampler as 'qsudoku solve --sampler NAME "
                        "--no-fallback' does, in rounds within --time-budget (success "
                        "within a fixed time limit, Lewis 2007), not as a fixed sample")
    g.add_argument("--first-of", metavar="NAME=N[,NAME=N...]", type=_first_of,
                   help="backend NAME runs only the first N puzzles of each input (of each "
                        "fraction of a spec's [generate]): fewer instances for a slow "
                        "sampler, the others keep --first")
    g.add_argument("--plot", metavar="DIR", help="write PNG figures of the results to DIR")
    g.add_argument("--pool-sets", action="store_true",
                   help="summarise every input as one set ('all'): each figure over all "
                        "the puzzles of the run (the rows keep their sets)")
    p.set_defaults(run=run)


def _points(args, budgets):
    from qsudoku.experiments import runner

    names = [s.strip() for s in (args.sampler or "").split(",") if s.strip()] or [SOLVE]
    out = []
    for name in dict.fromkeys(names):
        a = copy(args)
        a.sampler = None if name == SOLVE else name
        a.param = _params_for(args.param, name, tuple(names))
        a.option = _params_for(args.option, name, tuple(names))
        try:
            pts = points(config_from_args(a), [name], budgets,
                         in_rounds=bool(getattr(args, "in_rounds", False)))
            runner.check_point(pts[0])  # bad parameters fail now, not once per puzzle
        except BackendUnavailableError as e:
            print(f"qsudoku: note: skipping {name}: {e}", file=sys.stderr)
            continue
        except ParameterError as e:
            hint = _per_sampler_hint(args, names, name)
            if not hint:
                raise
            raise ParameterError(f"{e} {hint}") from None
        out.extend(pts)
    if not out:
        raise BackendUnavailableError("none of the requested backends can run here")
    return out


def _per_sampler_hint(args, names: list[str], name: str) -> str:
    """``(to set it for one sampler only, use --param sa.num_sweeps=100)`` when a plain
    ``--param`` that backend ``name`` rejects is one another backend of the run accepts,
    so that its per-sampler form would have worked ("" if none)."""
    from qsudoku.experiments.measure import plan_for

    def accepted(backend: str) -> frozenset | None:
        a = copy(args)
        a.sampler, a.param = None if backend == SOLVE else backend, []
        try:
            return plan_for(config_from_args(a)).accepted
        except QSudokuError:  # not buildable here: no hint from it
            return None

    mine = accepted(name)
    forms = []
    for item in _params_for(args.param, name, tuple(names)):
        if item not in (args.param or []):  # given as name.KEY=VALUE already
            continue
        key = item.partition("=")[0].strip()
        if mine is None or key in mine:
            continue
        for other in names:
            takes = accepted(other) if other != name else None
            if takes is not None and key in takes:
                forms.append(f"--param {other}.{item.strip()}")
                break
    if not forms:
        return ""
    return f"(to set it for one sampler only, use {' '.join(forms)})"


def _params_for(items: list[str], name: str, run: tuple[str, ...] = ()) -> list[str]:
    """The ``--param`` items for backend ``name``: plain ones, and ``name.KEY=VALUE`` ones
    with the prefix removed (a prefix is a registered name, ``solve`` or one of the run's
    backends ``run``, a ``module:Class`` whose module has dots among them).

    >>> _params_for(["num_reads=3", "sa.num_sweeps=9", "tabu.timeout=5"], "sa")
    ['num_reads=3', 'num_sweeps=9']
    >>> _params_for(["a.b:C.num_reads=3", "sa.seed=1"], "a.b:C", ("a.b:C", "sa"))
    ['num_reads=3']
    """
    from qsudoku.samplers import names

    known = sorted(set(names()) | {SOLVE} | set(run), key=len, reverse=True)
    out = []
    for item in items or []:
        key = item.partition("=")[0]
        prefix = next((k for k in known if key.startswith(k + ".")), None)
        if prefix is None:
            out.append(item)
        elif prefix == name:
            out.append(item[len(prefix) + 1:])
    return out


def _write_curve(summary, file: str) -> tuple[str, ...]:
    """``F.curve.txt`` beside the results ``F.csv`` of generated instances (a summary per
    fraction): :func:`~qsudoku.experiments.bench.format_curve`, the table the docs read;
    nothing for other results."""
    from qsudoku.experiments.bench import format_curve
    from qsudoku.io.output import write_text

    if not any(s.get("fraction") is not None for s in summary):
        return ()
    path = os.path.splitext(file)[0] + ".curve.txt"
    write_text(path, format_curve(summary) + "\n")
    return (path,)


def _first_of(text: str) -> dict[str, int]:
    """``--first-of pt=5,sa=10``: backend -> the puzzles of each input it runs.

    >>> _first_of("pt=5, sa=10")
    {'pt': 5, 'sa': 10}
    >>> _first_of("pt")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'pt' is not NAME=N with N >= 1
    """
    import argparse

    out = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        name, _, n = item.partition("=")
        if not (name.strip() and n.strip().isdigit() and int(n) >= 1):
            raise argparse.ArgumentTypeError(f"{item!r} is not NAME=N with N >= 1")
        out[name.strip()] = int(n)
    return out


def run(args) -> int:
    from qsudoku.experiments.results import check_format

    check_experiment_args(args)
    if is_stdout(args.plot):
        raise ConfigError("--plot needs a directory (it writes several figures), not - "
                          "(standard output)")
    generated = getattr(args, "generate", None) is not None  # a spec's [generate] instances
    if args.out and (args.puzzles or generated):
        check_format(args.out)  # a .parquet output without pyarrow: before any work
    if not (args.puzzles or generated):
        if not (args.plot and args.out):
            raise ConfigError("give puzzle files to run, or -o FILE --plot DIR to draw "
                              "an existing results file")
        if not (os.path.exists(args.out) or os.path.exists(args.out + ".partial.csv")):
            raise ConfigError(f"results file not found: {args.out}")
        return _report(args, [])
    pts = _points(args, args.time_budget or [None])
    tasks = experiment_tasks(args, read_experiment_inputs(args), pts)
    if args.first_of:  # a registered sampler this run leaves out (--sampler) is no error
        from qsudoku.samplers import names

        unknown = sorted(set(args.first_of) - set(names()) - {SOLVE})
        if unknown:
            raise ConfigError(f"--first-of {unknown[0]}: not a backend (solve or a name "
                              "of qsudoku samplers)")
        tasks = (t for t in tasks if t.source.index < args.first_of.get(t.point.label,
                                                                        t.source.index + 1))
    rows = run_experiment(args, tasks, points=pts)
    return _report(args, rows)


def _report(args, rows) -> int:
    """Print the summary of the run (with ``--output``: of the whole file, its rows streamed,
    so the same for every format and never held whole), write it next to ``--output`` and
    draw ``--plot``."""
    from qsudoku.experiments.bench import write_summary
    from qsudoku.experiments.results import iter_rows

    file = None if is_stdout(args.out) else args.out  # --output -: the rows are in ``rows``
    if args.plot:  # the figures need every row
        from qsudoku.experiments.table import read_rows
        from qsudoku.io.output import make_directory

        make_directory(args.plot, "--plot")  # a bad --plot fails before anything is written
        rows = read_rows(file) if file else rows
    summary = summarize(iter_rows(file) if file and not args.plot else rows,
                        pool_sets=args.pool_sets)
    if not args.quiet:
        print(format_summary(summary), file=sys.stdout if file or not args.out else sys.stderr)
    if file:
        say_wrote(args, write_summary(summary, file) + _write_curve(summary, file))
    if args.plot:
        from qsudoku.plots.bench import plot_all

        for path in plot_all(rows, args.plot, summary):
            print(f"wrote {path}", file=sys.stderr)
    return 0
