"""Shared fixtures: the puzzle data shipped in ``data/``, and a reproducible Hypothesis profile.

The data is the repository's own (``data/``, see its README), so a fresh clone runs
every data test; tests reach it through :mod:`_shared`.

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

from _shared import DATA, SEEDS, data_sets

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
    from qsudoku.io import load_puzzles

    out = {}
    for f in data_sets() + [SEEDS]:
        out[f"{f.parent.name}/{f.name}"] = load_puzzles(str(f))[:3]
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


#: The environment variables that decide where qsudoku and the libraries it runs write
#: caches: set to a session temporary directory for every test (and every subprocess a
#: test starts, which inherits them).  ``NUMBA_CACHE_DIR`` is left alone: the kernel
#: cache is keyed on the sources and its tests set their own.
CACHE_VARIABLES = ("QSUDOKU_CACHE_DIR", "XDG_CACHE_HOME")


def _home_cache() -> Path:
    return Path(os.path.expanduser("~")) / ".cache" / "qsudoku"


def _snapshot(folder: Path) -> set[str]:
    try:
        return {str(p.relative_to(folder)) for p in folder.rglob("*")}
    except OSError:
        return set()


_HOME_CACHE_BEFORE = _snapshot(_home_cache())


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """Tests never write into the user's ``~/.cache`` (embeddings included): every cache
    variable points into a session temporary directory (tests that check a cache set
    their own on top of this one)."""
    root = tmp_path_factory.mktemp("caches")
    old = {k: os.environ.get(k) for k in CACHE_VARIABLES}
    os.environ["QSUDOKU_CACHE_DIR"] = str(root / "qsudoku")
    os.environ["XDG_CACHE_HOME"] = str(root / "xdg")
    yield root
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def pytest_sessionfinish(session, exitstatus):
    """The suite fails if it left anything new under the real ``~/.cache/qsudoku``."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller checks
        return
    new = sorted(_snapshot(_home_cache()) - _HOME_CACHE_BEFORE)
    if new:
        print(f"\ntests wrote into the user's cache {_home_cache()}: {', '.join(new[:5])}")
        session.exitstatus = 1
