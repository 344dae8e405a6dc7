"""qsudoku: Sudoku and its relatives as a QUBO for quantum annealing.

The pipeline: :mod:`~qsudoku.puzzle` (units) -> :mod:`~qsudoku.propagate`
(candidates) -> :mod:`~qsudoku.qubo` (reduced BQM) -> :mod:`~qsudoku.samplers`
(any ``dimod.Sampler``) -> :mod:`~qsudoku.decode` (validated grids), chained by
:func:`~qsudoku.pipeline.solve`.

>>> import qsudoku
>>> r = qsudoku.solve(qsudoku.parse_puzzle("1..." "..2." ".3.." "...4"))
>>> r.valid
True
"""

from .config import Config, load_config
from .errors import (BackendUnavailableError, ConfigError, ContradictionError, PuzzleFormatError,
                     QSudokuError)
from .io import Rules, load_puzzles, parse_puzzle
from .pipeline import Result, solve
from .propagate import propagate
from .puzzle import Puzzle, Unit
from .qubo import QuboModel, Weights, build_model

__version__ = "0.1.0"

__all__ = [
    "Puzzle", "Unit", "Rules", "parse_puzzle", "load_puzzles", "propagate", "build_model",
    "QuboModel", "Weights", "solve", "Result", "Config", "load_config", "QSudokuError",
    "PuzzleFormatError", "ContradictionError", "ConfigError", "BackendUnavailableError",
]
