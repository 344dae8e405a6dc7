"""Options and steps that ``bench`` and ``sweep`` share: repeats, limits, output, resume,
where the tasks run, and the run itself through :mod:`qsudoku.experiments`."""

from __future__ import annotations

import argparse
import os
import sys

from qsudoku.commands.common import (add_config_args, add_input_args, add_option,
                                     add_route_args, check_writes, command_inputs,
                                     rules_from_args, say_error)
from qsudoku.commands.spec import SpecAction, apply_spec, option_name
from qsudoku.config import load_config, need_worker_memory
from qsudoku.errors import ConfigError, PuzzleFormatError, QSudokuError
from qsudoku.experiments.bench import summary_paths
from qsudoku.experiments.limits import check_limits
from qsudoku.experiments.provenance import provenance_path
from qsudoku.experiments.results import journal_path
from qsudoku.experiments.scheduler import check_waits, resolve_scheduler
from qsudoku.io.output import is_stdout

__all__ = ["add_experiment_args", "say_wrote", "check_experiment_args", "run_experiment",
           "read_experiment_inputs", "set_label", "experiment_tasks"]


def add_experiment_args(p: argparse.ArgumentParser, what: str, budget: bool = True,
                        **helps: str) -> argparse._ArgumentGroup:
    """The arguments ``bench`` and ``sweep`` share: ``PUZZLE`` (optional: a ``--spec`` or
    ``--plot`` may do without), the rules, configuration and round flags (``budget``: see
    :func:`~qsudoku.commands.common.add_route_args`), with ``helps`` the help text of this
    command for options named by ``dest``; then the group ``what`` of repeats, limits,
    output, resume, where the tasks run and ``--spec`` (:mod:`qsudoku.commands.spec`)."""
    add_input_args(p)
    add_config_args(p)
    add_route_args(p, budget=budget)
    for action in p._actions:
        if action.dest == "puzzles":
            action.nargs = "*"
        elif action.dest in helps:
            action.help = helps[action.dest]
    g = p.add_argument_group(what)
    g.add_argument("--spec", action=SpecAction, metavar="FILE",
                   help="a study spec (TOML: its puzzles and flags, e.g. "
                        "benchmarks/studies/hard9.toml); flags given here win")
    g.add_argument("--repeat", type=int, default=1, metavar="R",
                   help="runs per puzzle and setting; repeat r uses seed (--seed or 0) + r")
    add_option(g, "--first", type=int, metavar="N", dest="limit", old=("--limit",),
               help="only the first N puzzles of each input")
    g.add_argument("--jobs", type=int, default=1, metavar="J",
                   help="1: run in this process (default); J > 1: a local Dask cluster of J "
                        "single-threaded worker processes; 0: one per CPU")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="send the tasks to an existing Dask cluster, e.g. tcp://host:8786 "
                        "(default: $QSUDOKU_SCHEDULER; see docs/cluster.md)")
    g.add_argument("--worker-memory", metavar="SIZE",
                   help="memory limit of each local worker (--jobs > 1), e.g. 2GiB; auto "
                        "(default, [cluster] worker_memory) shares the machine's memory; 0 = none")
    add_option(g, "-o", "--output", metavar="FILE", dest="out", old=("--out",),
               help="results .csv or .parquet, written row by row; - streams CSV rows to "
                    "standard output (the summary goes to stderr)")
    g.add_argument("--resume", action="store_true", help="keep the rows --output has, run the rest")
    g.add_argument("--overwrite", action="store_true", help="replace an existing --output")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    return g


def say_wrote(args, paths) -> None:
    """``wrote PATH`` on stderr for each of ``paths``, unless ``--quiet``."""
    for path in paths:
        if not args.quiet:
            print(f"wrote {path}", file=sys.stderr)


