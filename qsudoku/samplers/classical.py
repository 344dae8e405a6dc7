"""Offline heuristic samplers from dwave-samplers: ``sa``, ``neal``, ``tabu``, ``steepest``
and ``random`` (the exact ones are in :mod:`qsudoku.samplers.exact`), and the checks of
their ``sample()`` parameters.

The registry names dwave-samplers' own classes (``dwave.samplers:TabuSampler``, ...), so
an instance passed to :func:`qsudoku.solve` is recognised as the registered sampler;
``neal`` is built by :func:`neal_sampler` (its class is dwave-samplers', so an instance
of it is recognised as ``sa``).

Their ``sample`` methods are not qsudoku's, so the checks of their parameters live here
(the entries' :attr:`~qsudoku.samplers.entries.SamplerSpec.checks`) and run before any
work: type, range, finite, and the combinations the library refuses only halfway through
(a custom schedule without ``beta_schedule``, ``num_sweeps`` not a multiple of
``num_sweeps_per_beta``), each a :class:`~qsudoku.errors.ParameterError` naming the
sampler and the parameter.  Unknown parameters are refused by
:func:`qsudoku.samplers.check_params`.  This module imports no backend.

>>> check_sa("sa", {"beta_schedule_type": "cubic"})
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: sa: beta_schedule_type = 'cubic'; choose from linear, geometric, custom
>>> check_tabu("tabu", {"timeout": -1})
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: tabu: timeout = -1 must be an integer in 1..1000000000
>>> check_random("random", {"num_reads": 10, "time_limit": 0.5, "max_num_samples": 10})
"""

from __future__ import annotations

import functools
import numbers
from datetime import timedelta
from typing import Any, Callable, Mapping

from qsudoku.checks import MAX_READS, MAX_SECONDS
from qsudoku.samplers.params import (Bool, Choice, Int, Numbers, Real, Seed, Satisfies, TimeLimit,
                                     refuse, table_check, validate)

__all__ = ["neal_sampler", "check_sa", "check_tabu", "check_steepest", "check_random",
           "BETA_SCHEDULE_TYPES", "INITIAL_STATES_GENERATORS", "PROPOSAL_ACCEPTANCE_CRITERIA"]

#: ``beta_schedule_type`` values of dwave-samplers' simulated annealing.
BETA_SCHEDULE_TYPES = ("linear", "geometric", "custom")
#: ``initial_states_generator`` values of dimod's ``Initialized`` samplers.
INITIAL_STATES_GENERATORS = ("none", "tile", "random")
#: ``proposal_acceptance_criteria`` values (the library compares them case-insensitively).
PROPOSAL_ACCEPTANCE_CRITERIA = ("Metropolis", "Gibbs")
#: Largest value of a C ``int`` argument (tenure, restarts, sweeps per beta, z bounds).
C_INT = 2**31 - 1
#: Most sweeps of one read, and most milliseconds of a tabu read (about 11.6 days).
MAX_SWEEPS = 10**9


