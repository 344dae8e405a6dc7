"""Shared fixtures: the shared puzzle data, and a reproducible Hypothesis profile.

CI clones the repository into a temporary directory with ``shared/`` beside it,
so the data is looked up next to the repository, never at an absolute path.

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

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"

settings.register_profile(
    "qsudoku", deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("explore", parent=settings.get_profile("qsudoku"), derandomize=False)
settings.load_profile(os.environ.get("QSUDOKU_HYPOTHESIS_PROFILE", "qsudoku"))


def _puzzle_files() -> list[Path]:
    return sorted(f for f in DATA.glob("*/*.txt")
                  if not f.name.endswith((".solutions.txt", ".ids.txt")))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """``shared/data`` beside the repository (the test is skipped if it is missing)."""
    if not DATA.is_dir():
        pytest.skip("shared/data not beside the repo")
    return DATA


@pytest.fixture(scope="session")
def shared_puzzles(data_dir) -> dict[str, list]:
    """The first three puzzles (with solutions) of every shared file, keyed ``dir/file``.

    Covers every kind in the data: sudoku 4, 6 (2x3 and 3x2), 8 (2x4 and 4x2), 9,
    12, 16, 25, Sudoku-X, jigsaw 4-9 and jigsaw-X, plus the seed puzzles.
    """
    from qsudoku.io import load_puzzles

    out = {}
    for f in _puzzle_files() + [data_dir / "seeds" / "seeds.tsv"]:
        out[f"{f.parent.name}/{f.name}"] = load_puzzles(str(f))[:3]
    return out


@pytest.fixture(scope="session")
def puzzles_by_size(shared_puzzles) -> dict[str, list]:
    """The shared puzzles grouped by kind: ``sudoku4`` ... ``sudoku25``, ``sudokux9``, ``jigsaw``."""
    groups: dict[str, list] = {}
    for key, puzzles in shared_puzzles.items():
        folder = key.split("/")[0]
        kind = "jigsaw" if folder.startswith("jigsaw") else folder
        groups.setdefault(kind, []).extend(puzzles)
    return groups