def check_experiment_args(args) -> None:
    """Merge ``--spec``; counts must be positive and bounded (the limits of
    :func:`qsudoku.experiments.runner.check_limits`), ``--resume`` needs ``--output``."""
    apply_spec(args)  # a --spec fills what the command line left unset
    if args.limit is not None and args.limit < 1:  # a value of the spec is named so
        raise ConfigError(f"{option_name(args, 'limit', '--first', ' =')} {args.limit} "
                          "must be >= 1")
    if args.worker_memory is not None:
        args.worker_memory = need_worker_memory(
            option_name(args, "worker_memory", "--worker-memory"), args.worker_memory)
    remote = resolve_scheduler(args.scheduler) is not None  # then --jobs is unused
    if remote:  # a bad wait is said before any file is opened
        check_waits()
    check_limits(repeat=args.repeat, jobs=args.jobs, remote=remote,
                 names={"repeat": option_name(args, "repeat", "--repeat", " ="),
                        "jobs": option_name(args, "jobs", "--jobs", " =")})
    if args.resume and not args.out:
        raise ConfigError(f"{option_name(args, 'resume', '--resume')} needs -o FILE")
    if args.out and not is_stdout(args.out):  # standard output is no file
        _check_not_input(args, args.out)
    if args.resume and args.overwrite:
        raise ConfigError("--resume and --overwrite exclude each other")


def _check_not_input(args, out: str) -> None:
    """Refuse an ``--output`` (or its journal, summaries, records) that is also a file the
    run reads (:func:`~qsudoku.commands.common.command_inputs`), under any name."""
    # the results, their journal and the two summaries: all checked before any is written
    check_writes(args, list(dict.fromkeys((out, journal_path(out), *summary_paths(out)))))
    # the records: not regular files are skipped with a warning, inputs refused
    for record in (out + ".machine.json", provenance_path(out)):
        for p in command_inputs(args):
            if os.path.exists(p) and os.path.exists(record) and os.path.samefile(p, record):
                raise ConfigError(f"-o {out}: {record} is also an input of this run "
                                  f"({p}); write the results to another file")


def experiment_tasks(args, sources, points):
    """Every source x point x ``--repeat``, made as the run consumes them (the puzzles
    stream); more than :data:`~qsudoku.experiments.limits.MAX_TASKS` runs per puzzle are
    refused before any work."""
    from qsudoku.experiments.tasks import iter_tasks

    check_limits(repeat=args.repeat, points=len(points), jobs=0,
                 names={"repeat": "--repeat", "jobs": "--jobs"})
    return iter_tasks(sources, points, args.repeat)


def run_experiment(args, tasks, axis_keys=(), points=None) -> list[dict]:
    """Run ``tasks`` as the flags say; returns the new rows (none with ``--output FILE``).

    ``<out>.machine.json`` and ``F.provenance.json`` are written once the output is held
    (a refused run changes nothing), and the record updated when the run ends, is
    interrupted or fails.
    """
    from qsudoku.experiments import runner

    progress = not (args.quiet or args.no_progress) and sys.stderr.isatty()

    def note(text: str) -> None:
        if not args.quiet:
            print(f"qsudoku: {text}", file=sys.stderr)

    cluster = load_config(args.config).cluster
    scheduler = resolve_scheduler(args.scheduler) or cluster.scheduler
    memory = cluster.worker_memory if args.worker_memory is None else args.worker_memory
    count = [0, 0, None, 0.0]  # new rows, errors, the first error row, peak memory (MB)

    def seen(row: dict) -> None:
        count[0] += 1
        if isinstance(row.get("peak_rss_mb"), (int, float)):
            count[3] = max(count[3], row["peak_rss_mb"])
        if row.get("status") == "error":
            count[1] += 1
            count[2] = count[2] or row

    if getattr(args, "generate", None) is not None:  # the rows say each instance's fraction
        axis_keys = [*axis_keys, "fraction"]
    file = None if is_stdout(args.out) else args.out  # standard output keeps no file
    record: list[dict] = []  # the provenance record, once the output is held
    try:
        rows = runner.run_to(args.out, tasks, axis_keys, resume=args.resume,
                             overwrite=args.overwrite, jobs=args.jobs, scheduler=scheduler or None,
                             worker_memory=memory,
                             progress=progress, on_start=note, points=points,
                             keep=not file, on_row=seen,
                             on_open=(lambda: record.append(_start_records(args, file)))
                             if file else None)
    except KeyboardInterrupt:
        if file:
            _end_record(file, record, "interrupted")
            print(f"qsudoku: interrupted; finished rows kept in {args.out} "
                  "(--resume continues)", file=sys.stderr)
            args.interrupt_said = True
        raise
    except QSudokuError:
        if file:
            _end_record(file, record, "failed", quiet=True)
        raise
    if file:
        from qsudoku.experiments.results import count_rows

        _end_record(file, record, "finished")
        note(f"{count[0]} new rows, {count_rows(args.out)} in {args.out}")
    if count[3]:
        note(f"peak memory of a process that ran tasks: {count[3]:.0f} MB (column peak_rss_mb)")
    if count[1]:
        bad = count[2]
        print(f"qsudoku: warning: {count[1]} of {count[0]} runs ended in an error, e.g. "
              f"{bad['sampler']} on {bad['puzzle']}: {bad['error']}", file=sys.stderr)
    return rows


