"""The reduced QUBO: one ``w * (sum q - 1)**2`` penalty per open constraint.

Variables are the candidates left by propagation: ``q[(r, c, d)] = 1`` means
cell ``(r, c)`` holds digit ``d``.  There is one one-hot group per open cell
(``("cell", (r, c))``) and one per unit and digit still missing from it
(``("unit", unit_index, d)``).  Each group adds ``w * (sum q - 1)**2``, which for
binary ``q`` is ``-w`` per variable, ``+2w`` per pair and ``+w`` offset, so the
energy is 0 exactly for a valid completion and at least ``min(w)`` otherwise.

Every penalty goes through :func:`one_hot`, which writes all groups of the model
into numpy arrays at once; the BQM is then built in one call.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.propagate import propagate
>>> p = parse_puzzle("12.." "34.." "...." "....")
>>> m = build_model(propagate(p, rules=()))
>>> m.num_variables, len(m.constraints)
(32, 48)
>>> m.energy_of_grid([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
0.0
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Sequence

import numpy as np

from .errors import ConfigError
from .propagate import Candidates

__all__ = ["Weights", "Constraint", "QuboModel", "build_model", "one_hot"]


@dataclass(frozen=True)
class Weights:
    """Penalty weight per constraint kind (``region`` units use ``box``).

    >>> Weights(cell=2.0).for_kind("region")
    1.0
    """

    cell: float = 1.0
    row: float = 1.0
    column: float = 1.0
    box: float = 1.0
    extra: float = 1.0

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or v == float("inf"):
                raise ConfigError(f"weight {f.name} = {v!r} must be a positive finite number")
            object.__setattr__(self, f.name, float(v))

    def for_kind(self, kind: str) -> float:
        """Weight of a constraint of ``kind`` (``cell`` or a unit kind)."""
        return getattr(self, "box" if kind == "region" else kind)


@dataclass(frozen=True)
class Constraint:
    """A labelled one-hot group of the model.

    Attributes:
        label: ``("cell", (r, c))`` or ``("unit", unit_index, digit)``.
        kind: ``"cell"`` or the unit's kind (``row``, ``column``, ``box``, ``region``, ``extra``).
        variables: Indices into :attr:`QuboModel.variables`.
        weight: Its penalty weight.
    """

    label: tuple
    kind: str
    variables: np.ndarray
    weight: float

    def describe(self, puzzle) -> str:
        """Readable name, e.g. ``"cell r1c3"`` or ``"box 2 needs one 7"``."""
        if self.label[0] == "cell":
            r, c = self.label[1]
            return f"cell r{r + 1}c{c + 1}"
        unit, d = puzzle.units[self.label[1]], self.label[2]
        return f"{unit.label} needs one {puzzle.alphabet[d - 1]}"


def one_hot(groups: Sequence[np.ndarray], weights: Sequence[float], num_variables: int):
    """Linear, quadratic and offset terms of ``sum_g w_g * (sum_{i in g} q_i - 1)**2``.

    Groups are bucketed by size so that each bucket's pairs come from one
    ``triu_indices`` call: no Python loop per coupler.

    Returns:
        ``(linear, (rows, cols, biases), offset)`` ready for
        :meth:`dimod.BinaryQuadraticModel.from_numpy_vectors` (duplicate pairs add up).

    >>> lin, (i, j, b), off = one_hot([np.array([0, 1, 2])], [1.0], 3)
    >>> lin.tolist(), list(zip(i.tolist(), j.tolist(), b.tolist())), off
    ([-1.0, -1.0, -1.0], [(0, 1, 2.0), (0, 2, 2.0), (1, 2, 2.0)], 1.0)
    """
    weights = np.asarray(weights, dtype=float)
    sizes = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
    flat = (np.concatenate(groups).astype(np.int64) if len(groups) and sizes.sum()
            else np.zeros(0, np.int64))
    linear = -np.bincount(flat, weights=np.repeat(weights, sizes), minlength=num_variables)
    starts = np.cumsum(sizes) - sizes
    rows, cols, biases = [], [], []
    for m in np.unique(sizes[sizes > 1]):
        idx = np.flatnonzero(sizes == m)
        members = flat[starts[idx][:, None] + np.arange(m)]  # (groups of size m, m)
        a, b = np.triu_indices(int(m), 1)
        rows.append(members[:, a].ravel())
        cols.append(members[:, b].ravel())
        biases.append(np.repeat(2.0 * weights[idx], len(a)))
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
    return linear, (cat(rows, np.int64), cat(cols, np.int64), cat(biases, float)), float(weights.sum())


@dataclass
class QuboModel:
    """A compiled model: the BQM plus everything needed to decode it.

    Attributes:
        candidates: The propagation result it was built from.
        weights: The weights used.
        bqm: The :class:`dimod.BinaryQuadraticModel` (BINARY) over ``(r, c, d)`` labels.
        variables: Label of each variable index, ``(row, col, digit)``.
        var_cell: Flat cell of each variable.
        var_digit: Digit of each variable.
        constraints: The labelled one-hot groups.
    """

    candidates: Candidates
    weights: Weights
    bqm: object
    variables: list[tuple[int, int, int]]
    var_cell: np.ndarray
    var_digit: np.ndarray
    constraints: list[Constraint] = field(default_factory=list)

    @property
    def puzzle(self):
        return self.candidates.puzzle

    @property
    def fixed(self) -> list[int]:
        """The grid after propagation (0 = open)."""
        return self.candidates.grid

    @property
    def num_variables(self) -> int:
        return len(self.variables)

    @property
    def num_interactions(self) -> int:
        return self.bqm.num_interactions

    def groups(self) -> list[tuple[str, list[tuple[int, int, int]]]]:
        """Each one-hot group as ``(kind, [variable labels])`` for structure-aware samplers."""
        v = self.variables
        return [(c.kind, [v[i] for i in c.variables]) for c in self.constraints]

    def sample_of_grid(self, grid: Sequence[int]) -> np.ndarray:
        """The 0/1 vector (in variable-index order) that encodes a full ``grid``."""
        g = np.asarray(grid)
        return (g[self.var_cell] == self.var_digit).astype(np.int8)

    def energy_of_grid(self, grid: Sequence[int]) -> float:
        """BQM energy of the sample encoding ``grid`` (0.0 for a valid completion)."""
        x = self.sample_of_grid(grid)
        return float(self.bqm.energy((x, self.variables)))


def build_model(candidates: Candidates, weights: Weights = Weights()) -> QuboModel:
    """Build the reduced QUBO of a propagated puzzle.

    Args:
        candidates: Output of :func:`qsudoku.propagate.propagate`.
        weights: Penalty weight per constraint kind.
    """
    import dimod

    puzzle = candidates.puzzle
    n = puzzle.size
    masks = np.asarray(candidates.masks, dtype=np.int64)
    grid = np.asarray(candidates.grid)
    bits = (masks[:, None] >> np.arange(n)[None, :]) & 1
    bits[grid != 0] = 0
    var_cell, d0 = np.nonzero(bits)
    var_digit = d0 + 1
    index = np.full((n * n, n), -1, dtype=np.int64)
    index[var_cell, d0] = np.arange(len(var_cell))
    variables = [(int(c) // n, int(c) % n, int(d)) for c, d in zip(var_cell, var_digit)]

    constraints: list[Constraint] = []
    w_cell = weights.cell
    starts = np.searchsorted(var_cell, np.arange(n * n + 1))
    for c in np.flatnonzero(grid == 0):
        constraints.append(Constraint(("cell", (int(c) // n, int(c) % n)), "cell",
                                      np.arange(starts[c], starts[c + 1]), w_cell))
    for k, unit in enumerate(puzzle.units):
        sub = index[list(unit.cells)]  # (n cells, n digits)
        w = weights.for_kind(unit.kind)
        for d0_ in np.flatnonzero((sub >= 0).any(axis=0)):
            vs = sub[:, d0_]
            constraints.append(Constraint(("unit", k, int(d0_) + 1), unit.kind, vs[vs >= 0], w))

    linear, quad, offset = one_hot([c.variables for c in constraints],
                                   [c.weight for c in constraints], len(variables))
    bqm = dimod.BinaryQuadraticModel.from_numpy_vectors(
        linear, quad, offset, dimod.BINARY, variable_order=variables)
    return QuboModel(candidates, weights, bqm, variables, var_cell, var_digit, constraints)
