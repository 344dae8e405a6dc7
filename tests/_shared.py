"""Paths to the puzzle data: the sets shipped in the repository's ``data/``, found through
:func:`qsudoku.io.dataset_path` (see ``data/README.md``)."""

from pathlib import Path

import pytest

from qsudoku.io import dataset_path
from qsudoku.io.datasets import REPO_DATA

REPO = Path(__file__).resolve().parents[1]
DATA = REPO_DATA
SEEDS = dataset_path("seeds/seeds.tsv")

needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="data/ is not in the repository")

#: One set of every kind and size from 4x4 to 16x16: boxes of every shape, hard and easy
#: 9x9, Sudoku-X, jigsaws 4-9 and jigsaw-X (names for :func:`qsudoku.io.dataset_path`).
EVERY_KIND = (
    "generated/sudoku4/unique.txt", "generated/sudoku6/unique_box2x3.txt",
    "generated/sudoku6/unique_box3x2.txt", "generated/sudoku8/unique_box2x4.txt",
    "generated/sudoku8/unique_box4x2.txt", "sudoku9/forum_hardest_1106.txt",
    "sudoku9/magictour_top1465.txt", "sudoku9/royle_17clue.txt",
    "generated/sudoku12/unique_box3x4.txt", "sudoku16/gecode.txt", "sudoku16/smilingwayne.txt",
    "generated/sudokux9/unique.txt", "generated/jigsaw4/unique.txt",
    "generated/jigsaw5/unique.txt", "generated/jigsaw6/unique.txt",
    "generated/jigsaw7/unique.txt", "generated/jigsaw8/unique.txt", "jigsaw9/smilingwayne.txt",
    "jigsawx6/smilingwayne.txt")


def data_sets() -> list[Path]:
    """Every puzzle file of ``data/`` (copied sets and ``generated/``), without companions
    and without the random-fraction sets (their puzzles need not be unique)."""
    found = sorted(DATA.glob("*/*.txt")) + sorted(DATA.glob("generated/*/*.txt"))
    return [f for f in found if not f.name.endswith((".solutions.txt", ".ids.txt"))
            and not f.name.startswith("fraction_")]


def puzzle_files(max_size: int = 99) -> list[Path]:
    """Every puzzle file of :func:`data_sets` up to grids of ``max_size``."""
    import re

    out = []
    for f in data_sets():
        m = re.search(r"(\d+)$", f.parent.name)
        if m and int(m.group(1)) <= max_size:
            out.append(f)
    return out


#: A puzzle file larger than this (bytes) is a ``slow`` case of a test run on every file: the
#: 9x9 sets of hundreds to thousands of puzzles (royle_17clue, magictour_top1465).
BIG_FILE = 50_000


def slow_when_big(files) -> list:
    """``files`` as parameters, the ones over :data:`BIG_FILE` marked ``slow`` (the fast loop
    checks every kind on a small set; the full suite checks every file)."""
    return [pytest.param(f, marks=pytest.mark.slow) if f.stat().st_size > BIG_FILE else f
            for f in files]


def route(puzzle, *, seed=None, time_budget=0.8, sampler=None, fallback=None,
          rules=None, sample_params=None, fallback_time_limit=None, weights=None,
          max_rounds=None, **_ignored):
    """:func:`qsudoku.solve` with the round policy's settings as keywords (no exact
    fallback unless ``fallback`` names one): the sampling rounds alone.  ``max_rounds``
    0 leaves no time for a round; 1 is ``route.enabled = false`` (one round)."""
    from qsudoku import Config, solve

    chain = "" if fallback is None else (fallback if isinstance(fallback, str)
                                         else ",".join(fallback))
    r = {"time_budget": 1e-9 if max_rounds == 0 else time_budget, "exact_fallback": chain, "enabled": max_rounds is None or max_rounds > 1}
    if fallback_time_limit is not None:
        r["fallback_time_limit"] = fallback_time_limit
    cfg = Config().with_overrides(sampler=sampler, seed=seed, route=r, rules=rules,
                                  params=sample_params, weights=weights)
    return solve(puzzle, cfg)
