"""Puzzles the asv benchmarks share: the repository's own sets, found by name through
:func:`qsudoku.io.dataset_path`, and seeded grids made here.

The repository's ``data/`` is put first on ``$QSUDOKU_DATA``, so that the sets are found
when asv runs the benchmarks against an installed wheel (``asv continuous``), which has no
``data/`` of its own.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
os.environ["QSUDOKU_DATA"] = os.pathsep.join(
    [str(DATA)] + [d for d in os.environ.get("QSUDOKU_DATA", "").split(os.pathsep) if d])

#: Digits of grids up to 64x64 (as ``qsudoku generate`` writes them).
ALPHABET = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&*+=?@"
#: The default propagation rules.
SINGLES = ("naked_single", "hidden_single")


def shipped(name: str, count: int | None = None) -> list:
    """The first ``count`` puzzles of the shipped set ``name``."""
    from qsudoku.io import dataset_path, load_puzzles

    return load_puzzles(str(dataset_path(name)))[:count]


def open_models(name: str, count: int, encoding: str = "one-hot") -> list:
    """The reduced QUBOs (singles) of the first ``count`` puzzles of ``name`` that
    propagation leaves open."""
    from qsudoku.model.propagate import propagate
    from qsudoku.model.qubo import build_model

    out = []
    for p in shipped(name):
        c = propagate(p, SINGLES)
        if not c.solved:
            out.append(build_model(c, encoding=encoding))
        if len(out) == count:
            break
    return out


def seeded_puzzle(n: int, fraction: float, seed: int = 1):
    """An ``n x n`` puzzle (boxes as square as the size allows) with ``fraction`` of its
    cells given, cut from a valid grid whose digits are relabelled at random."""
    import numpy as np

    from qsudoku.model.puzzle import Puzzle

    rng = np.random.default_rng(seed)
    r = int(n ** 0.5)
    while n % r:
        r -= 1
    c = n // r
    grid = [(c * (row % r) + row // r + col) % n for row in range(n) for col in range(n)]
    relabel = rng.permutation(n) + 1
    keep = rng.random(n * n) < fraction
    givens = [int(relabel[d]) if k else 0 for d, k in zip(grid, keep)]
    return Puzzle.standard(givens, box=(r, c), alphabet=ALPHABET[:n])
