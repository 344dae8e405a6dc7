"""The ``qsudoku`` command line: a thin front end over the pipeline.

Each subcommand lives in :mod:`qsudoku.commands` and adds itself with
``register(subparsers)``.  Errors end as one line on stderr and an exit code: 0 solved,
1 no valid sample (or no solution), 2 bad input or config, 3 backend unavailable, 4 the
machine refused (disk full, file too large, standard output closed or full).  Any other
exception is a bug: one ``internal error`` line, exit 1; ``--debug`` shows the traceback
instead (same exit code).  A reader of stdout that leaves early (``| head -1``) stops a
command quietly with the code of the results it reached (``args.exit_so_far``).  No secret
reaches stderr (:mod:`qsudoku.samplers.redact`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import io
import os
import sys
import traceback

from qsudoku.errors import MachineError, QSudokuError, exit_code_for

__all__ = ["main", "build_parser", "OneLineParser", "internal_error_line", "COMMAND_MODULES", "silence_stdout",
           "GuardedStdout", "show_text", "EXIT_CODES_HELP", "optional_import_error", "OPTIONAL_PACKAGES"]

#: The exit codes, as ``qsudoku --help`` lists them.
EXIT_CODES_HELP = ("exit codes: 0 solved (or done), 1 no valid sample or no solution, "
                   "2 bad input or configuration, 3 backend unavailable (missing extra, "
                   "token or solver), 4 the machine refused (disk full, file too large, "
                   "standard output closed or full), 130 interrupted")

#: Subcommand modules, in the order ``qsudoku --help`` lists them (missing ones are skipped).
COMMAND_MODULES = (
    "solve", "qubo", "samplers_cmd", "embed", "count", "generate", "export", "bench", "sweep",
    "show", "fairness",
)


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` (and every subcommand's) whose usage errors are one line on
    stderr, exit 2, not the usage block.

    >>> OneLineParser(prog="qsudoku solve").error("argument --seed: invalid int value: 'abc'")
    Traceback (most recent call last):
    ...
    SystemExit: 2
    """

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help shows the usage)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser.

    Args:
        command: A subcommand's name: only that subcommand is registered, so that running
            it imports no other subcommand's module.  ``None`` or an unknown name: every
            subcommand (for ``--help`` and argparse's list of choices).

    >>> build_parser("samplers").parse_args(["samplers"]).command
    'samplers'
    """
    from qsudoku import __version__

    parser = OneLineParser(
        prog="qsudoku",
        description="Solve Sudoku and its relatives as a QUBO: propagate, build the reduced "
                    "model, sample it in rounds (by default with the aco sampler, then an exact "
                    "fallback; or simulated annealing, a D-Wave QPU, ...), "
                    "validate.",
        epilog=EXIT_CODES_HELP)
    parser.add_argument("--version", action="version", version=f"qsudoku {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    # the module that registers ``command`` (``samplers_cmd``: ``samplers``), if any
    only = next((n for n in COMMAND_MODULES if n.removesuffix("_cmd") == command), None)
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
    """Run the CLI; returns the exit code.  Everything it writes to stderr is masked
    (:func:`~qsudoku.samplers.redact.masked_stderr`)."""
    from qsudoku.samplers.redact import masked_stderr

    with masked_stderr():
        return _main(argv)


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # the subcommand is the first word that is not an option (the global ones take no value)
    parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
    shown = io.StringIO()
    try:
        with contextlib.redirect_stdout(shown):
            args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: usage errors are bad input (2), --help is 0
        return show_text(shown.getvalue(), int(e.code or 0))
    except QSudokuError as e:  # an option checked as it is parsed (SecondsAction)
        print(f"qsudoku: error: {e}", file=sys.stderr)
        return exit_code_for(e)
    args.argv = argv  # the words as given: a results file's provenance record names them
    guard = GuardedStdout.install()

    try:
        code = int(args.run(args) or 0)
        guard.flush()
        return code
    except KeyboardInterrupt:
        if not getattr(args, "interrupt_said", False):
            print("qsudoku: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout left (``| head``): nothing more to say
        silence_stdout()
        return int(getattr(args, "exit_so_far", 0))
    except Exception as e:
        line, code = _failure(e)
        if args.debug:
            traceback.print_exc()
        else:
            print(f"qsudoku: {line}", file=sys.stderr)
        return code
    finally:
        guard.uninstall()


def _failure(e: Exception) -> tuple[str, int]:
    """The line and exit code of a command's exception: a :class:`QSudokuError`, a missing
    optional package (exit 3) or the machine's refusal (exit 4) is an error; anything
    else is a bug (``internal error``, exit 1)."""
    if isinstance(e, ImportError):
        e = optional_import_error(e) or e
    elif isinstance(e, OSError) and not isinstance(e, QSudokuError):
        from qsudoku.io.failures import MACHINE_ERRNOS, machine_error

        if e.errno in MACHINE_ERRNOS:  # the machine's failure (disk full, ...), not a bug
            e = machine_error(str(e.filename) if e.filename else "an output", e)
    if isinstance(e, QSudokuError):
        return f"error: {e}", exit_code_for(e)
    return f"internal error: {internal_error_line(e)}", 1


def show_text(text: str, code: int = 0) -> int:
    """Write ``text`` (``--help``, ``--version``) to standard output -> the exit code
    (a standard output the machine refuses: exit 4; a reader that left: ``code``)."""
    if not text:
        return code
    guard = GuardedStdout.install()
    try:
        guard.write(text)
        guard.flush()
    except BrokenPipeError:
        silence_stdout()
    except MachineError as e:
        print(f"qsudoku: error: {e}", file=sys.stderr)
        return exit_code_for(e)
    finally:
        guard.uninstall()
    return code


#: Optional packages, the feature that needs each and the extra that installs it.
OPTIONAL_PACKAGES = {
    "matplotlib": ("pictures", "bench"),
    "pyarrow": (".parquet files", "bench"),
    "fastparquet": (".parquet files", "bench"),
    "sympy": ("symbolic models", "bench"),
    "pyqubo": ("pyqubo models", "bench"),
    "dwave": ("D-Wave samplers", "qpu"),
    "minorminer": ("embeddings", "qpu"),
    "hybrid": ("dwave-hybrid samplers", "qpu"),
    "pysat": ("the sat sampler", "classical"),
    "ortools": ("the cpsat sampler", "classical"),
    "highspy": ("the ilp sampler", "classical"),
    "clingo": ("the asp sampler", "classical"),
    "neal": ("the neal sampler", "neal"),
}


def optional_import_error(e: ImportError):
    """The one-line :class:`~qsudoku.errors.BackendUnavailableError` (exit 3) for an
    optional package that is not installed, naming the extra that installs it; ``None``
    for any other import error (a bug).

    >>> print(optional_import_error(ModuleNotFoundError("no", name="matplotlib.figure")))
    pictures need matplotlib, which is not installed: pip install -e ".[bench]" (from the repository's root)
    >>> optional_import_error(ModuleNotFoundError("no", name="qsudoku.nothing")) is None
    True
    """
    from qsudoku.errors import BackendUnavailableError, install_hint

    name = (e.name or "").split(".")[0]
    if not name:  # pandas: "Unable to find a usable engine; tried using: 'pyarrow', ..."
        text = str(e)
        name = next((n for n in OPTIONAL_PACKAGES if f"'{n}'" in text or f"`{n}" in text
                     or f"import {n}" in text.lower()), "")
    if name not in OPTIONAL_PACKAGES:
        return None
    what, extra = OPTIONAL_PACKAGES[name]
    return BackendUnavailableError(f"{what} need {name}, which is not installed: "
                                   f"{install_hint(extra)}")


class GuardedStdout:
    """``sys.stdout`` while a command runs: an ``OSError`` the machine raises, or a standard
    output closed before qsudoku started, becomes a :class:`~qsudoku.errors.MachineError`
    naming standard output; ``BrokenPipeError`` passes through (a quiet stop).

    >>> import io
    >>> out = GuardedStdout(io.StringIO())
    >>> out.write("ok")
    2
    >>> GuardedStdout(None).write("x")
    Traceback (most recent call last):
    ...
    qsudoku.errors.MachineError: cannot write standard output: it is closed (EBADF)
    """

    def __init__(self, stream):
        self._stream = stream
        self._saved = None

    @classmethod
    def install(cls) -> "GuardedStdout":
        """Put a guard on ``sys.stdout`` (undone by :meth:`uninstall`); a closed file
        descriptor 1 or 2 is first taken by ``/dev/null``, so that no file qsudoku opens
        becomes standard output by accident."""
        for fd in (1, 2):
            try:
                os.fstat(fd)
            except OSError:
                try:
                    got = os.open(os.devnull, os.O_WRONLY)
                    if got != fd:
                        os.close(got)
                except OSError:
                    pass
        if sys.stderr is None:  # closed before qsudoku started: error lines go to /dev/null
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 - lives as long as the process
        guard = cls(sys.stdout)
        guard._saved = sys.stdout
        sys.stdout = guard
        return guard

    def uninstall(self) -> None:
        if sys.stdout is self:
            sys.stdout = self._saved

    def _closed(self):
        return MachineError("cannot write standard output: it is closed (EBADF)")

    def _call(self, name, *a):
        if self._stream is None:
            raise self._closed()
        try:
            return getattr(self._stream, name)(*a)
        except BrokenPipeError:
            raise
        except OSError as e:
            from qsudoku.io.failures import machine_error

            if e.errno == errno.EBADF:
                raise self._closed() from None
            raise machine_error("standard output", e) from None

    def write(self, text):
        return self._call("write", text)

    def writelines(self, lines):
        return self._call("writelines", lines)

    def flush(self):
        if self._stream is not None:
            self._call("flush")

    def __getattr__(self, name):
        if self._stream is None:
            raise self._closed()
        return getattr(self._stream, name)


def run() -> int:
    """The program (``qsudoku``, ``python -m qsudoku``): :func:`main` on ``sys.argv``, then
    :func:`gc.freeze`, so that the exit skips full collections over the objects numba,
    dimod and networkx leave behind (outputs are closed by then; ``atexit`` still runs)."""
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
