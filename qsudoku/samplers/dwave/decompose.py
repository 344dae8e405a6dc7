"""``decompose``: the reduced QUBO solved by a stream of QPU-sized subproblems.

A hard 9x9 leaves a few hundred variables; embedded whole, its chains grow too long for
a QPU to return valid reads.  :class:`DecomposeSampler` frees whole one-hot *cells* (at
most ``subproblem_size`` variables, so a cell is never half fixed), folds every other
variable into the linear biases, and sends the subproblem to a QPU sampler that embeds it
in a cached clique embedding of its size (:mod:`.cliques`: no embedding search per call).
Each read is first taken downhill with greedy single flips (``polish``).  A run stops at
``energy_target`` (0: a valid grid) or after ``max_calls`` calls.  How cells are chosen
(``strategy``; ``auto`` is ``construct``, unless the groups are a domain wall's cells
alone, with no candidate slots to propagate over: then ``energy``):

- ``construct`` (:mod:`.construct`): a consistent *partial* assignment grown by the calls,
  singles propagated after every chosen digit; on a domain-wall model over the candidate
  slots its groups list, each subproblem sent in walls (:mod:`.walls`, so
  ``subproblem_size`` counts walls);
- ``energy``: a large neighbourhood search over a complete assignment: the cells whose
  value has the most energy, grown through the units they share, and the best answer
  taken if it does not raise the energy (so the state drifts along plateaus).

Each call answers ``batch`` subproblems chosen from the same state as one QPU problem on
disjoint cliques (:func:`~qsudoku.samplers.dwave.subproblems.sample_batch`): the calls,
not the subproblems, are what a run is billed for.  ``construct`` keeps, of the answers
whose digits propagate without a contradiction, the one that chooses most digits;
``energy`` the one of largest gain.  The batch used is the most cliques of
``subproblem_size`` (rounded up to a multiple of 8) that fit the QPU graph, at most
``batch`` (``info["batch"]``, with ``info["batch_requested"]`` when lower); a size whose
one clique does not fit is a :class:`~qsudoku.errors.BackendUnavailableError` before any
call.

Parameters the QPU sampler accepts (``num_sweeps`` and ``seed`` of the mock,
``annealing_time``, ``chain_strength`` ...) are passed to every call, ``qpu_reads`` as its
``num_reads``; all are checked before any work
(:func:`~qsudoku.samplers.dwave.checks.check_decompose`).  ``info`` reports the calls, the
subproblems (in all and per call), the largest subproblem, the longest chain, and the
estimated QPU access time (summed over calls).

>>> import dimod
>>> bqm = dimod.BQM({"a": -1.0, "b": -1.0, "c": -2.0}, {"ab": 2.0, "bc": 2.0, "ac": 2.0}, 1.0, "BINARY")
>>> ss = DecomposeSampler(dimod.ExactSolver()).sample(bqm, groups=[("cell", ["a", "b", "c"])],
...                                                   subproblem_size=3, seed=1, energy_target=-1,
...                                                   batch=1)
>>> float(ss.first.energy), ss.info["qpu_calls"], ss.info["max_subproblem_variables"]
(-1.0, 1, 3)
"""

from __future__ import annotations

import time

import dimod
import numpy as np

from qsudoku.errors import ParameterError
from qsudoku.samplers.dwave.checks import (DECOMPOSE_PARAMS, DECOMPOSE_STRATEGIES, check_decompose,
                                           refuse_unknown)
from qsudoku.samplers.dwave.construct import construct_run
from qsudoku.samplers.dwave.subproblems import Run, SubModel, SubStructure
from qsudoku.samplers.dwave.cloud import plain
from qsudoku.samplers.dwave.qpu import subproblem_child
from qsudoku.samplers.dwave.walls import WallCode
from qsudoku.checks import need_finite_bqm

__all__ = ["DecomposeSampler", "decompose_sampler", "choose_cells", "STRATEGIES", "QPU_SAMPLERS"]

STRATEGIES = DECOMPOSE_STRATEGIES
#: Registry names usable as ``qpu_sampler`` (the child that samples each subproblem).
QPU_SAMPLERS = ("qpu", "mock-qpu", "hybrid")