def _start_records(args, out: str) -> dict:
    """Write ``<out>.machine.json`` and the provenance record of a run that starts; returns
    the record (its end is written by :func:`_end_record`)."""
    from qsudoku.experiments.bench import machine_info
    from qsudoku.experiments.provenance import start_record

    spec = getattr(args, "spec", None)
    record = start_record(getattr(args, "argv", None) or [], spec[0] if spec else None)
    _write_json(out + ".machine.json", machine_info(), "machine record")
    _write_json(provenance_path(out), record, "provenance record")
    return record


def _end_record(out: str, record: list[dict], status: str, quiet: bool = False) -> None:
    """Update the provenance record of ``out`` (if the run started one) with its end;
    ``quiet``: a refused write is not raised (the run's own error is the one to say)."""
    from qsudoku.errors import MachineError
    from qsudoku.experiments.provenance import end_record

    if not record:
        return
    try:
        _write_json(provenance_path(out), end_record(record[0], status), "provenance record")
    except MachineError:
        if not quiet:
            raise


def _write_json(path: str, doc: dict, what: str) -> None:
    """Write the JSON record ``doc`` at ``path``; a FIFO, device or directory there is left
    alone with a warning.

    Raises:
        MachineError: The machine refused the write (disk full, file too large).
    """
    import json
    import stat

    from qsudoku.errors import MachineError
    from qsudoku.io.failures import file_kind
    from qsudoku.io.output import write_text

    try:  # an optional companion: a FIFO, device or directory there is left alone
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        print(f"qsudoku: warning: {path} is {file_kind(mode)}, not a regular file; the "
              f"{what} is not written", file=sys.stderr)
        return
    try:
        write_text(path, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    except OSError as e:
        from qsudoku.experiments.table import machine_error

        raise machine_error(path, e) from None
    except MachineError:
        raise
    except ConfigError as e:  # the system's refusal, said in one line by write_text
        raise MachineError(str(e)) from None


def set_label(spec: str) -> str:
    """``shared/data/sudoku9/norvig_top95.txt`` -> ``sudoku9/norvig_top95``; arguments and
    stdin -> ``args``.

    >>> set_label("1..." "..2." "...." "...4")
    'args'
    """
    import re

    if spec == "-" or not os.path.isfile(spec):
        return "args"
    parent = os.path.basename(os.path.dirname(os.path.abspath(spec)))
    stem = re.sub(r"\.[^.]+$", "", os.path.basename(spec))
    return f"{parent}/{stem}" if parent else stem


def read_experiment_inputs(args):
    """``(Source, Puzzle)`` of every ``PUZZLE`` argument (the first ``--first N`` of each),
    read as the run needs them; unreadable ones are errors, or with ``--keep-going``
    reported and skipped.  A spec's ``[generate]`` table makes them instead.

    Raises:
        PuzzleFormatError: No puzzle at all (found before any work: the first is read
            ahead).
    """
    import itertools

    from qsudoku.experiments.runner import iter_sources

    if getattr(args, "generate", None) is not None:
        from qsudoku.experiments.generated import iter_generated

        return iter_generated(args.generate, limit=args.limit)

    sources = iter_sources(args.puzzles, rules_from_args(args), limit=args.limit,
                           on_error=say_error if args.keep_going else None, label=set_label)
    first = next(sources, None)
    if first is None:
        raise PuzzleFormatError("no puzzles to run")
    return itertools.chain([first], sources)
