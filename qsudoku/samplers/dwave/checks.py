"""Checks of the parameters qsudoku passes on to dwave-system and dwave-hybrid.

``qpu``, ``mock-qpu``, ``decompose`` and ``kerberos`` hand most of their parameters to
D-Wave's libraries: the QPU sampling parameters to :class:`dwave.system.DWaveSampler`
(through :class:`~qsudoku.samplers.dwave.QPUSampler`), ``decompose``'s extra
parameters to every subproblem call, ``kerberos``'s to
:class:`hybrid.reference.KerberosSampler` and its ``qpu_params`` to every call of its
QPU branch.  Those libraries check little: a negative ``tabu_timeout`` loops forever,
``sa_reads = 0`` fails deep inside a worker thread, and dwave-system's
``AutoEmbeddingComposite`` silently drops a ``qpu_params`` key its child does not take.

So every such parameter is checked here, before any work, in the one-line
:class:`~qsudoku.errors.ParameterError` (exit 2) naming the sampler and the parameter:
the entries' :attr:`~qsudoku.samplers.entries.SamplerSpec.checks`, which the samplers
call again at the top of ``sample``.  What depends on the solver (its ``*_range``
properties, the parameters it accepts) is checked against the solver it has.  This
module imports no D-Wave library (dimod only to check an ``init_sample``).

>>> check_qpu("mock-qpu", {"num_reads": 10, "chain_strength": "max_j", "seed": 3})
>>> check_kerberos("kerberos", {"qpu_params": {"chain_strength": float("nan")}})
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: kerberos: qpu_params.chain_strength = nan must be a finite number > 0, 'uniform_torque_compensation' or 'max_j'
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from qsudoku.checks import MAX_SECONDS
from qsudoku.errors import ParameterError
from qsudoku.samplers.params import (Bool, Choice, Int, Name, Numbers, Real, Seed, Satisfies,
                                     TimeLimit, is_finite, refuse, validate)

__all__ = ["check_qpu", "check_decompose", "check_kerberos", "refuse_unknown", "CHAIN_BREAK_METHODS",
           "CHAIN_STRENGTHS", "WARNING_ACTIONS", "KERBEROS_PARAMS", "DECOMPOSE_PARAMS",
           "DECOMPOSE_STRATEGIES",
           "MAX_QPU_READS", "MAX_BATCH"]

#: Chain-break resolution methods accepted by name (dwave.embedding.chain_breaks).
CHAIN_BREAK_METHODS = ("majority_vote", "weighted_random", "minimize_energy")
#: Chain strengths accepted by name (besides a positive number).
CHAIN_STRENGTHS = ("uniform_torque_compensation", "max_j")
#: dwave-system's ``warnings`` actions (case-insensitive, as it reads them).
WARNING_ACTIONS = ("ignore", "save")
#: The most reads of one QPU call (every D-Wave QPU's ``num_reads_range`` ends there).
MAX_QPU_READS = 10**4
#: Kerberos parameters (``qpu_sampler`` is the backend's option, not a sampling parameter).
KERBEROS_PARAMS = ("num_reads", "init_sample", "max_iter", "max_time", "convergence",
                   "energy_threshold", "sa_reads", "sa_sweeps", "tabu_timeout", "qpu_reads",
                   "qpu_params", "max_subproblem_size", "seed")
#: ``decompose``'s own parameters (any other is passed on to each subproblem call).
DECOMPOSE_PARAMS = ("groups", "num_reads", "subproblem_size", "strategy", "max_calls",
                    "qpu_reads", "seed", "energy_target", "time_limit", "polish", "backjump",
                    "memory", "refute", "batch")
#: The most subproblems ``decompose`` packs into one QPU call (Pegasus P16 holds 8 cliques of 64).
MAX_BATCH = 64
#: ``decompose``'s ways of choosing the cells to free.
DECOMPOSE_STRATEGIES = ("auto", "construct", "energy")

#: What Kerberos's parameters take (``tabu_timeout`` in milliseconds), checked in this order.
_KERBEROS = {"num_reads": Int(1, 10**4), "max_iter": Int(1, 10**6),
             "convergence": Int(1, 10**6), "sa_reads": Int(1, 10**5), "sa_sweeps": Int(1, 10**7),
             "tabu_timeout": Int(1, 10**7), "qpu_reads": Int(1, MAX_QPU_READS),
             "max_subproblem_size": Int(1, 10**4), "seed": Seed(), "max_time": TimeLimit(),
             "energy_threshold": Real(-1e15, 1e15, closed=True, none=True),
             "init_sample": Satisfies(lambda v: _sample_set(v), "must be a dimod.SampleSet"),
             "qpu_params": Satisfies(lambda q: isinstance(q, Mapping) and all(
                 isinstance(k, str) for k in q), "must be a table of QPU sampling parameters")}
#: What ``decompose``'s own parameters take, checked in this order.
_DECOMPOSE = {"subproblem_size": Int(1, 10**4), "max_calls": Int(1, 10**7),
              "num_reads": Int(1, 10**4), "backjump": Int(0, 10**6), "batch": Int(1, MAX_BATCH),
              "qpu_reads": Int(1, MAX_QPU_READS, none=True), "strategy": Choice(
                  DECOMPOSE_STRATEGIES), "energy_target": Real(-1e15, 1e15, closed=True),
              "time_limit": TimeLimit(), "polish": Bool(), "refute": Bool(), "seed": Seed(),
              "memory": Real(0, 1e9, closed=True)}
#: What the QPU's counts take (``num_sweeps``: the mock's simulated-annealing physics).
_QPU_COUNTS = {"num_reads": Int(1, MAX_QPU_READS), "num_sweeps": Int(1, 10**7),
               "seed": Int(0, 2**32 - 1, none=True)}
#: QPU timing parameters (microseconds): finite and >= 0; the solver's range is checked later.
_QPU_TIMES = ("annealing_time", "programming_thermalization", "readout_thermalization")


def _sample_set(value: Any) -> bool:
    import dimod  # only to check an init_sample

    return isinstance(value, dimod.SampleSet)


def _schedule(sampler: str, name: str, value: Any) -> Any:
    """A list of ``[time, value]`` pairs of finite numbers (an anneal or gain schedule)."""
    what = "must be a list of [time, value] pairs of finite numbers"
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        refuse(sampler, name, value, what)
    for point in value:
        if (isinstance(point, (str, bytes, Mapping)) or not hasattr(point, "__len__")
                or len(point) != 2 or not all(is_finite(x) for x in point)):
            refuse(sampler, name, value, what)
    return value


def _warnings(sampler: str, name: str, value: Any) -> Any:
    """dwave-system's ``WarningAction``, or its name in any case."""
    if value is None or type(value).__name__ == "WarningAction":
        return value
    return Choice(WARNING_ACTIONS, fold=True)(sampler, name, value)


