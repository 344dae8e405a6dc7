"""``swap``: an annealer whose moves keep the one-hot groups a sample already satisfies.

The sampler reads only the BQM and its labelled one-hot groups.  It picks a *family* of
unit groups that partitions the open cells (:mod:`.structure`), starts every read from a
random perfect matching of each family unit and anneals with moves that swap the digits
of two cells of one unit, both digits being candidates of both cells.  Cell and family
groups stay satisfied, and the energy over the other groups is exactly the BQM energy (the
group weights are read off the BQM and checked against it).  Samples are returned in the
BQM's variables with the BQM's energies.

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

import time

import dimod
import numpy as np

from qsudoku import checks as opt
from qsudoku.checks import MAX_READS
from qsudoku.errors import ParameterError
from qsudoku.samplers.onehot import groups_of
from qsudoku.samplers.params import (Bool, Choice, Int, Name, Seed, TimeLimit, checked,
                                     parameters_of)
from qsudoku.samplers.reads import (KernelSampler, as_binary, empty_sampleset, fresh_seed,
                                    num_threads, parallel_reads)
from qsudoku.samplers.swap.structure import (FAMILY_KINDS, compile_structure, finish_sampleset,
                                             kernel_args, run_batches)

__all__ = ["SwapAnnealingSampler"]


def _beta_range(sampler: str, name: str, value) -> tuple:
    """``(hot, cold)``: two finite numbers ``0 < hot <= cold`` (``None``: the default)."""
    if value is None:
        value = (0.5, 4.0)
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ParameterError(f"{sampler}: {name} = {value!r} must be two numbers (hot, cold)")
    hot, cold = (opt.need_real(name, x, low=0, high=1e12, low_open=True, sampler=sampler)
                 for x in value)
    if hot > cold:
        raise ParameterError(f"{sampler}: {name} = {value!r} must be 0 < hot <= cold")
    return hot, cold


class SwapAnnealingSampler(KernelSampler, dimod.Sampler):
    """Annealing with unit-preserving swap moves; a :class:`dimod.Sampler`.

    Args (of :meth:`sample`):
        groups: The model's labelled one-hot groups (default: recognised from the BQM).
        num_reads: Independent reads, each from a fresh random matching.
        num_sweeps: Sweeps per read (a sweep = one proposal per movable cell).
        beta_range: ``(hot, cold)`` inverse temperatures, in units of the lightest
            group weight; default ``(0.5, 4.0)`` (temperature 2 -> 0.25).
        beta_schedule_type: ``"geometric"`` (in temperature) or ``"linear"`` (in beta).
        num_replicas: ``1`` = plain annealing; ``> 1`` (the default, 16) = replica
            exchange with that many temperatures spread geometrically over ``beta_range``
            for ``num_sweeps`` sweeps.
        seed: Seed of the reads' generators (``None`` = fresh).
        time_limit: Seconds after which no new batch of reads starts (``None`` = none).
        stop_at_ground: Stop every read once any read reaches energy 0.
        focus: Redraw the first cell of a swap up to this many times until it lies in a
            conflict (min-conflicts bias); 0 = uniform proposals.
        family: Unit kind whose units the moves keep as permutations (any kind that
            partitions the open cells); default the first of :data:`FAMILY_KINDS` present.

    The defaults are what ``--sampler swap`` runs (the registry reads them from here).
    """

    #: What each parameter of :meth:`sample` takes, checked in this order on every call.
    _constraints = {"num_reads": Int(1, MAX_READS), "num_sweeps": Int(1, 10**10),
                    "num_replicas": Int(1, 10**4), "beta_range": _beta_range,
                    "beta_schedule_type": Choice(("geometric", "linear")),
                    "stop_at_ground": Bool(), "focus": Int(0, 10**6), "seed": Seed(),
                    "time_limit": TimeLimit(), "family": Name("a unit kind (a string)")}
    properties = {"family_kinds": FAMILY_KINDS, "numba": None}

    _WARM_CALLS = ({"num_sweeps": 2, "num_replicas": 1}, {"num_sweeps": 2, "num_replicas": 2})

    @checked("swap")
    def sample(self, bqm, groups=None, num_reads: int = 10, num_sweeps: int = 300,
               beta_range=(0.5, 4.0), beta_schedule_type: str = "geometric",
               num_replicas: int = 16, seed=None, time_limit=None,
               stop_at_ground: bool = False, focus: int = 3, family: str | None = None,
               **kwargs):
        t0 = time.perf_counter()
        name = "swap"
        hot, cold = beta_range
        if not bqm.num_variables:
            return empty_sampleset(bqm)
        from qsudoku.samplers.swap import kernel as K

        groups = groups_of(bqm, groups, name, time_limit, t0)
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
        swaps = kernel_args(st)
        knobs = K.Schedule(betas, num_sweeps, int(seed), 1e-9, bool(stop_at_ground), int(focus))
        kernel = K.temper_reads if num_replicas > 1 else K.anneal_reads

        def reads(n, first, flags):
            return kernel(swaps, knobs, n, first, flags)

        def run(n, first, deadline):
            bv, be, sw = parallel_reads(reads, n, first, deadline)
            return bv, be, sw, (sw >= num_sweeps) | (be <= 1e-9)

        vals, work, interrupted = run_batches(st, run, num_reads, num_reads if time_limit is None
                                              else num_threads(), time_limit, t0, stop_at_ground)
        return finish_sampleset(bqm, st, vals, interrupted, t0, t1, num_reads, sweeps=work.tolist(),
                                num_sweeps=num_sweeps, num_replicas=num_replicas)

    parameters = parameters_of(sample)
