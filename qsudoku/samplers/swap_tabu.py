"""``swap-tabu``: tabu search over the swap moves of the ``swap`` sampler.

It reads the same inputs as :mod:`qsudoku.samplers.swap` (the BQM and its labelled
one-hot groups), starts every read from a random perfect matching of each family unit
(box, region or row), and keeps the cell and family groups satisfied by swapping the
digits of two cells of one unit.  Where ``swap`` anneals with random proposals, each
iteration here evaluates every swap that moves a cell in conflict and makes the best one
that is not tabu (a digit a cell gave up stays forbidden to it for a few iterations,
unless taking it back reaches a new best).  Moves are ranked on search weights that
grow, for every broken conflict group (rows, columns, diagonals: every group but the cells
and boxes), each time no move improves (the breakout method); energies and samples are
the BQM's own.  A read ends at energy 0 or
after ``stall`` iterations without a new best, and the next read starts afresh.

On the hardest shared 9x9 sets it reaches a valid grid 2-4x sooner than replica-exchange
annealing with the same moves, and it solves 16x16 puzzles the annealer does not (see
``docs/performance.md``); the annealing route uses it by default.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> ss = SwapTabuSampler().sample(m.bqm, groups=m.groups(), num_reads=3, seed=1)
>>> float(ss.first.energy), ss.info["family"]
(0.0, 'box')
"""

from __future__ import annotations

import functools
import time

from qsudoku.errors import ParameterError
from qsudoku.samplers.registry import register
from qsudoku.samplers.swap_structure import (FAMILY_KINDS, KernelSampler, _kernel_args, _threads, as_binary,
                             compile_structure, finish_sampleset, fresh_seed, parallel_reads,
                             run_batches)

__all__ = ["SwapTabuSampler"]


@functools.cache
def _sampler_class():
    import dimod

    class SwapTabuSampler(KernelSampler, dimod.Sampler):
        """Tabu search with unit-preserving swap moves; a :class:`dimod.Sampler`.

        Args (of :meth:`sample`):
            groups: The model's labelled one-hot groups (required).
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
                first of :data:`~qsudoku.samplers.swap_structure.FAMILY_KINDS` present).
        """

        parameters = {"groups": [], "num_reads": [], "tenure": [], "stall": [], "bump": [],
                      "max_iters": [], "seed": [], "time_limit": [], "stop_at_ground": [],
                      "family": []}
        properties = {"family_kinds": FAMILY_KINDS, "numba": None}

        _WARM_CALLS = ({"max_iters": 2},)

        def sample(self, bqm, groups=None, num_reads: int = 10, tenure: int = 4,
                   stall: int = 500, bump: float = 1.0, max_iters: int = 1_000_000, seed=None,
                   time_limit=None, stop_at_ground: bool = False, family: str | None = None,
                   **kwargs):
            from qsudoku.samplers import _tabu_kernel as K

            t0 = time.perf_counter()
            if kwargs:
                raise ParameterError(f"unknown parameter(s) {sorted(kwargs)}")
            try:
                num_reads, tenure, stall, max_iters = (int(num_reads), int(tenure), int(stall),
                                                       int(max_iters))
                bump = float(bump)
            except (TypeError, ValueError) as e:
                raise ParameterError(f"num_reads, tenure, stall, max_iters and bump must be "
                                     f"numbers: {e}") from None
            if num_reads < 1 or stall < 1 or max_iters < 1 or tenure < 0:
                raise ParameterError(f"num_reads, stall and max_iters must be >= 1 and tenure >= 0, "
                                 f"got {num_reads}, {stall}, {max_iters}, {tenure}")
            if not 0 <= bump < float("inf"):
                raise ParameterError(f"bump = {bump!r} must be a finite number >= 0")
            if time_limit is not None and not time_limit > 0:
                raise ParameterError(f"time_limit = {time_limit!r} must be > 0")
            bqm = as_binary(bqm)
            st = compile_structure(bqm, groups, family)
            t1 = time.perf_counter()
            seed = fresh_seed() if seed is None else int(seed)
            args = _kernel_args(st)

            def reads(n, first, flags):
                return K.tabu_reads(n, max_iters, tenure, stall, bump, seed, 1e-9, first, flags,
                                    *args, st.arrays["vgw"], st.digit_pure, bool(stop_at_ground))

            def run(n, first, deadline):  # -> per read: value slots, energy, steps, complete
                return parallel_reads(reads, n, first, deadline)

            # Reads are short: a batch holds many per thread (a read that finds the ground
            # state stops the others in its batch when stop_at_ground is set).  Threads wait
            # for each other at the end of a batch, so batches are long: with 4 reads per
            # thread the route's median on forum_hardest was 21.5 ms, with 32 18.5 ms.
            batch = num_reads if time_limit is None else 32 * _threads()
            vals, work, interrupted = run_batches(st, run, num_reads, batch, time_limit, t0,
                                                  stop_at_ground)
            return finish_sampleset(bqm, st, vals, interrupted, t0, t1, num_reads,
                                    iterations=work.tolist(), tenure=tenure, stall=stall,
                                    bump=bump)

    return SwapTabuSampler


def SwapTabuSampler():  # noqa: N802 - factory of a lazily defined class
    """A :class:`dimod.Sampler`: tabu search with unit-preserving swaps (needs ``groups``)."""
    return _sampler_class()()


@register("swap-tabu", summary="annealing-route sampler: tabu search over digit swaps inside "
          "boxes/regions (keeps one-hot groups; numba)",
          defaults={"num_reads": 16, "tenure": 4, "stall": 500, "bump": 1.0,
                    "stop_at_ground": True})
def _swap_tabu(**options):
    return SwapTabuSampler(**options)
