"""The reduced QUBO as index arrays for ``decompose``: induced subproblems, cells and units.

:class:`SubModel` holds the BQM as numpy vectors, so that energies, local fields and the
subproblem over a set of free variables (every other variable fixed and folded into linear
biases) cost a few vector operations per call; a subproblem reads only the interactions
of its free variables and of the fixed ones set to 1 (through an adjacency list built
once), not the whole model's.  :class:`SubStructure` splits the one-hot groups into
*cells* (disjoint, freed whole) and *units* (the other groups, through which freed regions
grow).  :class:`Run` is what the runs of both strategies share.

>>> import dimod
>>> m = SubModel(dimod.BQM({"a": -1.0, "b": -1.0}, {"ab": 2.0}, 1.0, "BINARY"))
>>> sub = m.subproblem(np.array([1]), np.array([1.0, 0.0]))
>>> float(sub.linear[0]), float(sub.offset)  # b alone: its field from a = 1, and E(a=1)
(1.0, 0.0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import dimod
import numpy as np

from qsudoku.samplers.dwave.cliques import Packed

__all__ = ["SubModel", "SubStructure", "Run", "descend", "sample_batch", "tally"]


class SubModel:
    """The BQM as index arrays: energies, local fields and induced subproblems in numpy."""

    def __init__(self, bqm):
        bqm = bqm.change_vartype(dimod.BINARY, inplace=False) if bqm.vartype is dimod.SPIN else bqm
        self.labels = list(bqm.variables)
        self.index = {v: i for i, v in enumerate(self.labels)}
        lin, (u, v, b), offset = bqm.to_numpy_vectors(self.labels)
        self.lin, self.u, self.v, self.b = (np.asarray(lin, float), np.asarray(u, np.int64),
                                           np.asarray(v, np.int64), np.asarray(b, float))
        self.offset = float(offset)
        self.n = len(self.labels)

    def field(self, x: np.ndarray) -> np.ndarray:
        """``dE/dx_i``: the linear bias plus the couplings to the variables set to 1."""
        return (self.lin + np.bincount(self.u, self.b * x[self.v], self.n)
                + np.bincount(self.v, self.b * x[self.u], self.n))

    def energy(self, x: np.ndarray) -> float:
        return float(self.offset + self.lin @ x + np.sum(self.b * x[self.u] * x[self.v]))

    def adjacency(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indptr, neighbour, bias)``: each variable's interactions, both directions
        (built once, on the first call)."""
        if getattr(self, "_adjacency", None) is None:
            m, dtype = len(self.u), np.int32 if self.n < 2 ** 31 else np.int64

            def both(first, second, kind):  # one array of 2 m, without a concatenated copy
                out = np.empty(2 * m, kind)
                out[:m], out[m:] = first, second
                return out

            rows = both(self.u, self.v, dtype)
            indptr = np.zeros(self.n + 1, np.int64)
            np.cumsum(np.bincount(rows, minlength=self.n), out=indptr[1:])
            order = np.argsort(rows, kind="stable")
            del rows
            self._adjacency = (indptr, both(self.v, self.u, dtype)[order],
                               both(self.b, self.b, float)[order])
        return self._adjacency

    def _edges_of(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(owner, slot)``: for every interaction of the variables ``ids``, the position of
        its variable in ``ids`` and its slot in :meth:`adjacency`."""
        indptr = self.adjacency()[0]
        starts, lens = indptr[ids], indptr[ids + 1] - indptr[ids]
        owner = np.repeat(np.arange(len(ids)), lens)
        slot = np.arange(int(lens.sum())) + np.repeat(starts - (np.cumsum(lens) - lens), lens)
        return owner, slot

    def subproblem(self, free: np.ndarray, x: np.ndarray) -> dimod.BinaryQuadraticModel:
        """The model over ``free`` (labelled ``0..k-1``) with every other variable fixed to ``x``."""
        free = np.asarray(free, np.int64)
        _, nbr, bias = self.adjacency()
        fixed = x.copy()
        fixed[free] = 0
        owner, slot = self._edges_of(free)
        h = self.lin[free] + np.bincount(owner, bias[slot] * fixed[nbr[slot]], len(free))
        pos = np.full(self.n, -1, np.int64)
        pos[free] = np.arange(len(free))
        other = pos[nbr[slot]]
        inner = other > owner  # each pair of free variables once
        ones = np.flatnonzero(fixed)
        by, at = self._edges_of(ones)
        rest = (self.offset + self.lin[ones] @ fixed[ones]
                + 0.5 * np.sum(fixed[ones][by] * bias[at] * fixed[nbr[at]]))
        return dimod.BinaryQuadraticModel.from_numpy_vectors(
            h, (owner[inner], other[inner], bias[slot][inner]), rest, dimod.BINARY)


class SubStructure:
    """Cells (disjoint one-hot groups, or a domain wall's cells: kind ``wall``) and units
    (the other groups) as index lists."""

    def __init__(self, model: SubModel, groups):
        cells, units = [], []
        for kind, labels in groups or ():
            ids = [model.index[v] for v in labels if v in model.index]
            if ids:
                (cells if kind in ("cell", "wall") else units).append(np.asarray(ids, np.int64))
        covered = np.zeros(model.n, bool)
        for c in cells:
            covered[c] = True
        cells += [np.asarray([i], np.int64) for i in np.flatnonzero(~covered)]  # loose variables
        self.cells, self.units = cells, units
        self.one_hot = not any(kind == "wall" for kind, _ in groups or ())
        self.cell_of = np.empty(model.n, np.int64)
        for k, c in enumerate(cells):
            self.cell_of[c] = k
        self.units_of_cell: list[list[int]] = [[] for _ in cells]
        self.cells_of_unit = [np.unique(self.cell_of[u]) for u in units]
        for j, cs in enumerate(self.cells_of_unit):
            for k in cs:
                self.units_of_cell[k].append(j)
        flat = [(j, i) for j, u in enumerate(units) for i in u]
        self.unit_flat = np.asarray([j for j, _ in flat], np.int64)
        self.var_flat = np.asarray([i for _, i in flat], np.int64)
        if not units:  # no unit groups: grow through the model's interactions instead
            self._grow_units_from_edges(model)

    def _grow_units_from_edges(self, model: SubModel) -> None:
        nbrs: list[set] = [set() for _ in self.cells]
        for a, b in zip(self.cell_of[model.u], self.cell_of[model.v]):
            if a != b:
                nbrs[a].add(b)
                nbrs[b].add(a)
        self.units = [np.concatenate([self.cells[k] for k in (i, *sorted(s))])
                      for i, s in enumerate(nbrs)]
        self.cells_of_unit = [np.asarray([i, *sorted(s)], np.int64) for i, s in enumerate(nbrs)]
        self.units_of_cell = [[i] + [j for j in range(len(nbrs)) if i in nbrs[j]]
                              for i in range(len(nbrs))]

    def initial(self, n: int, rng) -> np.ndarray:
        """A random start that keeps every cell's own constraint: one variable of a one-hot
        cell set, or a domain wall's cell as a single wall (its first ``j`` variables set,
        for ``j`` drawn from 0 to their number)."""
        x = np.zeros(n)
        for c in self.cells:
            if not self.one_hot:
                x[c[:rng.integers(len(c) + 1)]] = 1.0
            else:
                x[c[rng.integers(len(c))]] = 1.0 if len(c) > 1 else float(rng.integers(2))
        return x

    def open_vars(self, x: np.ndarray, freed: np.ndarray) -> np.ndarray:
        """Per variable: True if it is a cell's current value, or no fixed variable set to 1
        shares a unit with it (so choosing it cannot conflict with the fixed part)."""
        if not len(self.unit_flat):
            return np.ones(len(x), bool)
        fixed_one = x[self.var_flat] * ~freed[self.cell_of[self.var_flat]]
        taken = np.bincount(self.unit_flat, fixed_one, len(self.units)) > 0
        blocked = np.bincount(self.var_flat, taken[self.unit_flat], len(x)) > 0
        return ~blocked | (x > 0.5)


@dataclass
class Run:
    """What every run of :class:`~qsudoku.samplers.dwave.decompose.DecomposeSampler` shares:
    its child sampler, ``subproblem_size``, ``max_calls``, ``energy_target``,
    ``time_limit`` (per run), the child's parameters, ``polish``, ``batch`` and the counts
    of every call (:func:`tally`, over all runs)."""

    child: object
    size: int
    max_calls: int
    target: float
    time_limit: float | None
    params: dict
    polish: bool
    batch: int
    stats: dict = field(default_factory=lambda: {
        "qpu_calls": 0, "max_subproblem_variables": 0, "longest_chain": 0,
        "estimated_qpu_access_time": 0.0, "qpu_access_time": 0.0, "accepted": 0,
        "chain_break_fraction": 0.0, "restarts": 0, "backjumps": 0, "subproblems": 0})

    def late(self, t0: float) -> bool:
        """True once the run started at ``t0`` (a :func:`time.perf_counter`) is out of time."""
        return self.time_limit is not None and time.perf_counter() - t0 > self.time_limit

    def call(self, subs: list, rng) -> list:
        """The answers of one child call on ``subs`` (polished), counted in :attr:`stats`;
        a child that takes ``seed`` gets one drawn from ``rng``."""
        params = dict(self.params)
        if "seed" in getattr(self.child, "parameters", {}):
            params["seed"] = int(rng.integers(2 ** 31))
        answers, info = sample_batch(self.child, subs, params)
        tally(self.stats, info, max(s.num_variables for s in subs), len(subs))
        return [descend(s, a) if self.polish and len(a) else a for s, a in zip(subs, answers)]


def sample_batch(child, subs: list, params: dict) -> tuple[list, dict]:
    """One call of ``child`` answering every subproblem in ``subs``; ``(answers, info)``.

    One subproblem is sent as it is.  Several are sent as one model, their disjoint union
    with variables ``Packed(j, i)`` (variable ``i`` of ``subs[j]``), which a clique-mode
    :class:`~qsudoku.samplers.dwave.QPUSampler` embeds in disjoint cliques
    (:func:`~qsudoku.samplers.dwave.qpu.clique_parts`) and any other sampler samples
    whole; each read is split into one read per subproblem.

    >>> import dimod
    >>> subs = [dimod.BQM({0: -1.0}, {}, 0.0, "BINARY"), dimod.BQM({0: 1.0, 1: -2.0}, {}, 0.0, "BINARY")]
    >>> answers, _ = sample_batch(dimod.ExactSolver(), subs, {})
    >>> [[int(b) for b in a.lowest().first.sample.values()] for a in answers]
    [[1], [0, 1]]
    """
    if len(subs) == 1:
        answer = child.sample(subs[0], **params)
        return [answer], answer.info
    union = dimod.BinaryQuadraticModel(dimod.BINARY)
    for j, sub in enumerate(subs):
        union.update(sub.relabel_variables({i: Packed(j, i) for i in sub.variables},
                                           inplace=False))
    answer = child.sample(union, **params)
    rows, order = answer.record.sample, {v: k for k, v in enumerate(answer.variables)}
    answers = []
    for j, sub in enumerate(subs):
        cols = [order[Packed(j, i)] for i in range(sub.num_variables)]
        answers.append(dimod.SampleSet.from_samples_bqm((rows[:, cols], range(sub.num_variables)),
                                                        sub))
    return answers, answer.info


def descend(sub, answer):
    """Each read of ``answer`` taken downhill to a local minimum of ``sub`` (greedy single flips)."""
    from dwave.samplers import SteepestDescentSolver

    return SteepestDescentSolver().sample(sub, initial_states=answer)


def tally(stats: dict, info, num_free: int, parts: int = 1) -> None:
    stats["qpu_calls"] += 1
    stats["subproblems"] = stats.get("subproblems", 0) + parts
    stats["max_subproblem_variables"] = max(stats["max_subproblem_variables"], num_free)
    stats["longest_chain"] = max(stats["longest_chain"], int(info.get("longest_chain", 0) or 0))
    stats["estimated_qpu_access_time"] += float(info.get("estimated_qpu_access_time", 0) or 0)
    stats["chain_break_fraction"] += float(info.get("chain_break_fraction", 0) or 0)
    timing = info.get("timing") or {}
    stats["qpu_access_time"] += float(timing.get("qpu_access_time", 0) or 0)
    if info.get("mock_timing"):
        stats["mock_timing"] = True