def choose_cells(structure: SubStructure, model: SubModel, x, size: int, rng) -> np.ndarray:
    """The variables to free (the ``energy`` strategy): cells grown unit by unit from a unit
    of the cell of most energy; of each freed cell its current value and the values no fixed
    cell rules out; at most ``size`` variables."""
    cost = model.field(x) * x
    per_cell = np.array([cost[c].sum() for c in structure.cells])
    per_cell += rng.random(len(per_cell)) * 1e-6 * (1 + np.abs(per_cell).max())
    seeds = list(structure.units_of_cell[int(np.argmax(per_cell))]) or [0]
    start = seeds[rng.integers(len(seeds))]
    freed = np.zeros(len(structure.cells), bool)
    order: list[int] = []
    seen_units, frontier = {start}, [start]
    is_open = structure.open_vars(x, freed)
    budget = size
    while frontier and budget > 0:
        unit = frontier.pop(0)
        for k in rng.permutation(structure.cells_of_unit[unit]):
            cost = int(is_open[structure.cells[k]].sum())
            if not freed[k] and cost <= budget:
                freed[k] = True
                order.append(int(k))
                budget -= cost
        is_open = structure.open_vars(x, freed)
        budget = size - sum(int(is_open[structure.cells[k]].sum()) for k in order)
        nxt = list({j for k in order for j in structure.units_of_cell[k]} - seen_units)
        for j in rng.permutation(nxt) if nxt else ():
            seen_units.add(int(j))
            frontier.append(int(j))
    while order and budget < 0:  # freeing more cells opened more values: drop the last cells
        freed[order.pop()] = False
        is_open = structure.open_vars(x, freed)
        budget = size - sum(int(is_open[structure.cells[k]].sum()) for k in order)
    if not order:
        return np.zeros(0, np.int64)
    free = np.concatenate([structure.cells[k] for k in order])
    return np.sort(free[is_open[free]])


