"""``decompose``: the reduced QUBO solved by a stream of QPU-sized subproblems.

A hard 9x9 leaves a few hundred variables; embedded whole, its chains grow too long for
a QPU to return valid reads.  :class:`DecomposeSampler` instead keeps one complete
assignment and repeatedly

1. picks a set of one-hot *cells* to free (at most ``subproblem_size`` variables; the
   classical part, see below), fixes every other variable at its current value,
2. sends the subproblem (the model with the fixed variables folded into linear
   biases) to a QPU sampler, which embeds it in a cached clique embedding of its size
   (:func:`qsudoku.samplers.dwave.cliques.clique_embedding`: no embedding search per call),
3. takes each read downhill with greedy single flips (``polish``; the mock QPU's
   answers on krazydad_5_tough[0] were accepted 23 times in 150 calls without it,
   and it stalled at energy 14; with it the puzzle was solved in 67 calls), then the
   lowest-energy answer if it does not raise the energy (a *large neighbourhood
   search* whose moves are QPU calls).

It stops at ``energy_target`` (0: a valid grid) or after ``max_calls`` QPU calls.
Equal-energy answers are accepted, so the state drifts along plateaus.
Freeing whole cells keeps the one-hot structure: a cell is never half fixed.  How the
cells are chosen (``strategy``; the default ``auto`` is ``construct``, unless the groups are a
domain wall's cells alone, with no candidate slots to propagate over: then ``energy``):

- ``construct``: a different search, in :mod:`.construct`: a consistent
  *partial* assignment grown by the QPU calls with singles propagation over the groups
  after every chosen digit; a contradiction refutes the digit, undoes the last call
  (``backjump``) or restarts, and blames its digits in later subproblems (``memory``).
  On a domain-wall model it
  propagates over the candidate slots its groups list and sends each subproblem in walls
  (:mod:`.walls`): ``m - 1`` variables for a freed cell of ``m`` open digits, and
  ``subproblem_size`` counts walls, so a call frees more cells than in one-hot;
- ``energy``: the cells whose current value has the most energy (hybrid's energy
  impact, by cell), grown through the units they share, cells in random order until the
  budget is used.  (Two more ways of choosing, from a violated unit or a random one, and
  breakout weights at local minima stalled at energy 4-10 and were removed: see
  ``docs/tried.md``.)

Each call answers ``batch`` subproblems (default 8; 1: one per call), all
chosen from the same state (for ``construct``: the narrowest open cell and its units, from
``batch`` tie-broken starts; for ``energy``: ``batch`` draws).  They go out
as one model, their disjoint union with variables ``(j, i)``, which the clique-mode QPU
sampler places on as many disjoint clique embeddings (:mod:`.cliques`: packed once per graph,
size and count, never searched per call), and each read is split back into one read per subproblem
(:func:`~qsudoku.samplers.dwave.subproblems.sample_batch`).  ``construct`` takes, of the
answers whose digits propagate without a contradiction, the one that chooses most digits
(a contradiction only if none chooses a digit and one contradicts; a call that chooses
nothing retries its state); ``energy`` takes the answer with the largest gain.  A batched call is one QPU problem: its estimated access time is one call's
with all its qubits (about 18 ms for 8 x 64 variables and 10 reads against 17.5 ms for one),
so the calls, not the subproblems, are what a run is billed for.  Measured with
``qsudoku bench --spec benchmarks/studies/decompose.toml`` (then ``benchmarks/decompose.py``)
(mock QPU, seed = puzzle index; ``benchmarks/results/decompose.txt``), with 8 a call: all
of the first 100 forum_hardest_1106 in a median of 21 calls (at most 319) and 0.37 s of
estimated QPU access, against 50 calls (at most 860) and 0.88 s with one a call; all 61 of
norvig_top95 in a median of 1 call (at most 28).

A call carries no more subproblems than disjoint cliques of ``subproblem_size`` variables
(the model's, if fewer; rounded up to a multiple of 8) fit the QPU graph: the batch used is the largest that fits,
at most ``batch``, found once per graph and size (``info["batch"]``, with
``info["batch_requested"]`` when it is lower), and a ``subproblem_size`` whose one clique
does not fit is a :class:`~qsudoku.errors.BackendUnavailableError` before any call.  Of
64 variables, Pegasus P16 (Advantage, the mock's default) holds 8 cliques (chains of at
most 7 qubits), Zephyr Z(12,4) (Advantage2) 7 (chains of 6), Z(6,4) (the Advantage2
prototype) 2 and Chimera C16 (2000Q) 1 (chains of 17); on the mocks::

    from qsudoku.samplers.dwave.cliques import copies_that_fit
    from qsudoku.samplers.dwave.qpu import mock_child
    print([copies_that_fit(64, mock_child(*g), copies=16) for g in [("pegasus", 16),
           ("zephyr", (12, 4)), ("zephyr", (6, 4)), ("chimera", (16, 16, 4))]])  # [8, 7, 2, 1]

Sampling parameters the QPU sampler accepts (``num_sweeps`` and ``seed`` of the mock,
``annealing_time``, ``chain_strength`` ...) are passed to every call; ``qpu_reads`` is its
``num_reads``.  All of them are checked before any work
(:func:`~qsudoku.samplers.dwave.checks.check_decompose`).  ``info`` reports the QPU calls,
the subproblems (in all and per call), the largest subproblem, the longest chain, and the
estimated QPU access time (D-Wave's timing model, summed over calls).

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

from qsudoku.errors import ConfigError, ParameterError
from qsudoku.samplers.dwave.checks import DECOMPOSE_PARAMS, DECOMPOSE_STRATEGIES, check_decompose
from qsudoku.samplers.dwave.construct import construct_run
from qsudoku.samplers.dwave.subproblems import descend, sample_batch, SubModel, SubStructure, tally
from qsudoku.samplers.dwave.cloud import plain
from qsudoku.samplers.dwave.walls import WallCode
from qsudoku.checks import need_finite_bqm

__all__ = ["DecomposeSampler", "decompose_sampler", "choose_cells", "STRATEGIES", "QPU_SAMPLERS"]

STRATEGIES = DECOMPOSE_STRATEGIES
#: Registry names usable as ``qpu_sampler`` (the child that samples each subproblem).
QPU_SAMPLERS = ("qpu", "mock-qpu", "hybrid")
_OWN = DECOMPOSE_PARAMS


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
        self.parameters = {k: [] for k in _OWN}
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
        check_decompose("decompose", dict(
            child_params, num_reads=num_reads, subproblem_size=subproblem_size,
            strategy=strategy, max_calls=max_calls, qpu_reads=qpu_reads, seed=seed,
            energy_target=energy_target, time_limit=time_limit, polish=polish, backjump=backjump, memory=memory, refute=refute, batch=batch))
        unknown = sorted(set(child_params) - set(getattr(self.child, "parameters", {})))
        if unknown:
            raise ParameterError(f"decompose: unknown parameter(s) {', '.join(unknown)}; it "
                                 f"accepts: {', '.join(sorted(self.parameters))}")
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
        stats = {"qpu_calls": 0, "max_subproblem_variables": 0, "longest_chain": 0,
                 "estimated_qpu_access_time": 0.0, "qpu_access_time": 0.0, "accepted": 0,
                 "chain_break_fraction": 0.0, "restarts": 0, "backjumps": 0, "subproblems": 0}
        samples, energies, calls = [], [], []
        for _ in range(num_reads):
            if strategy == "construct":
                x, used = construct_run(self, code.model if code else model,
                                        code.structure if code else structure, rng,
                                        subproblem_size, max_calls, energy_target, time_limit,
                                        child_params, stats, polish, backjump=backjump,
                                        memory=memory, refute=bool(refute), batch=batch,
                                        code=code)
                x = code.sample_of(x) if code else x
                samples.append(x.astype(np.int8))
                energies.append(model.energy(x))
                calls.append(used)
                continue
            x, used = self._run(model, structure, rng, subproblem_size, max_calls,
                                energy_target, time_limit, child_params, stats, polish, batch)
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

    def _run(self, model, structure, rng, size, max_calls, target, time_limit, child_params,
             stats, polish, batch):
        """One run of the ``energy`` strategy: a large neighbourhood search over a complete
        assignment."""
        x = structure.initial(model.n, rng)
        energy = model.energy(x)
        t0, used = time.perf_counter(), 0
        takes_seed = "seed" in getattr(self.child, "parameters", {})
        while energy > target + 1e-9 and used < max_calls:
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                break
            frees = [choose_cells(structure, model, x, size, rng) for _ in range(batch)]
            frees = [free for free in frees if len(free)]
            if not frees:
                break
            subs = [model.subproblem(free, x) for free in frees]
            params = dict(child_params)
            if takes_seed:
                params["seed"] = int(rng.integers(2 ** 31))
            answers, info = sample_batch(self.child, subs, params)
            used += 1
            tally(stats, info, max(map(len, frees)), len(subs))
            gains = []  # per subproblem: (energy change of its best answer, its answer)
            for sub, free, answer in zip(subs, frees, answers):
                if polish and len(answer):
                    answer = descend(sub, answer)
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
                stats["accepted"] += 1
        return x, used


def decompose_sampler(qpu_sampler: str = "qpu", **options):
    """``decompose``: :class:`DecomposeSampler` over the registered ``qpu_sampler``."""
    from qsudoku.samplers.registry import get_sampler

    if not isinstance(qpu_sampler, str) or qpu_sampler not in QPU_SAMPLERS:
        raise ConfigError(f"qpu_sampler = {qpu_sampler!r}; choose from {', '.join(QPU_SAMPLERS)}")
    child = get_sampler(qpu_sampler, **options)
    if qpu_sampler != "hybrid":
        child.clique = True
    return DecomposeSampler(child)
