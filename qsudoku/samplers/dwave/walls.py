"""``decompose``'s ``construct`` on a domain-wall model: digits propagated, walls sent.

A domain wall cannot say "not yet decided" (its walls always spell some digit), so
``construct`` runs over the model's *candidate slots*, the one-hot indicators its groups
list beside its walls (:meth:`qsudoku.model.qubo.QuboModel.groups`), and only the QPU sees
walls.  :class:`WallCode` holds the slots' one-hot model (every group at weight 1, energy 0
exactly on a valid grid) with its cells and units; :meth:`WallCode.encode` rewrites a
subproblem over the open slots of the freed cells in walls (open slots ``o_0 < ... <
o_{m-1}`` of a cell take ``m - 1`` walls, ``q_0 = 1 - w_1``, ``q_j = w_j - w_{j+1}``,
``q_{m-1} = w_{m-1}``, plus ``CHAIN * w_{j+1} (1 - w_j)`` per link), which keeps every
energy of a single-wall assignment; :meth:`WallCode.decode` reads a read's walls back (a
broken chain gives nothing, which ``construct`` skips) and :meth:`WallCode.sample_of`
turns a slot assignment into a sample of the domain-wall model.

>>> import dimod
>>> walls = [(0, 0, ">=", 2), (0, 0, ">=", 3)]
>>> groups = [("wall", walls), ("cell", [(0, 0, 1), (0, 0, 2), (0, 0, 3)])]
>>> code = WallCode(dimod.BQM({v: 0.0 for v in walls}, {}, 0.0, "BINARY"), groups)
>>> free = np.array([0, 1, 2])
>>> sub = code.model.subproblem(free, np.zeros(3))
>>> sub.add_linear_from({0: 0.5, 1: -2.0, 2: 3.0})  # a digit preference, as blame adds
>>> enc = code.encode(sub, free)
>>> enc.num_variables  # three slots, two walls
2
>>> [float(sub.energy({i: int(i == d) for i in range(3)})) for d in range(3)]
[0.5, -2.0, 3.0]
>>> [float(enc.energy({0: int(d >= 1), 1: int(d >= 2)})) for d in range(3)]  # the same, digit by digit
[0.5, -2.0, 3.0]
>>> code.decode({0: 1, 1: 0}, free).tolist(), code.decode({0: 0, 1: 1}, free).tolist()
([0.0, 1.0, 0.0], [0.0, 0.0, 0.0])
>>> code.sample_of(np.array([0.0, 0.0, 1.0])).astype(int).tolist()
[1, 1]
"""

from __future__ import annotations

import dimod
import numpy as np

from qsudoku.errors import ParameterError
from qsudoku.model.penalty import penalty_terms
from qsudoku.samplers.dwave.subproblems import SubModel, SubStructure

__all__ = ["WallCode", "CHAIN"]

#: Weight of a subproblem's chain links: a broken wall turns an indicator to -1, which a
#: subproblem's linear biases (a digit's blame) can reward, and weight 1 let the mock QPU's
#: reads break walls to do so (``docs/qpu.md``).
CHAIN = 2.0


