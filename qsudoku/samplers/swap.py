"""``swap``: an annealer whose moves keep the one-hot groups a sample already satisfies.

The sampler reads only the BQM and its labelled one-hot groups (``groups=[(kind,
[labels...]), ...]``, as :meth:`qsudoku.model.qubo.QuboModel.groups` gives them).  It picks a
*family* of unit groups that partitions the open cells (kind ``box`` or ``region`` when
present, else ``row``), starts every read from a random perfect matching of each family
unit (each cell one candidate digit, each unit a permutation of its missing digits) and
anneals with moves that swap the digits of two cells of the same unit, both digits being
candidates of both cells.  Cell groups and family groups thus stay satisfied, and the
energy, ``sum_g w_g (sum q - 1)**2`` over the other groups (rows, columns, extra units),
is exactly the BQM energy: the group weights are read off the BQM and checked against it.

Samples are returned in the BQM's variables with energies computed by the BQM itself.

>>> import dimod
>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> ss = SwapAnnealingSampler().sample(m.bqm, groups=m.groups(), num_reads=3, seed=1)
>>> isinstance(ss, dimod.SampleSet), float(ss.first.energy)
(True, 0.0)
"""

from __future__ import annotations

import functools
import time

import numpy as np

from qsudoku.errors import ParameterError
from qsudoku.samplers.registry import register
from qsudoku.samplers.swap_structure import (FAMILY_KINDS, KernelSampler, SwapStructure, _kernel_args, _threads,
                             as_binary, compile_structure, finish_sampleset, fresh_seed,
                             parallel_reads, run_batches)

__all__ = ["SwapAnnealingSampler", "SwapStructure", "compile_structure", "FAMILY_KINDS"]


@functools.cache
def _sampler_class():
    import dimod

    class SwapAnnealingSampler(KernelSampler, dimod.Sampler):
        """Annealing with unit-preserving swap moves; a :class:`dimod.Sampler`.

        Args (of :meth:`sample`):
            groups: The model's labelled one-hot groups (required).
            num_reads: Independent reads, each from a fresh random matching.
            num_sweeps: Sweeps per read (a sweep = one proposal per movable cell).
            beta_range: ``(hot, cold)`` inverse temperatures, in units of the lightest
                group weight; default ``(2.5, 5.0)`` (temperature 0.4 -> 0.2).
            beta_schedule_type: ``"geometric"`` (in temperature) or ``"linear"`` (in beta).
            num_replicas: ``1`` = plain annealing; ``> 1`` = replica exchange with that many
                temperatures spread geometrically over ``beta_range`` for ``num_sweeps`` sweeps.
            seed: Seed of the reads' generators (``None`` = fresh).
            time_limit: Seconds after which no new batch of reads starts (``None`` = none).
            stop_at_ground: Stop every read once any read reaches energy 0.
            focus: Redraw the first cell of a swap up to this many times until it lies in a
                conflict (min-conflicts bias); 0 = uniform proposals.
            family: Unit kind whose units the moves keep as permutations (any kind that
                partitions the open cells: ``box``, ``region``, ``row``, ``column``);
                default the first of :data:`FAMILY_KINDS` present.
        """

        parameters = {"groups": [], "num_reads": [], "num_sweeps": [], "beta_range": [],
                      "beta_schedule_type": [], "num_replicas": [], "seed": [],
                      "time_limit": [], "stop_at_ground": [], "focus": [], "family": []}
        properties = {"family_kinds": FAMILY_KINDS, "numba": None}

        _WARM_CALLS = ({"num_sweeps": 2, "num_replicas": 1}, {"num_sweeps": 2, "num_replicas": 2})

        def sample(self, bqm, groups=None, num_reads: int = 10, num_sweeps: int = 20000,
                   beta_range=(2.5, 5.0), beta_schedule_type: str = "geometric",
                   num_replicas: int = 1, seed=None, time_limit=None,
                   stop_at_ground: bool = False, focus: int = 0, family: str | None = None,
                   **kwargs):
            from qsudoku.samplers import _swap_kernel as K

            t0 = time.perf_counter()
            if kwargs:
                raise ParameterError(f"unknown parameter(s) {sorted(kwargs)}")
            try:
                num_reads, num_sweeps, num_replicas = (int(num_reads), int(num_sweeps),
                                                       int(num_replicas))
                hot, cold = (float(x) for x in (beta_range or (2.5, 5.0)))
            except (TypeError, ValueError) as e:
                raise ParameterError(f"num_reads, num_sweeps and num_replicas must be integers "
                                     f"and beta_range two numbers: {e}") from None
            if num_reads < 1 or num_sweeps < 1 or num_replicas < 1:
                raise ParameterError(f"num_reads, num_sweeps and num_replicas must be >= 1, got "
                                 f"{num_reads}, {num_sweeps}, {num_replicas}")
            if not 0 < hot <= cold < float("inf"):  # beta_range None: the default (2.5, 5.0)
                raise ParameterError(f"beta_range = {beta_range!r} must be 0 < hot <= cold")
            if beta_schedule_type not in ("geometric", "linear"):
                raise ParameterError(f"beta_schedule_type = {beta_schedule_type!r}: "
                                 "use 'geometric' or 'linear'")
            if time_limit is not None and not time_limit > 0:
                raise ParameterError(f"time_limit = {time_limit!r} must be > 0")
            bqm = as_binary(bqm)
            st = compile_structure(bqm, groups, family)
            t1 = time.perf_counter()
            if seed is None:
                seed = fresh_seed()
            scale = st.weight_scale
            n_b = num_replicas if num_replicas > 1 else num_sweeps
            if beta_schedule_type == "geometric":  # geometric in temperature
                temps = np.geomspace(1 / hot, 1 / cold, n_b)
                betas = 1.0 / temps
            else:
                betas = np.linspace(hot, cold, n_b)
            betas = betas / scale
            args = _kernel_args(st)

            def reads(n, first, flags):
                return _run(K, num_replicas, n, betas, num_sweeps, seed, first, flags, args,
                            stop_at_ground, focus)

            def run(n, first, deadline):
                bv, be, sw = parallel_reads(reads, n, first, deadline)
                return bv, be, sw, (sw >= num_sweeps) | (be <= 1e-9)

            vals, work, interrupted = run_batches(st, run, num_reads, num_reads if time_limit is None
                                                  else _threads(), time_limit, t0, stop_at_ground)
            return finish_sampleset(bqm, st, vals, interrupted, t0, t1, num_reads, sweeps=work.tolist(),
                                    num_sweeps=num_sweeps, num_replicas=num_replicas)

    return SwapAnnealingSampler


def _run(K, num_replicas, n, betas, num_sweeps, seed, first, flags, args, stop_at_ground, focus):
    if num_replicas > 1:
        return K.temper_reads(n, betas, num_sweeps, int(seed), 1e-9, first, flags, *args,
                              bool(stop_at_ground), int(focus))
    return K.anneal_reads(n, betas, int(seed), 1e-9, first, flags, *args, bool(stop_at_ground),
                          int(focus))


def SwapAnnealingSampler():  # noqa: N802 - factory of a lazily defined class
    """A :class:`dimod.Sampler` annealing with unit-preserving swap moves (needs ``groups``)."""
    return _sampler_class()()


@register("swap", summary="annealing with digit swaps inside boxes/regions (keeps one-hot groups; "
          "numba)", defaults={"num_reads": 16, "num_sweeps": 300, "num_replicas": 16,
                              "beta_range": (0.5, 4.0), "focus": 3, "stop_at_ground": True})
def _swap(**options):
    return SwapAnnealingSampler(**options)
