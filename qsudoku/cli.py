"""The ``qsudoku`` command line: a thin front end over the pipeline.

Each subcommand lives in :mod:`qsudoku.commands` and adds itself with
``register(subparsers)``.  Errors end as one readable line on stderr and an exit
code: 0 solved, 1 no valid sample (or no solution), 2 bad input or config,
3 backend unavailable.  Any other exception is a bug: one line naming it (``internal
error``), exit code 1.  ``--debug`` shows the full traceback instead of the line (the exit
code stays the same).  When the reader of stdout leaves early (``qsudoku solve FILE |
head -1``), a command stops quietly and exits with the code of the results it reached (a
command keeps it in ``args.exit_so_far`` as it goes).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
import traceback

from qsudoku.errors import QSudokuError, exit_code_for

__all__ = ["main", "build_parser", "internal_error_line", "COMMAND_MODULES", "silence_stdout"]

#: Subcommand modules, in the order ``qsudoku --help`` lists them (missing ones are skipped).
COMMAND_MODULES = (
    "solve", "qubo", "samplers_cmd", "embed", "count", "export", "bench", "sweep", "show",
)


def _module_of(command: str) -> str | None:
    """The subcommand module that registers ``command`` (``None`` if no module does)."""
    for name in COMMAND_MODULES:
        if name.removesuffix("_cmd") == command:
            return name
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser.

    Args:
        command: A subcommand's name: only that subcommand is registered, so that running
            it imports no other subcommand's module (some import the exact backends or the
            benchmark tables: 30 ms of a one-puzzle ``solve``).  ``None`` or an unknown
            name: every subcommand (for ``--help`` and argparse's list of choices).

    >>> build_parser("samplers").parse_args(["samplers"]).command
    'samplers'
    """
    from qsudoku import __version__

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
    only = _module_of(command) if command is not None else None
    for name in (only,) if only else COMMAND_MODULES:
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
    argv = sys.argv[1:] if argv is None else list(argv)
    # the subcommand is the first word that is not an option (the global ones take no value)
    parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: usage errors are bad input (2), --help is 0
        return int(e.code or 0)
    try:
        return int(args.run(args) or 0)
    except QSudokuError as e:
        if args.debug:
            traceback.print_exc()
        else:
            print(f"qsudoku: error: {e}", file=sys.stderr)
        return exit_code_for(e)
    except KeyboardInterrupt:
        if not getattr(args, "interrupt_said", False):
            print("qsudoku: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout left (``| head``): nothing more to say
        silence_stdout()
        return int(getattr(args, "exit_so_far", 0))
    except Exception as e:  # a bug: say so, with its real cause, and exit 1
        if args.debug:
            traceback.print_exc()
        else:
            print(f"qsudoku: internal error: {internal_error_line(e)}", file=sys.stderr)
        return 1


def run() -> int:
    """The program (``qsudoku``, ``python -m qsudoku``): :func:`main` on ``sys.argv``, then
    every object is moved to the garbage collector's permanent generation (:func:`gc.freeze`).

    The interpreter's exit then skips its last full collections over the million or so
    objects that numba, dimod and networkx leave behind, a large share of a short run's
    wall time (``docs/performance.md``, "Start-up").  Nothing is lost: outputs are complete and closed by then, ``atexit``
    handlers still run and streams are still flushed; only objects in reference cycles
    keep their finalizers unrun, which Python does not promise at exit anyway.
    """
    code = main()
    gc.freeze()
    return code


def internal_error_line(error: BaseException) -> str:
    """One line for an unexpected exception: its type, message and where it was raised,
    and how to see the full traceback.

    >>> try:
    ...     {}["x"]
    ... except KeyError as e:
    ...     print(internal_error_line(e))  # doctest: +ELLIPSIS
    KeyError: 'x' (at <doctest ...>:2, in <module>); this is a bug in qsudoku or a library it uses: run with --debug for the full traceback
    """
    text = " ".join(str(error).split()) or "(no message)"
    if len(text) > 300:
        text = text[:297] + "..."
    where = ""
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        where = f" (at {os.path.basename(last.filename)}:{last.lineno}, in {last.name})"
    return (f"{type(error).__name__}: {text}{where}; this is a bug in qsudoku or a library "
            "it uses: run with --debug for the full traceback")


def silence_stdout() -> None:
    """Point stdout at ``/dev/null`` after its reader left, so that flushing it at exit
    raises no second ``BrokenPipeError``."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests)
        pass