class WallCode:
    """The candidate slots of a domain-wall model and the change of variables to its walls.

    Args:
        bqm: The domain-wall model.
        groups: Its groups: ``("wall", labels)`` per open cell, then the one-hot groups over
            the slots (``"cell"`` groups in the same order as the walls, then the units).

    Raises:
        ParameterError: If the groups do not pair every cell's walls with its slots.
    """

    def __init__(self, bqm, groups):
        walls = [list(labels) for kind, labels in groups if kind == "wall"]
        slot_groups = [(kind, list(labels)) for kind, labels in groups if kind != "wall"]
        cells = [labels for kind, labels in slot_groups if kind == "cell"]
        if len(cells) != len(walls) or any(len(w) != max(len(c) - 1, 0)
                                           for w, c in zip(walls, cells)):
            raise ParameterError("decompose: strategy 'construct' needs a domain-wall "
                                 "model's groups with its candidate slots (QuboModel.groups())")
        self.labels = list(bqm.variables)
        index = {v: i for i, v in enumerate(self.labels)}
        self.walls = [np.asarray([index[v] for v in w], np.int64) for w in walls]
        slots = [v for c in cells for v in c]
        at = {v: i for i, v in enumerate(slots)}
        self.slot_cell = np.repeat(np.arange(len(cells)), [len(c) for c in cells])
        self.first_slot = np.cumsum([0] + [len(c) for c in cells])[:-1]
        members = [np.asarray([at[v] for v in labels], np.int64) for _, labels in slot_groups]
        linear, pieces, offset = penalty_terms(
            np.concatenate(members) if members else np.zeros(0, np.int64),
            np.asarray([len(m) for m in members], np.int64), [1.0] * len(members), len(slots))
        one_hot = dimod.BinaryQuadraticModel(dimod.BINARY)
        one_hot.add_linear_from_array(linear)
        one_hot.offset = offset
        for rows, cols, biases in pieces:
            one_hot.data.add_quadratic_from_arrays(rows, cols, biases)
        self.model = SubModel(one_hot)
        self.structure = SubStructure(self.model, [(kind, [at[v] for v in labels])
                                                   for kind, labels in slot_groups])

    def _blocks(self, free: np.ndarray):
        """Per free slot: is it its cell's first free slot; per slot, its wall (-1: none)."""
        cell = self.slot_cell[free]
        first = np.ones(len(free), bool)
        first[1:] = cell[1:] != cell[:-1]
        wall = np.full(len(free), -1, np.int64)
        wall[~first] = np.arange(int((~first).sum()))
        return first, wall

    def encode(self, sub: dimod.BinaryQuadraticModel, free: np.ndarray) -> dimod.BinaryQuadraticModel:
        """``sub`` (over ``0..len(free)-1``, the open slots of whole cells in slot order) in walls.

        Wall ``k`` is labelled ``k``; a cell's walls are consecutive, in its slots' order.
        """
        first, wall = self._blocks(np.asarray(free))
        k, nw = len(free), int((wall >= 0).sum())
        A, c = np.zeros((k, nw)), first.astype(float)  # q = A w + c
        own = np.flatnonzero(wall >= 0)
        A[own, wall[own]] = 1.0
        nxt = np.flatnonzero(~first[1:])  # slot i whose next slot, i + 1, is in its cell
        A[nxt, wall[nxt + 1]] -= 1.0
        h, (u, v, b), off = sub.to_numpy_vectors(range(k))
        J = np.zeros((k, k))
        np.add.at(J, (u, v), b)
        J = J + J.T  # symmetric: q^T J q / 2 is the quadratic part
        M = A.T @ J @ A / 2.0
        lin = A.T @ h + A.T @ J @ c + np.diag(M)
        quad = 2.0 * np.triu(M, 1)
        offset = float(off + h @ c + c @ J @ c / 2.0)
        lo = wall[own[:-1]][np.diff(self.slot_cell[np.asarray(free)[own]]) == 0]
        lin[lo + 1] += CHAIN  # the chain: CHAIN * w_{j+1} (1 - w_j) per link
        quad[lo, lo + 1] -= CHAIN
        rows, cols = np.nonzero(quad)
        return dimod.BinaryQuadraticModel.from_numpy_vectors(
            lin, (rows, cols, quad[rows, cols]), offset, dimod.BINARY)

    def decode(self, sample, free: np.ndarray) -> np.ndarray:
        """One read of :meth:`encode`'s model as 0/1 per free slot (all 0 in a broken cell)."""
        first, wall = self._blocks(np.asarray(free))
        y = np.zeros(len(free))
        starts = np.flatnonzero(first).tolist() + [len(free)]
        for a, z in zip(starts, starts[1:]):
            w = np.array([sample[int(j)] for j in wall[a + 1:z]], float)
            if np.all(np.diff(w) <= 0):  # a single wall: ones, then zeros
                y[a + int(w.sum())] = 1.0
        return y

    def sample_of(self, x: np.ndarray) -> np.ndarray:
        """A slot assignment (one slot per cell) as a 0/1 sample of the domain-wall model."""
        out = np.zeros(len(self.labels))
        chosen = np.flatnonzero(x > 0.5)
        for s in chosen.tolist():
            k = int(self.slot_cell[s])
            out[self.walls[k][:s - int(self.first_slot[k])]] = 1.0
        return out