def neal_sampler(**options):
    """``neal``: the legacy ``neal.SimulatedAnnealingSampler`` (extra ``neal``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import neal

    return neal.SimulatedAnnealingSampler(**options)


def _initial_states(sampler: str, params: Mapping) -> None:
    """``initial_states`` (samples-like, values 0/1 or -1/+1, at most MAX_READS states)
    and ``initial_states_generator``; the states' variables are checked by dimod against
    the BQM when sampled."""
    states = params.get("initial_states")
    if states is None:
        if params.get("initial_states_generator") in ("none", "tile"):
            refuse(sampler, "initial_states_generator", params["initial_states_generator"],
                   "needs initial_states")
        return
    what = "must be samples-like: a list of states of 0/1 or -1/+1 values, or a SampleSet"
    if isinstance(states, (str, bytes, bool, numbers.Number)):
        refuse(sampler, "initial_states", states, what)
    import dimod
    import numpy as np

    try:
        array, _ = dimod.as_samples(states)
    except (ValueError, TypeError):
        refuse(sampler, "initial_states", states, what)
    if len(array) > MAX_READS or not np.isin(array, (-1, 0, 1)).all():
        refuse(sampler, "initial_states", states, what)


def _common(sampler: str, params: Mapping, seed_high: int) -> None:
    """``num_reads``, ``seed`` and the initial states, as every dwave-samplers class takes them."""
    validate(sampler, {"num_reads": Int(1, MAX_READS), "seed": Int(0, seed_high, none=True),
                       "initial_states_generator": Choice(INITIAL_STATES_GENERATORS)}, params)
    _initial_states(sampler, params)


#: What ``SimulatedAnnealingSampler.sample``'s schedule parameters take one by one (the
#: combinations are checked after them).
_SA = {"beta_schedule_type": Choice(BETA_SCHEDULE_TYPES), "num_sweeps_per_beta": Int(1, C_INT),
       "num_sweeps": Int(1, MAX_SWEEPS, none=True)}
#: What its other parameters take, checked last.
_SA_REST = {"randomize_order": Bool(),
            "proposal_acceptance_criteria": Choice(PROPOSAL_ACCEPTANCE_CRITERIA, fold=True),
            "interrupt_function": Satisfies(callable, "must be a function (or None)")}
_SCHEDULE = "must be a non-empty sequence of finite numbers >= 0"


def check_sa(sampler: str, params: Mapping) -> None:
    """``sa`` and ``neal``: dwave-samplers' ``SimulatedAnnealingSampler.sample`` parameters,
    one by one and together (a custom ``beta_schedule``, its sweeps, ``beta_range``).

    >>> check_sa("neal", {"num_sweeps": 1000, "num_sweeps_per_beta": 3})
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: neal: num_sweeps = 1000 must be a multiple of num_sweeps_per_beta = 3
    """
    _common(sampler, params, 2**31 - 1)
    p, no = validate(sampler, _SA, params), functools.partial(refuse, sampler)
    kind, per_beta = p.get("beta_schedule_type", "geometric"), p.get("num_sweeps_per_beta", 1)
    sweeps, schedule = p.get("num_sweeps"), p.get("beta_schedule")
    if kind == "custom":
        if schedule is None:
            no("beta_schedule", None, "must be given for beta_schedule_type = 'custom'")
        betas = Numbers(_SCHEDULE)(sampler, "beta_schedule", schedule)
        if not betas or min(betas) < 0 or len(betas) * per_beta > MAX_SWEEPS:
            no("beta_schedule", schedule, f"{_SCHEDULE}, of at most {MAX_SWEEPS // per_beta} betas")
        if sweeps is not None and sweeps != len(betas) * per_beta:
            no("num_sweeps", sweeps, f"must equal len(beta_schedule) * num_sweeps_per_beta = "
               f"{len(betas) * per_beta} for beta_schedule_type = 'custom'")
    elif schedule is not None:
        no("beta_schedule", schedule, f"needs beta_schedule_type = 'custom' (not {kind!r})")
    elif (sweeps or 1000) % per_beta:
        no("num_sweeps", sweeps or 1000, f"must be a multiple of num_sweeps_per_beta = {per_beta}")
    if p.get("beta_range") is not None:
        what = f"must be two finite numbers {'0 <=' if kind == 'linear' else '0 <'} low <= high"
        pair = Numbers(what)(sampler, "beta_range", p["beta_range"])
        if len(pair) != 2 or not (0 <= pair[0] <= pair[1]) or (kind != "linear" and not pair[0]):
            no("beta_range", p["beta_range"], what)
        if kind == "custom" and pair != [betas[0], betas[-1]]:
            no("beta_range", p["beta_range"], "must be left out or equal the first and last "
               "values of beta_schedule for beta_schedule_type = 'custom'")
    validate(sampler, _SA_REST, params)


def _tenure(sampler: str, name: str, value: Any) -> Any:
    if value is not None and type(value) is not int:  # the library takes a Python int only
        refuse(sampler, name, value, "must be an integer >= 0")
    return Int(0, C_INT, none=True)(sampler, name, value)


def _time_limit(sampler: str, name: str, value: Any) -> Any:
    """Seconds in ``(0, MAX_SECONDS]``, or a :class:`~datetime.timedelta` of them."""
    if isinstance(value, timedelta):
        if not 0 < value.total_seconds() <= MAX_SECONDS:
            refuse(sampler, name, value, f"must be in (0, {MAX_SECONDS:g}] seconds")
        return value
    return TimeLimit()(sampler, name, value)


def _check_with(seed_high: int, table: Mapping) -> Callable[[str, Mapping], None]:
    """The check of a dwave-samplers class: :func:`_common` (its seed at most
    ``seed_high``), then ``table``."""
    def check(sampler: str, params: Mapping) -> None:
        _common(sampler, params, seed_high)
        validate(sampler, table, params)
    return check


#: ``TabuSampler.sample`` (its seed below ``2**32``; ``timeout``: milliseconds per read,
#: never ``None``: without it a read runs up to ``num_restarts`` restarts, unbounded in
#: time; the C ``int`` arguments at most ``2**31 - 1``; ``tenure`` below the number of
#: variables is checked by the library), checked in this order.
check_tabu = _check_with(2**32 - 1, {
    "timeout": Int(1, MAX_SWEEPS), "tenure": _tenure, "num_restarts": Int(0, C_INT),
    "energy_threshold": Real(closed=True, none=True),
    **{k: Int(0, C_INT, none=True)
       for k in ("coefficient_z_first", "coefficient_z_restart", "lower_bound_z")}})
#: ``SteepestDescentSolver.sample`` (its seed below ``2**32``).
check_steepest = _check_with(2**32 - 1, {"large_sparse_opt": Bool()})
#: ``RandomSampler.sample`` (``max_num_samples`` caps the samples kept).
check_random = table_check({"num_reads": Int(1, MAX_READS), "seed": Seed(),
                            "time_limit": _time_limit, "max_num_samples": Int(1, MAX_READS)})