_PER_QUBIT = Numbers("must be a list of finite numbers (one per qubit)")  # length: the solver's
#: What the QPU's options take (after the chain strength), checked in this order.
_QPU_OPTIONS: dict[str, Callable] = {
    "chain_break_method": Choice(CHAIN_BREAK_METHODS, none=True),
    **{key: Bool() for key in ("auto_scale", "return_embedding",
                               "reduce_intersample_correlation", "reinitialize_state",
                               "fast_anneal", "flux_drift_compensation")},
    **{key: Real(0, MAX_SECONDS * 1e6, closed=key != "annealing_time", none=True)
       for key in _QPU_TIMES},
    "label": Name("a string"), "answer_mode": Choice(("raw", "histogram")),
    "anneal_schedule": _schedule, "h_gain_schedule": _schedule,
    "flux_biases": _PER_QUBIT, "anneal_offsets": _PER_QUBIT,
    "initial_state": Satisfies(lambda s: isinstance(s, Mapping) and all(
        not isinstance(x, bool) and x in (-1, 0, 1) for x in s.values()),
        "must map each variable to -1, 0 or 1"),
    "warnings": _warnings}
_STRENGTHS = " or ".join(repr(s) for s in CHAIN_STRENGTHS)
#: What the chain strength takes: a name, or a finite number > 0.
_CHAIN_STRENGTH = Satisfies(lambda v: (isinstance(v, str) and v in CHAIN_STRENGTHS)
                       or (is_finite(v) and v > 0), f"must be a finite number > 0, {_STRENGTHS}")
