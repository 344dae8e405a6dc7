"""Shared fixtures: the puzzle data shipped in ``data/``, and a reproducible Hypothesis profile.

The data is the repository's own (``data/``, see its README), so a fresh clone runs
every data test; tests reach it through :mod:`_shared`, and the small puzzles they share
through :mod:`_puzzles`.  ``pytest -m "not slow"`` is the fast loop (docs/development.md).

Hypothesis runs with the ``qsudoku`` profile: no deadline (2 slow cores must not
turn into flaky failures) and ``derandomize=True`` (the same examples on every
run, so a red suite is reproducible).  ``QSUDOKU_HYPOTHESIS_PROFILE=explore``
draws fresh random examples instead, for a local bug hunt.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# --- the suite's own home and caches, its write guard and the skip summary (_isolation.py) ---
# Run before anything imports qsudoku, so that every subprocess and xdist worker inherits them.
from _isolation import (  # noqa: E402, F401 - the hooks are pytest's
    isolate, pytest_sessionfinish, pytest_terminal_summary, pytest_unconfigure)

isolate()
# ---------------------------------------------------------------------------------------------

from _shared import DATA, SEEDS, data_sets  # noqa: E402 - after isolate(): it imports qsudoku

settings.register_profile(
    "qsudoku", deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("explore", parent=settings.get_profile("qsudoku"), derandomize=False)
settings.load_profile(os.environ.get("QSUDOKU_HYPOTHESIS_PROFILE", "qsudoku"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The repository's ``data/`` folder (the test is skipped if it is missing)."""
    if not DATA.is_dir():
        pytest.skip("data/ is not in the repository")
    return DATA


@pytest.fixture(scope="session")
def shared_puzzles(data_dir) -> dict[str, list]:
    """The first three puzzles (with solutions) of every data set, keyed ``dir/file``.

    Covers every kind in the data: sudoku 4, 6 (2x3 and 3x2), 8 (2x4 and 4x2), 9,
    12, 16, 25, Sudoku-X, jigsaw 4-9 and jigsaw-X, plus the seed puzzles.
    """
    from itertools import islice

    from qsudoku.errors import QSudokuError
    from qsudoku.io.files import iter_puzzles

    out = {}
    for f in data_sets() + [SEEDS]:  # the first three alone: the big sets have thousands
        first = list(islice(iter_puzzles(str(f)), 3))
        for item in first:
            if isinstance(item, QSudokuError):
                raise item
        out[f"{f.parent.name}/{f.name}"] = first
    return out


@pytest.fixture(scope="session")
def puzzles_by_size(shared_puzzles) -> dict[str, list]:
    """The data puzzles grouped by kind: ``sudoku4`` ... ``sudoku25``, ``sudokux9``, ``jigsaw``."""
    groups: dict[str, list] = {}
    for key, puzzles in shared_puzzles.items():
        folder = key.split("/")[0]
        kind = "jigsaw" if folder.startswith("jigsaw") else folder
        groups.setdefault(kind, []).extend(puzzles)
    return groups
