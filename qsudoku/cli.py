"""The ``qsudoku`` command line: a thin front end over the pipeline.

Each subcommand lives in :mod:`qsudoku.commands` and adds itself with
``register(subparsers)``.  Errors end as one readable line on stderr and an exit
code: 0 solved, 1 no valid sample (or no solution), 2 bad input or config,
3 backend unavailable.  ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .errors import QSudokuError, exit_code_for

__all__ = ["main", "build_parser", "COMMAND_MODULES"]

#: Subcommand modules, in the order ``qsudoku --help`` lists them (missing ones are skipped).
COMMAND_MODULES = (
    "solve", "qubo", "samplers_cmd", "embed", "count", "export", "bench", "sweep", "show",
)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="qsudoku",
        description="Solve Sudoku and its relatives as a QUBO: propagate, build the reduced "
                    "model, sample it (by default the annealing route: the aco sampler, "
                    "then an exact fallback; or simulated annealing, a D-Wave QPU, ...), "
                    "validate.")
    parser.add_argument("--version", action="version", version=f"qsudoku {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(f"qsudoku.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"qsudoku.commands.{name}":
                raise
            continue
        mod.register(sub)
    return parser


def main(argv=None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: usage errors are bad input (2), --help is 0
        return int(e.code or 0)
    try:
        return int(args.run(args) or 0)
    except QSudokuError as e:
        if args.debug:
            raise
        print(f"qsudoku: error: {e}", file=sys.stderr)
        return exit_code_for(e)
    except KeyboardInterrupt:
        print("qsudoku: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
