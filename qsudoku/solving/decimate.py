"""Decimation: fix the cells the low-energy reads agree on, so that the next round samples
a smaller model.

A round that found no valid grid may *decimate* (``route.max_depth > 0``): it fixes a few
cells to the digits its lowest-energy reads agree on most, propagates, and the next round
samples the sub-QUBO that is left.  A contradiction, or a dive that reaches ``max_depth``,
abandons the fixed digits and restarts from the root candidates (a large-neighbourhood
restart).

>>> import numpy as np
>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.decode import decode
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> from dwave.samplers import SimulatedAnnealingSampler
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> reads = decode(m, SimulatedAnnealingSampler().sample(m.bqm, num_reads=8, seed=2))
>>> fixes = choose_fixes(np.random.default_rng(0), m, reads, 2)
>>> len(fixes), all(m.fixed[cell] == 0 and 1 <= digit <= 4 for cell, digit in fixes)
(2, True)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from qsudoku.model.puzzle import Puzzle

__all__ = ["choose_fixes", "with_fixed"]


def with_fixed(puzzle: Puzzle, grid: Sequence[int]) -> Puzzle:
    """``puzzle`` with ``grid``'s digits as its givens (same units, name and alphabet)."""
    return Puzzle(puzzle.size, tuple(int(x) for x in grid), puzzle.units, kind=puzzle.kind,
                  name=puzzle.name, alphabet=puzzle.alphabet)


def choose_fixes(rng: np.random.Generator, model, decoded, num_fix: int) -> list[tuple[int, int]]:
    """Pick ``num_fix`` (cell, digit) pairs: open cells where the lowest-energy reads agree
    most, drawn with probability growing as the fourth power of the agreement.

    Args:
        rng: The round's random generator.
        model: The :class:`~qsudoku.model.qubo.QuboModel` the reads are of.
        decoded: The round's decoded reads.
        num_fix: Cells to fix.

    Returns:
        ``[(cell, digit), ...]``; empty if no open cell has a digit in the low reads.
    """
    grids = np.array([d.grid for d in decoded])
    energies = np.array([d.energy for d in decoded])
    low = grids[energies <= energies.min() + 1e-9]
    open_cells = np.flatnonzero(np.asarray(model.fixed) == 0)
    low = low[:, open_cells]
    n = model.puzzle.size
    share = np.zeros(len(open_cells))
    major = np.zeros(len(open_cells), np.int64)
    for j in range(len(open_cells)):
        counts = np.bincount(low[:, j], minlength=n + 1)
        counts[0] = 0
        major[j] = counts.argmax()
        share[j] = counts[major[j]] / max(1, len(low))
    ok = major > 0
    if not ok.any():
        return []
    weight = np.where(ok, share ** 4 + 1e-12, 0.0)
    k = min(num_fix, int(ok.sum()))
    pick = rng.choice(len(open_cells), size=k, replace=False, p=weight / weight.sum())
    return [(int(open_cells[j]), int(major[j])) for j in pick]
