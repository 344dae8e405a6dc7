"""``aco``: an ant colony that builds consistent partial assignments over the one-hot groups.

The sampler reads only the BQM and its labelled one-hot groups (given, or recognised by
:func:`~qsudoku.samplers.onehot.find_groups`), checks that the BQM is the sum of their
one-hot penalties, and treats them as an exact cover.  Ants fill the ``cell`` groups one
by one, choosing by pheromone and propagating units after each choice (:mod:`.kernel`);
a cell whose candidates run out stays empty.  A read is one colony: the partial
assignment that fixed the most cells as a 0/1 sample (empty cells all 0), whose BQM
energy is 0 exactly at a ground state.  With ``tabu_moves``, a tabu search over partial
assignments goes on from each colony's record (:mod:`.partial`).

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> ss = AntColonySampler().sample(m.bqm, groups=m.groups(), num_reads=2, seed=1)
>>> float(ss.first.energy), ss.info["cells"]
(0.0, 13)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import dimod
import numpy as np

from qsudoku.checks import MAX_READS
from qsudoku.errors import ParameterError
from qsudoku.samplers.onehot import groups_of
from qsudoku.samplers.params import (Bool, Int, OrAuto, Real, Seed, TimeLimit, checked,
                                     parameters_of)
from qsudoku.samplers.penalty_fit import infer_weights
from qsudoku.samplers.reads import (KernelSampler, as_binary, empty_sampleset, fresh_seed,
                                    parallel_reads)

__all__ = ["AntColonySampler", "ExactCover", "compile_cover", "AUTO_REFUTE_VARIABLES",
           "AUTO_TABU_VARIABLES", "TABU_MOVES_PER_CELL", "refutes", "auto_tabu_moves"]

#: The model size from which ``refute="auto"`` makes every colony refute: more variables
#: than any 9x9 model has, so that a 9x9 solve never compiles the refuting ant
#: (``docs/big_grids.md`` compares them).
AUTO_REFUTE_VARIABLES = 1000
#: The model size from which ``tabu_moves="auto"`` makes every read one greedy construction
#: and then :data:`TABU_MOVES_PER_CELL` moves per cell of the tabu search of :mod:`.partial`:
#: more variables than any 25x25 grid has, so only loose grids from 36x36 up.
AUTO_TABU_VARIABLES = 20_000

#: Moves per cell of the tabu search of a read when ``tabu_moves="auto"`` chooses it.
TABU_MOVES_PER_CELL = 2000


@dataclass
class ExactCover:
    """A BQM's one-hot groups as index arrays for :mod:`.kernel`.

    Attributes:
        variables: BQM labels in index order.
        v_ptr, v_grp: Each variable's groups (CSR).
        g_ptr, g_var: Each group's variables (CSR).
        cells: Indices of the ``cell`` groups, in the order the ants visit them.
    """

    variables: list
    v_ptr: np.ndarray
    v_grp: np.ndarray
    g_ptr: np.ndarray
    g_var: np.ndarray
    cells: np.ndarray


def compile_cover(bqm, groups) -> ExactCover:
    """Index arrays of ``groups`` over ``bqm``'s variables, after checking the BQM.

    Raises:
        ParameterError: If ``groups`` is missing or has no ``cell`` group, names a variable
            not in the BQM, or the BQM is not the sum of one-hot penalties over them.
    """
    if not groups:
        raise ParameterError("aco: the sampler needs the model's one-hot groups: "
                         "sample(bqm, groups=[(kind, [labels...]), ...])")
    variables = list(bqm.variables)
    pos = {v: i for i, v in enumerate(variables)}
    kinds = [k for k, _ in groups]
    sizes = np.array([len(g) for _, g in groups], np.int64)
    try:
        members = np.fromiter((pos[v] for _, g in groups for v in g), np.int64, int(sizes.sum()))
    except KeyError as e:
        raise ParameterError(f"aco: a group names variable {e.args[0]!r}, which is not in the BQM") \
            from None
    if "cell" not in kinds:
        raise ParameterError("aco: the sampler needs 'cell' groups")
    g_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    V = len(variables)
    if V:
        gidx = [members[i:j] for i, j in zip(g_ptr[:-1], g_ptr[1:])]
        if infer_weights(bqm, variables, gidx, kinds, members, sizes.tolist()) is None:
            raise ParameterError("aco: the BQM is not a sum of one-hot penalties over the given groups")
    gid = np.repeat(np.arange(len(sizes)), sizes)
    order = np.argsort(members, kind="stable")
    v_ptr = np.searchsorted(members[order], np.arange(V + 1)).astype(np.int64)
    cells = np.array([i for i, k in enumerate(kinds) if k == "cell"], np.int64)
    return ExactCover(variables, v_ptr, gid[order].astype(np.int64), g_ptr, members, cells)


class AntColonySampler(KernelSampler, dimod.Sampler):
    """Ant colony construction over the one-hot groups; a :class:`dimod.Sampler`.

    Args (of :meth:`sample`):
        groups: The model's labelled one-hot groups (default: recognised from the BQM).
        num_reads: Colonies, each from fresh pheromone (spread over threads).
        num_ants: Ants per iteration.
        q0: Probability that an ant takes the highest-pheromone candidate.
        rho: Weight of the best-so-far ant's pheromone in the global update.
        evap: Best-value evaporation rate of the pheromone laid.
        xi: Local pheromone update rate (a choice pulls its pheromone back to the start).
        max_iters: Iterations at most per colony.
        stall: A colony ends after this many iterations without fixing more cells
            than before, and the next read starts a fresh one.
        refute: ``True``: an ant fills the open group with the fewest candidates first,
            undoes a choice whose propagation empties a group and rules its digit out
            (see :mod:`.learn`); ``False``: it visits the cells in grid order from a
            random start and never undoes a choice; ``"auto"`` (the default): ``True``
            on a model of at least :data:`AUTO_REFUTE_VARIABLES` variables
            (:func:`refutes`).
        blame: Weight of the fading blame of refuted digits in a refuting ant's choice.
        tabu_moves: Moves at most of a tabu search over partial assignments
            (:mod:`.partial`) that goes on from each colony's record when the colony
            ends without a ground state (0: none).  ``"auto"`` (the default): none below
            :data:`AUTO_TABU_VARIABLES` variables; from there every read is one
            iteration of plain ants (``max_iters`` and ``refute`` are not used) and then
            :data:`TABU_MOVES_PER_CELL` moves per cell (:func:`auto_tabu_moves`).
        seed: Seed of the colonies' generators (``None`` = fresh).
        time_limit: Seconds after which colonies stop (``None`` = none).
        stop_at_ground: Stop every colony once any colony fixes every cell.

    The defaults are what ``--sampler aco`` runs (the registry reads them from here).  The
    reads returned are the colonies that ended by themselves (a complete ant, ``stall`` or
    ``max_iters``); those cut short by another's complete ant are counted in
    ``info["cancelled"]``, so the valid fraction does not depend on the threads.  When the
    deadline stops every colony, the colonies that ran are returned.
    """

    #: What each parameter of :meth:`sample` takes, checked in this order on every call.
    _constraints = {"num_reads": Int(1, MAX_READS), "num_ants": Int(1, 10**4),
                    "max_iters": Int(1, 10**12), "stall": Int(1, 10**12),
                    "blame": Real(0, 1e12, closed=True), "q0": Real(0, 1, closed=True),
                    "rho": Real(0, 1, closed=True), "evap": Real(0, 1, closed=True),
                    "xi": Real(0, 1, closed=True),
                    "refute": OrAuto(Bool(), "must be true, false or 'auto'"),
                    "tabu_moves": OrAuto(Int(0, 10**15)), "stop_at_ground": Bool(),
                    "seed": Seed(), "time_limit": TimeLimit()}
    properties = {"numba": None}

    _WARM_CALLS = ({"max_iters": 2},)
    # (refute compiles the refuting ant, tabu_moves the tabu search)
    _KERNEL_PARAMS = ("refute", "tabu_moves")

    def kernel_params(self, chosen: dict, num_variables: int) -> dict:
        """``refute`` and ``tabu_moves`` as :meth:`sample` resolves ``"auto"`` on a model
        of ``num_variables`` variables (a tabu search of one move compiles its kernel).

        >>> s = AntColonySampler()
        >>> s.kernel_params({"refute": "auto", "tabu_moves": "auto"}, 729)
        {'refute': False, 'tabu_moves': 0}
        >>> s.kernel_params({"refute": "auto", "tabu_moves": "auto"}, 1800)
        {'refute': True, 'tabu_moves': 0}
        >>> s.kernel_params({"refute": "auto", "tabu_moves": "auto"}, 46_656)
        {'refute': False, 'tabu_moves': 1}
        """
        refute, tabu = chosen.get("refute", "auto"), chosen.get("tabu_moves", "auto")
        if isinstance(tabu, str) and tabu == "auto":
            tabu = min(1, auto_tabu_moves(num_variables, 1))
            if tabu:  # a read is a greedy construction and then the tabu search
                refute = False
        return {**chosen, "refute": refutes(refute, num_variables), "tabu_moves": tabu}

    @checked("aco")
    def sample(self, bqm, groups=None, num_reads: int = 1, num_ants: int = 10,
               q0: float = 0.9, rho: float = 0.9, evap: float = 0.005, xi: float = 0.1,
               max_iters: int = 10**9, stall: int = 150, refute="auto", blame: float = 1.0,
               tabu_moves="auto", seed=None, time_limit=None, stop_at_ground: bool = False,
               **kwargs):
        t0 = time.perf_counter()
        name = "aco"
        if not bqm.num_variables:
            return empty_sampleset(bqm, cells=0)
        from qsudoku.samplers.aco import kernel as K
        from qsudoku.samplers.aco.partial import partial_tabu

        groups = groups_of(bqm, groups, name, time_limit, t0)
        bqm = as_binary(bqm)
        cv = compile_cover(bqm, groups)
        t1 = time.perf_counter()
        seed = fresh_seed() if seed is None else seed
        deadline = np.inf if time_limit is None else t0 + time_limit
        cover = K.Cover(cv.v_ptr, cv.v_grp, cv.g_ptr, cv.g_var, cv.cells)
        root = K.root_state(cover)
        if tabu_moves == "auto":
            tabu_moves = auto_tabu_moves(len(cv.variables), len(cv.cells))
            if tabu_moves:  # a read is a greedy construction and then the tabu search
                max_iters, refute = 1, False
        refute = refutes(refute, len(cv.variables))
        knobs = K.Colony(seed, num_ants, max_iters, stall, q0, rho, evap, xi, blame)

        def colonies(n, first, flags):
            """Reads ``first .. first + n - 1``, one colony each, until a ground state
            (``flags[0]``, if asked) or the deadline (``flags[1]``); read 0 always runs
            at least one iteration."""
            runs = []
            for r in range(first, first + n):
                if r and ((stop_at_ground and flags[0]) or flags[1]
                          or time.perf_counter() > deadline):
                    break
                stop = flags[:1] if stop_at_ground else np.zeros(1, np.int64)
                chosen, fixed, its, ended = K.colony(
                    cover, root, knobs, r, flags[1:], stop,
                    np.zeros(root[0].shape[0]) if refute else None)
                made = 0
                if tabu_moves and ended:  # a tabu search goes on from the colony's record
                    chosen, empty, made = partial_tabu(cover, seed, r, chosen, root[0],
                                                       tabu_moves, flags[1:], stop)
                    fixed = len(cv.cells) - empty
                    ended = empty == 0 or made == tabu_moves
                runs.append((chosen, fixed, its, ended, made))
            return (np.array([o[0] for o in runs], np.int8).reshape(len(runs), nvar),
                    *(np.array([o[k] for o in runs], np.int64) for k in (1, 2)),
                    np.array([o[3] for o in runs], np.bool_),
                    np.array([o[4] for o in runs], np.int64))

        nvar = len(cv.variables)
        samples, fixed, iterations, complete, made = parallel_reads(colonies, num_reads, 0,
                                                                    deadline)
        # A colony that ended by itself is a read; one cut short by another's ground state
        # (stop_at_ground) or never started is not, as in the swap samplers.  Without a
        # finished colony (the deadline stopped them all), those that ran are the reads.
        ran = (iterations > 0) | complete
        ran[0] = True  # (read 0 always runs its first iteration)
        keep = complete if complete.any() else ran
        cancelled = int((ran & ~keep).sum())
        samples, fixed, iterations, complete, made = (
            x[keep] for x in (samples, fixed, iterations, complete, made))
        t2 = time.perf_counter()
        ss = dimod.SampleSet.from_samples_bqm((samples, cv.variables), bqm)
        ss.info.update(cells=len(cv.cells), fixed=fixed.tolist(),
                       iterations=iterations.tolist(), tabu_moves=made.tolist(),
                       interrupted=int((~complete).sum()), cancelled=cancelled,
                       num_reads=len(samples),
                       timing={"compile_structure": t1 - t0, "search": t2 - t1,
                               "total": time.perf_counter() - t0})
        return ss

    parameters = parameters_of(sample)


def auto_tabu_moves(num_variables: int, num_cells: int) -> int:
    """Moves of the tabu search per read that ``tabu_moves="auto"`` chooses (0: none).

    >>> auto_tabu_moves(AUTO_TABU_VARIABLES, 100), auto_tabu_moves(AUTO_TABU_VARIABLES - 1, 100)
    (200000, 0)
    """
    return TABU_MOVES_PER_CELL * num_cells if num_variables >= AUTO_TABU_VARIABLES else 0


def refutes(refute, num_variables: int) -> bool:
    """Whether the colonies refute, for a ``refute`` mode and a model's size.

    >>> refutes("auto", AUTO_REFUTE_VARIABLES), refutes("auto", 729), refutes(True, 1)
    (True, False, True)
    """
    if refute == "auto":
        return num_variables >= AUTO_REFUTE_VARIABLES
    return bool(refute)