class DecomposeSampler(dimod.Sampler):
    """Large neighbourhood search whose moves are QPU calls on subproblems (see module doc).

    Args:
        child: The sampler of each subproblem: a :class:`~qsudoku.samplers.dwave.QPUSampler`
            with ``clique=True``, a Leap hybrid sampler, or any :class:`dimod.Sampler`.
    """

    parameters = None
    properties = None

    def __init__(self, child):
        self.child = child
        self.parameters = {k: [] for k in DECOMPOSE_PARAMS}
        self.parameters.update({k: [] for k in getattr(child, "parameters", {}) if k != "num_reads"})
        # Any encoding: a domain wall's cells are freed whole; construct reads its slots
        # (QuboModel.groups()), energy grows units through the interactions.
        self.properties = {"child_properties": getattr(child, "properties", {}),
                           "strategies": list(STRATEGIES), "any_encoding": True,
                           "wall_time_limit": True}  # time_limit: wall seconds, not billed

    def sample(self, bqm, groups=None, num_reads=1, subproblem_size=64, strategy="auto",
               max_calls=2000, qpu_reads=10, seed=None, energy_target=0.0, time_limit=None,
               polish=True, backjump=3, memory=1.0, refute=True, batch=8, **child_params):
        """One decomposition run per read; returns a :class:`dimod.SampleSet` over ``bqm``'s variables.

        Args:
            bqm: The model.
            groups: ``[(kind, labels), ...]`` one-hot groups; ``"cell"`` groups are freed
                whole; a domain wall's are ``"wall"`` cells, then the one-hot groups of its
                candidate slots (:meth:`qsudoku.model.qubo.QuboModel.groups`).
            num_reads: Independent runs (each gives one read).
            subproblem_size: Most variables per subproblem.
            strategy: One of :data:`STRATEGIES` (``auto``: ``construct``, or ``energy``
                on domain-wall groups without candidate slots).
            max_calls: Most QPU calls per run.
            qpu_reads: ``num_reads`` of each QPU call (the child's default if ``None``).
            seed: Seeds the choices and, if the child takes ``seed``, each of its calls.
            energy_target: Stop a run at this energy (0: a valid qsudoku grid).
            time_limit: Wall seconds per run (``None``: no limit).
            polish: Take each read of every answer downhill (greedy single flips on the
                subproblem, as D-Wave's post-processing does) before choosing the best.
            backjump: ``construct``: calls retried from a state before undoing the call
                that led to it (0: restart from the root on every contradiction).
            memory: ``construct``: linear bias per unit of a digit's contradiction blame
                (0: no memory across backjumps and restarts).
            refute: ``construct``: undo and rule out a digit whose propagation contradicts.
            batch: Subproblems per QPU call, chosen from the same state and packed into one
                call on disjoint clique embeddings; the best answer is taken (1: one
                subproblem per call).
            **child_params: Passed to every child call.
        """
        own = {k: v for k, v in locals().items() if k in DECOMPOSE_PARAMS and k != "groups"}
        check_decompose("decompose", {**child_params, **own})
        refuse_unknown("decompose", child_params, getattr(self.child, "parameters", {}),
                       self.parameters)
        need_finite_bqm(bqm, sampler="decompose")
        if not bqm.num_variables:
            return dimod.SampleSet.from_samples(([], []), bqm.vartype, [],
                                                info={"qpu_calls": 0, "strategy": strategy})
        model = SubModel(bqm)
        structure = SubStructure(model, groups)
        code = None  # a domain wall's slots, when its groups list them (QuboModel.groups())
        if (not structure.one_hot and strategy in ("auto", "construct")
                and any(kind != "wall" for kind, _ in groups)):
            code = WallCode(bqm, groups)
        if strategy == "auto":
            strategy = "construct" if structure.one_hot or code else "energy"
        if strategy == "construct" and not structure.one_hot and code is None:
            raise ParameterError("decompose: strategy 'construct' propagates over one-hot "
                                 "groups, and these domain-wall groups list no candidate "
                                 "slots; pass QuboModel.groups(), or use strategy = "
                                 "energy")
        fit = getattr(self.child, "fit_batch", None)  # a clique-mode QPU: what fits its graph
        requested, batch = batch, fit(min(subproblem_size, model.n), batch) if fit else batch
        rng = np.random.default_rng(seed)
        if qpu_reads is not None and "num_reads" in getattr(self.child, "parameters", {}):
            child_params["num_reads"] = qpu_reads
        run = Run(self.child, subproblem_size, max_calls, energy_target, time_limit,
                  child_params, polish, batch)
        stats = run.stats
        samples, energies, calls = [], [], []
        for _ in range(num_reads):
            if strategy == "construct":
                x, used = construct_run(run, code.model if code else model,
                                        code.structure if code else structure, rng, backjump,
                                        memory, bool(refute), code)
                x = code.sample_of(x) if code else x
            else:
                x, used = energy_run(run, model, structure, rng)
            samples.append(x.astype(np.int8))
            energies.append(model.energy(x))
            calls.append(used)
        ss = dimod.SampleSet.from_samples((np.array(samples).reshape(len(samples), model.n),
                                           model.labels), dimod.BINARY, energies,
                                          qpu_calls=calls)
        if bqm.vartype is dimod.SPIN:
            ss = ss.change_vartype(dimod.SPIN)
        if stats["qpu_calls"]:  # a mean over the calls, as the QPU sampler reports one call's
            stats["chain_break_fraction"] /= stats["qpu_calls"]
        stats["subproblems_per_call"] = round(stats["subproblems"] / max(stats["qpu_calls"], 1), 3)
        ss.info.update(plain(stats), strategy=strategy, subproblem_size=subproblem_size,
                       batch=batch)
        if batch < requested:
            ss.info["batch_requested"] = requested
        return ss


def energy_run(run: Run, model: SubModel, structure: SubStructure, rng):
    """One run of the ``energy`` strategy: a large neighbourhood search over a complete
    assignment; returns ``(x, calls)``."""
    x = structure.initial(model.n, rng)
    energy = model.energy(x)
    t0, used = time.perf_counter(), 0
    while energy > run.target + 1e-9 and used < run.max_calls and not run.late(t0):
        frees = [choose_cells(structure, model, x, run.size, rng) for _ in range(run.batch)]
        frees = [free for free in frees if len(free)]
        if not frees:
            break
        subs = [model.subproblem(free, x) for free in frees]
        answers = run.call(subs, rng)
        used += 1
        gains = []  # per subproblem: (energy change of its best answer, its answer)
        for sub, free, answer in zip(subs, frees, answers):
            if len(answer):
                best = answer.lowest().first
                gains.append((best.energy - sub.energy({i: x[f] for i, f in enumerate(free)}),
                              free, best))
        if not gains:
            continue
        gain, free, best = min(gains, key=lambda g: g[0])
        y = np.fromiter((best.sample[i] for i in range(len(free))), float, len(free))
        if gain <= 1e-9:
            x[free] = y
            energy = model.energy(x)
            run.stats["accepted"] += 1
    return x, used


def decompose_sampler(qpu_sampler: str = "qpu", **options):
    """``decompose``: :class:`DecomposeSampler` over the registered ``qpu_sampler``."""
    return DecomposeSampler(subproblem_child(qpu_sampler, QPU_SAMPLERS, options))