#: Sampling-parameter names that are a sampler's own, never a QPU's, inside ``qpu_params``.
_NOT_QPU = ("qpu_reads", "qpu_sampler", "qpu_params")


def refuse_unknown(sampler: str, names, accepted, listed=None) -> None:
    """Refuse the ``names`` not in ``accepted``, saying what it accepts (``listed``, by
    default ``accepted``).

    >>> refuse_unknown("hybrid-nl", {"reads": 1}, ["time_limit", "label"])
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: hybrid-nl: unknown parameter(s) reads; it accepts: label, time_limit
    """
    unknown = sorted(set(names) - set(accepted))
    if unknown:
        raise ParameterError(f"{sampler}: unknown parameter(s) {', '.join(unknown)}; it accepts: "
                             f"{', '.join(sorted(accepted if listed is None else listed))}")


def check_qpu(sampler: str, params: Mapping, prefix: str = "") -> None:
    """The QPU sampling parameters of :class:`~qsudoku.samplers.dwave.QPUSampler` (``qpu``,
    ``mock-qpu``; ``prefix`` names where they were given, e.g. ``"qpu_params."``); unknown
    names are the caller's business (they depend on the solver).

    >>> check_qpu("qpu", {"chain_break_method": "vote"})
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: qpu: chain_break_method = 'vote'; choose from majority_vote, weighted_random, minimize_energy
    """
    p = prefix
    validate(sampler, {**_QPU_COUNTS, "chain_strength": _CHAIN_STRENGTH,
                       "chain_strength_factor": Real(0, 1e6, none=True)}, params, p)
    if params.get("chain_strength_factor") is not None and is_finite(params.get("chain_strength")):
        refuse(sampler, p + "chain_strength_factor", params["chain_strength_factor"],
               f"applies to {_STRENGTHS}, not to a fixed chain_strength = "
               f"{params['chain_strength']!r}")
    validate(sampler, _QPU_OPTIONS, params, p)
    if params.get("annealing_time") is not None and params.get("anneal_schedule") is not None:
        refuse(sampler, p + "anneal_schedule", params["anneal_schedule"],
               "goes without annealing_time: give one of them, not both")


def check_decompose(sampler: str, params: Mapping) -> None:
    """``decompose``'s own parameters given in ``params`` (their defaults are in
    :meth:`~qsudoku.samplers.dwave.decompose.DecomposeSampler.sample`, which checks every
    value it runs with), and the QPU ones it passes on to every call.

    >>> check_decompose("decompose", {"batch": 0})
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: decompose: batch = 0 must be an integer in 1..64
    """
    validate(sampler, _DECOMPOSE, params)
    check_qpu(sampler, {k: v for k, v in params.items() if k not in DECOMPOSE_PARAMS})


def check_kerberos(sampler: str, params: Mapping) -> None:
    """Kerberos's parameters, before dwave-hybrid sees them, and its ``qpu_params``
    (checked as QPU parameters; the QPU branch's reads are ``qpu_reads``).

    >>> check_kerberos("kerberos", {"tabu_timeout": -1})
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: kerberos: tabu_timeout = -1 must be an integer in 1..10000000
    """
    refuse_unknown(sampler, params, KERBEROS_PARAMS)
    qpu = validate(sampler, _KERBEROS, params).get("qpu_params") or {}
    if "num_reads" in qpu:
        refuse(sampler, "qpu_params.num_reads", qpu["num_reads"],
               "is replaced by Kerberos's qpu_reads: give qpu_reads")
    mixed = sorted(set(qpu) & set(_NOT_QPU))
    if mixed:
        refuse(sampler, f"qpu_params.{mixed[0]}", qpu[mixed[0]], "is not a QPU sampling parameter")
    check_qpu(sampler, qpu, "qpu_params.")
