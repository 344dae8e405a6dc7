"""``swap-tabu``: tabu search over the swap moves of the ``swap`` sampler.

It reads the same inputs as :mod:`.anneal`, starts every read from a random perfect
matching of each family unit, and keeps the cell and family groups satisfied by swapping
the digits of two cells of one unit.  Each iteration makes the best swap of a cell in
conflict that is not tabu (a digit a cell gave up stays forbidden to it for a few
iterations, unless taking it back reaches a new best), ranked on search weights that grow
for every broken conflict group each time no move improves (the breakout method,
:mod:`.tabu_kernel`); energies and samples are the BQM's own.  A read ends at energy 0 or
after ``stall`` iterations without a new best, and the next read starts afresh.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> ss = SwapTabuSampler().sample(m.bqm, groups=m.groups(), num_reads=3, seed=1)
>>> float(ss.first.energy), ss.info["family"]
(0.0, 'box')
"""

from __future__ import annotations

import time

import dimod

from qsudoku.checks import MAX_READS
from qsudoku.samplers.onehot import groups_of
from qsudoku.samplers.params import Bool, Int, Name, Real, Seed, TimeLimit, checked, parameters_of
from qsudoku.samplers.reads import (KernelSampler, as_binary, empty_sampleset, fresh_seed,
                                    num_threads, parallel_reads)
from qsudoku.samplers.swap.structure import (FAMILY_KINDS, compile_structure, finish_sampleset,
                                             kernel_args, run_batches)

__all__ = ["SwapTabuSampler"]


class SwapTabuSampler(KernelSampler, dimod.Sampler):
    """Tabu search with unit-preserving swap moves; a :class:`dimod.Sampler`.

    Args (of :meth:`sample`):
        groups: The model's labelled one-hot groups (default: recognised from the BQM).
        num_reads: Independent reads (tabu walks), each from a fresh random matching.
        tenure: A digit a cell gave up is tabu for it during ``tenure`` to
            ``2 * tenure`` iterations.
        stall: A read ends after this many iterations without a new best energy.
        bump: When no move lowers the search energy, each broken conflict group's
            search weight grows by ``bump`` times its weight (0 = plain tabu search).
        max_iters: Iterations at most per read.
        seed: Seed of the reads' generators (``None`` = fresh).
        time_limit: Seconds after which reads stop (``None`` = none).
        stop_at_ground: Stop every read once any read reaches energy 0.
        family: Unit kind whose units the moves keep as permutations (default the
            first of :data:`~qsudoku.samplers.swap.structure.FAMILY_KINDS` present).
    """

    #: What each parameter of :meth:`sample` takes, checked in this order on every call.
    _constraints = {"num_reads": Int(1, MAX_READS), "tenure": Int(0, 10**6),
                    "stall": Int(1, 10**12), "max_iters": Int(1, 10**12),
                    "bump": Real(0, 1e6, closed=True), "stop_at_ground": Bool(),
                    "seed": Seed(), "time_limit": TimeLimit(),
                    "family": Name("a unit kind (a string)")}
    properties = {"family_kinds": FAMILY_KINDS, "numba": None}

    _WARM_CALLS = ({"max_iters": 2},)

    @checked("swap-tabu")
    def sample(self, bqm, groups=None, num_reads: int = 10, tenure: int = 4,
               stall: int = 500, bump: float = 1.0, max_iters: int = 1_000_000, seed=None,
               time_limit=None, stop_at_ground: bool = False, family: str | None = None,
               **kwargs):
        t0 = time.perf_counter()
        name = "swap-tabu"
        if not bqm.num_variables:
            return empty_sampleset(bqm)
        from qsudoku.samplers.swap import tabu_kernel as K

        groups = groups_of(bqm, groups, name, time_limit, t0)
        bqm = as_binary(bqm)
        st = compile_structure(bqm, groups, family)
        t1 = time.perf_counter()
        seed = fresh_seed() if seed is None else seed
        swaps = kernel_args(st)
        knobs = K.Tabu(max_iters, tenure, stall, bump, seed, 1e-9, st.digit_pure,
                       bool(stop_at_ground))

        def reads(n, first, flags):
            return K.tabu_reads(swaps, knobs, n, first, flags)

        def run(n, first, deadline):  # -> per read: value slots, energy, steps, complete
            return parallel_reads(reads, n, first, deadline)

        # Reads are short, and threads wait for each other at the end of a batch: a batch
        # holds many reads per thread.
        batch = num_reads if time_limit is None else 32 * num_threads()
        vals, work, interrupted = run_batches(st, run, num_reads, batch, time_limit, t0,
                                              stop_at_ground)
        return finish_sampleset(bqm, st, vals, interrupted, t0, t1, num_reads,
                                iterations=work.tolist(), tenure=tenure, stall=stall,
                                bump=bump)

    parameters = parameters_of(sample)

