"""The builder proposed for qsudoku/qubo.py (benchmarks/results/qubo_build_model.patch), runnable.

The same function body as the patch, so benchmarks/build_model.py can time it beside the
current builder in one process.  Remove this file once the patch is merged.
"""

from __future__ import annotations

import numpy as np

from qsudoku.propagate import Candidates
from qsudoku.qubo import Constraint, QuboModel, Weights


def build_model_proposed(candidates: Candidates, weights: Weights = Weights()) -> QuboModel:
    """Build the reduced QUBO of a propagated puzzle.

    Args:
        candidates: Output of :func:`qsudoku.propagate.propagate`.
        weights: Penalty weight per constraint kind.
    """
    import dimod

    puzzle, n = candidates.puzzle, candidates.puzzle.size
    masks = np.asarray(candidates.masks, dtype=np.int64)
    grid = np.asarray(candidates.grid)
    bits = (masks[:, None] >> np.arange(n)[None, :]) & 1
    bits[grid != 0] = 0
    var_cell, d0 = np.nonzero(bits)
    var_digit = d0 + 1
    nv = len(var_cell)
    variables = list(zip((var_cell // n).tolist(), (var_cell % n).tolist(), var_digit.tolist()))
    starts = np.searchsorted(var_cell, np.arange(n * n + 1))
    counts = np.diff(starts)
    open_cells = np.flatnonzero(counts)
    # Group membership as (key, variable) pairs, all groups at once.  Keys: open cells
    # 0..ncell-1 in cell order, then ncell + unit * n + digit0 (the old constraint order).
    # A unit's pairs come from one slot per (unit, cell), expanded to the cell's variables.
    ncell = len(open_cells)
    unit_cells = np.array([u.cells for u in puzzle.units], dtype=np.int64).ravel()
    per_slot = counts[unit_cells]
    slot = np.repeat(np.arange(len(unit_cells)), per_slot)
    uvar = starts[unit_cells][slot] + np.arange(len(slot)) - (np.cumsum(per_slot) - per_slot)[slot]
    cell_key = np.cumsum(counts > 0) - 1
    keys = np.concatenate([cell_key[var_cell], ncell + (slot // n) * n + d0[uvar]])
    members = np.concatenate([np.arange(nv), uvar])
    order = np.lexsort((members, keys))
    keys, members = keys[order], members[order]
    uniq, gid, size = np.unique(keys, return_inverse=True, return_counts=True)
    unit_w = np.array([weights.for_kind(u.kind) for u in puzzle.units] or [0.0])
    is_cell = uniq < ncell
    w = np.where(is_cell, weights.cell, unit_w[np.where(is_cell, 0, (uniq - ncell) // n)])

    # (sum q - 1)^2 = -sum q + 2 sum_{i<j} q_i q_j + 1 per group, from a padded member table
    linear = -np.bincount(members, weights=w[gid], minlength=nv)
    end = np.cumsum(size)
    width = int(size.max()) if len(size) else 0
    table = np.full((len(uniq), width), -1, dtype=np.int64)
    table[gid, np.arange(len(members)) - (end - size)[gid]] = members
    a, b = np.triu_indices(width, 1)
    left, right = table[:, a], table[:, b]
    pair = right >= 0
    quad = (left[pair], right[pair], np.broadcast_to((2.0 * w)[:, None], left.shape)[pair])
    bqm = dimod.BinaryQuadraticModel.from_numpy_vectors(
        linear, quad, float(w.sum()), dimod.BINARY, variable_order=variables)

    constraints: list[Constraint] = []
    kinds = [u.kind for u in puzzle.units]
    cells, bounds = open_cells.tolist(), [0] + end.tolist()
    for g, (key, wg) in enumerate(zip(uniq.tolist(), w.tolist())):
        vs = members[bounds[g]:bounds[g + 1]]
        if key < ncell:
            c = cells[key]
            constraints.append(Constraint(("cell", (c // n, c % n)), "cell", vs, wg))
        else:
            k, d = divmod(key - ncell, n)
            constraints.append(Constraint(("unit", k, d + 1), kinds[k], vs, wg))
    return QuboModel(candidates, weights, bqm, variables, var_cell, var_digit, constraints)
