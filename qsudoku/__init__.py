"""qsudoku: Sudoku and its relatives as a QUBO for quantum annealing.

The pipeline: :mod:`~qsudoku.model.puzzle` (units) -> :mod:`~qsudoku.model.propagate`
(candidates) -> :mod:`~qsudoku.model.qubo` (reduced BQM) -> :mod:`~qsudoku.samplers`
(any ``dimod.Sampler``) -> :mod:`~qsudoku.model.decode` (validated grids), chained by
:func:`~qsudoku.solving.solve`.

>>> import qsudoku
>>> r = qsudoku.solve(qsudoku.parse_puzzle("1..." "..2." ".3.." "...4"))
>>> r.valid
True
"""

from qsudoku.config import Config, load_config
from qsudoku.errors import (BackendUnavailableError, ConfigError, ContradictionError, PuzzleFormatError,
                     QSudokuError)
from qsudoku.io import Rules, load_puzzles, parse_puzzle
from qsudoku.model.result import Result
from qsudoku.solving import solve
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, Unit, diagonal_units
from qsudoku.model.qubo import QuboModel, Weights, build_model
from qsudoku.model.decode import Decoded, decode
from qsudoku.samplers.registry import get_sampler, register
from qsudoku.solving import build


def _version() -> str:
    """The installed distribution's version: pyproject.toml's ``version`` is its one home."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("qsudoku")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


__version__ = _version()

__all__ = [
    "Puzzle", "Unit", "diagonal_units", "Rules", "parse_puzzle", "load_puzzles", "propagate", "build_model",
    "QuboModel", "Weights", "build", "solve", "Result", "decode", "Decoded", "get_sampler",
    "register", "Config", "load_config", "QSudokuError", "PuzzleFormatError",
    "ContradictionError", "ConfigError", "BackendUnavailableError",
]
