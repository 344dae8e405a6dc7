"""Find a puzzle set by name: ``dataset_path("sudoku9/forum_hardest_1106.txt")``.

A set's name is its path below a data folder (``<kind>/<file>``, see ``data/README.md``).
The first folder holding it wins: each directory of ``$QSUDOKU_DATA``
(``os.pathsep``-separated), then the repository's ``data/`` (a wheel has none).

>>> dataset_path("sudoku9/forum_hardest_1106.txt").name
'forum_hardest_1106.txt'
>>> dataset_path("sudoku9/no_such_set.txt")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
qsudoku.errors.DatasetMissingError: puzzle set sudoku9/no_such_set.txt not found in ...
"""

from __future__ import annotations

import os
from pathlib import Path

from qsudoku.checks import need_type
from qsudoku.errors import DatasetMissingError

__all__ = ["dataset_path", "data_roots", "puzzle_files_in", "expand_inputs", "REPO_DATA",
           "ENV_DATA"]

#: Environment variable: extra data folders, searched first.
ENV_DATA = "QSUDOKU_DATA"
#: The repository's ``data/`` folder (it exists in a clone or an editable install).
REPO_DATA = Path(__file__).resolve().parents[2] / "data"


def data_roots() -> list[Path]:
    """The folders searched for a set, in order (only those that exist).

    >>> REPO_DATA in data_roots()
    True
    """
    roots = [Path(d) for d in os.environ.get(ENV_DATA, "").split(os.pathsep) if d]
    roots.append(REPO_DATA)
    return [r for r in roots if r.is_dir()]


def dataset_path(name: str | os.PathLike) -> Path:
    """The file of the puzzle set ``name`` (e.g. ``"sudoku16/gecode.txt"``).

    Args:
        name: The set's path relative to a data folder.

    Raises:
        DatasetMissingError: No data folder holds it; the message names the set,
            the folders searched and ``QSUDOKU_DATA``.
    """
    name = os.fspath(need_type("name", name, (str, os.PathLike), "a str or a path"))
    roots = data_roots()
    for root in roots:
        path = root / name
        if path.exists():
            return path
    where = ", ".join(str(r) for r in roots) or "no data folder"
    raise DatasetMissingError(f"puzzle set {name} not found in {where}; put it under a "
                              f"directory named in {ENV_DATA}")


#: Companion files beside a puzzle file, never puzzles themselves.
COMPANIONS = (".solutions.txt", ".ids.txt", ".solutions.tsv", ".ids.tsv")


def puzzle_files_in(directory: str | os.PathLike) -> list[str]:
    """The puzzle files of ``directory`` (not its subfolders), sorted: ``.txt`` and ``.tsv``
    files that are not companions (``.solutions``, ``.ids``) nor hidden.

    Raises:
        PuzzleFormatError: The directory holds no puzzle file.

    >>> [Path(f).name for f in puzzle_files_in(REPO_DATA / "seeds")]
    ['seeds.tsv']
    """
    from qsudoku.errors import PuzzleFormatError

    found = sorted(str(f) for f in Path(directory).iterdir()
                   if f.suffix in (".txt", ".tsv") and not f.name.startswith(".")
                   and not f.name.endswith(COMPANIONS) and f.is_file())
    if not found:
        raise PuzzleFormatError(f"{directory}: no puzzle files (.txt, .tsv) in this directory")
    return found


def expand_inputs(specs) -> list[str]:
    """``specs`` with every directory replaced by its :func:`puzzle_files_in`."""
    out: list[str] = []
    for spec in specs:
        is_dir = spec != "-" and os.path.isdir(spec)
        out.extend(puzzle_files_in(spec) if is_dir else [spec])
    return out
