"""Reading and writing puzzles: one-line strings, grids, tuple lists, region maps, files.

>>> from qsudoku.io import parse_puzzle
>>> p = parse_puzzle("1.3." "3..2" ".3.." "2..3")
>>> p.size, p.kind
(4, 'sudoku 4x4 (2x2 boxes)')
"""

from qsudoku.io.datasets import dataset_path
from qsudoku.io.files import Rules, load_puzzles, rules_from_path
from qsudoku.model.symbols import default_alphabet, parse_digits
from qsudoku.io.text import format_grid, parse_puzzle, parse_regions

__all__ = [
    "Rules",
    "load_puzzles",
    "rules_from_path",
    "dataset_path",
    "parse_puzzle",
    "parse_regions",
    "parse_digits",
    "default_alphabet",
    "format_grid",
]
