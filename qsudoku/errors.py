"""Typed errors of qsudoku, all under one root.

Each class carries its CLI exit code (:func:`exit_code_for`): bad input or configuration
2, an unavailable backend 3, a failure of the machine 4.  An invalid *sample* is data
(:mod:`qsudoku.model.decode`), never an exception.

>>> issubclass(PuzzleFormatError, QSudokuError)
True
>>> str(PuzzleFormatError("unknown character 'x'", source="a.txt", line=3, column=7))
"a.txt:3:7: unknown character 'x'"
"""

from __future__ import annotations

__all__ = ["QSudokuError", "PuzzleFormatError", "ContradictionError", "ConfigError",
           "ParameterError", "ModelTooLargeError", "DatasetMissingError",
           "BackendUnavailableError", "SamplerOutputError", "SampleValueError",
           "TimeLimitError", "MachineError", "exit_code_for", "install_hint"]


class QSudokuError(Exception):
    """Root of every error qsudoku raises on purpose."""

    exit_code = 2


class PuzzleFormatError(QSudokuError, ValueError):
    """A puzzle text could not be read.

    Args:
        message: What is wrong.
        source: File name (or ``"<string>"``/``"<stdin>"``) the text came from.
        line: 1-based line number in ``source``.
        column: 1-based column (character position) in that line.
        cell: ``(row, col)`` of the offending cell, 0-based, if known.
    """

    def __init__(self, message, *, source=None, line=None, column=None, cell=None):
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.cell = cell
        super().__init__(self._render())

    def _render(self):
        where = [str(p) for p in (self.source, self.line, self.column) if p is not None]
        prefix = ":".join(where)
        text = self.message
        if self.cell is not None:
            text = f"{text} (cell r{self.cell[0] + 1}c{self.cell[1] + 1})"
        return f"{prefix}: {text}" if prefix else text


class ContradictionError(QSudokuError):
    """The puzzle has no solution: propagation or a backend proved it.

    Args:
        message: What broke.
        cell: ``(row, col)`` (0-based) where it broke, if a cell is to blame.
        unit: Label of the unit (e.g. ``"box 3"``) where it broke, if any.
        digit: The digit involved, if any.
    """

    exit_code = 1

    def __init__(self, message, *, cell=None, unit=None, digit=None, source=None, exit_code=None):
        self.message = message
        if exit_code is not None:  # duplicate givens are bad input (2), not "no solution" (1)
            self.exit_code = exit_code
        self.cell = cell
        self.unit = unit
        self.digit = digit
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


class ConfigError(QSudokuError, ValueError):
    """A configuration file, key, value or sampler parameter is invalid."""


class ParameterError(ConfigError):
    """A sampler refused the value of one of its sampling parameters (exit 2, not a bug
    inside the sampler); a :class:`ValueError`, as other ``dimod`` samplers raise.

    >>> isinstance(ParameterError("num_reads = 0 must be >= 1"), (ConfigError, ValueError))
    True
    """


class ModelTooLargeError(ConfigError):
    """The model is over a size limit of the solver asked for, found before anything is
    sent (exit 2); one line names the model's size and the limit.

    >>> exit_code_for(ModelTooLargeError("1,200,000 variables > maximum_number_of_variables 1,000,000"))
    2
    """


class DatasetMissingError(QSudokuError, FileNotFoundError):
    """A named puzzle set is in none of the data folders (exit 2: bad input).

    >>> exit_code_for(DatasetMissingError("sudoku9/x.txt"))
    2
    """


class BackendUnavailableError(QSudokuError, RuntimeError):
    """A sampler cannot run here: missing extra, token, solver or network."""

    exit_code = 3


class SamplerOutputError(BackendUnavailableError):
    """A sampler returned no usable answer (``None``, not a :class:`dimod.SampleSet`, an
    empty one, one without the model's variables), or a factory returned no sampler; the
    message names the sampler and what it returned (exit 3).

    >>> exit_code_for(SamplerOutputError("sampler 'Mine' returned None, not a dimod.SampleSet"))
    3
    """


class SampleValueError(SamplerOutputError, ValueError):
    """A sample set holds values its vartype does not (not 0/1 for ``BINARY``, not -1/+1
    for ``SPIN``); decoding refuses it (exit 3, as any unusable answer).

    >>> exit_code_for(SampleValueError("sample set holds 0.5"))
    3
    """


class TimeLimitError(QSudokuError, TimeoutError):
    """A stage stopped at its deadline before it had a result: nothing is decided, exit 1
    as for a puzzle left unsolved.

    Args:
        message: What stopped, and where.
        num_variables: For a build, the size of the model it was building (else ``None``).

    >>> exit_code_for(TimeLimitError("build stopped at its deadline"))
    1
    >>> TimeLimitError("build stopped", num_variables=12).num_variables
    12
    """

    def __init__(self, message: str, num_variables: int | None = None):
        super().__init__(message)
        self.num_variables = num_variables

    exit_code = 1


class MachineError(QSudokuError, OSError):
    """The machine refused the work (a full disk, a file-size limit, a closed output):
    neither a bug nor bad input, exit 4, one line saying what and where.

    >>> exit_code_for(MachineError("results.csv: no space left on device"))
    4
    """

    exit_code = 4


def exit_code_for(error: BaseException) -> int:
    """Return the CLI exit code for ``error``.

    >>> exit_code_for(ConfigError("bad key"))
    2
    >>> exit_code_for(BackendUnavailableError("no token"))
    3
    """
    return getattr(error, "exit_code", 2) if isinstance(error, QSudokuError) else 2


def install_hint(extra: str | None = None) -> str:
    """The command that installs the optional packages of ``extra`` (``None``: the package
    alone) from a clone (qsudoku is not on a package index).

    >>> print(install_hint("classical"))
    pip install -e ".[classical]" (from the repository's root)
    >>> print(install_hint())
    pip install -e . (from the repository's root)
    """
    target = f'".[{extra}]"' if extra else "."
    return f"pip install -e {target} (from the repository's root)"
