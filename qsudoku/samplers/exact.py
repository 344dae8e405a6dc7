"""The exact samplers: ``sat``, ``cpsat``, ``ilp``, ``asp``, ``csp`` and brute-force ``exact``.

The first five are the exact backends of :data:`qsudoku.exact.backends.BACKENDS`, one
:class:`ExactSampler` subclass each, constructible with no arguments (keywords override
the backend's defaults).  Each reads the model's exactly-one groups (``groups=``, or
recognised from the BQM by :func:`~qsudoku.samplers.onehot.find_groups`), solves the
classical formulation and answers with one sample over ``bqm.variables`` with the BQM's
energy and ``info`` (the solver, its status, ``info["timing"]``).  A proof of
infeasibility raises :class:`~qsudoku.errors.ContradictionError`; a time limit reached
without a solution gives the all-zero sample with ``info["status"] == "time_limit"``.
The limit counts from the call, recognising the groups included (``info["note"]`` says
when it ended there).  ``num_reads`` and ``seed`` are accepted by every one, so
``--reads`` works with every sampler; there is always one sample, and a backend without
a seed ignores it.

``cpsat`` and ``ilp`` minimise any BQM without one-hot structure exactly
(:mod:`qsudoku.exact.qubo_min`); the others refuse one with a
:class:`~qsudoku.errors.ParameterError`.  ``exact`` is :class:`dimod.ExactSolver` (every
state, so tiny models only), limited by :class:`LimitedExactSolver`.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> ss = CSPSampler().sample(m.bqm, groups=m.groups())
>>> float(ss.first.energy), ss.info["status"], sorted(CSPSampler().parameters)
(0.0, 'solved', ['groups', 'hall', 'num_reads', 'restarts', 'seed', 'time_limit'])
>>> float(CSPSampler().sample(m.bqm).first.energy)  # groups recognised from the BQM
0.0
>>> LimitedExactSolver(max_variables=3).parameters
{'max_variables': []}
"""

from __future__ import annotations

import time
from typing import Callable

import dimod
import numpy as np

from qsudoku.errors import ConfigError, ContradictionError, ParameterError, TimeLimitError
from qsudoku.exact.backends import BACKENDS
from qsudoku import checks as opt
from qsudoku.checks import MAX_READS
from qsudoku.samplers.onehot import find_groups
from qsudoku.samplers.params import Bool, Int, Name, Seed, TimeLimit

__all__ = ["ExactSampler", "SATSampler", "CPSATSampler", "ILPSampler", "ASPSampler",
           "CSPSampler", "LimitedExactSolver", "BACKENDS", "check_exact"]

#: Backends that minimise a BQM without one-hot structure: name -> "module:function".
_ANY_BQM = {"cpsat": "qsudoku.exact.qubo_min:minimize_cpsat",
            "ilp": "qsudoku.exact.qubo_min:minimize_ilp"}
#: What each solver option takes (the constructor's; ``seed`` reaches the solver as it is).
_OPTIONS: dict[str, Callable] = {
    "num_reads": Int(1, MAX_READS, none=True), "time_limit": TimeLimit(),
    "num_workers": Int(1, 1024), "threads": Int(1, 1024), "seed": Int(0, 2**31 - 1),
    "hall": Bool(), "restarts": Bool(), "solver": Name("a solver's name (a string)", none=False)}
#: What each ``sample()`` parameter takes (``seed`` is reduced modulo ``2**31``).
_PARAMS: dict[str, Callable] = {**_OPTIONS, "seed": Seed()}


def check_exact(name: str, params, *, options: bool = False) -> dict:
    """The parameters of the exact backend ``name`` checked in their order (unknown names
    pass; ``options``: the constructor's, with no ``None`` seed): the one check of every
    path that runs it (registry ``checks``, :meth:`ExactSampler.sample`, the fallback).

    >>> check_exact("csp", {"hall": "nonsense"})
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: csp: hall = 'nonsense' must be true or false
    """
    table = _OPTIONS if options else _PARAMS
    return {k: table[k](name, k, v) if k in table else v for k, v in params.items()}


class ExactSampler(dimod.Sampler):
    """One exact backend as a :class:`dimod.Sampler` (see the module docstring).

    Args:
        backend: A key of :data:`BACKENDS` (fixed by the subclasses).
        **defaults: Override the backend's default parameters.

    Raises:
        ImportError: The backend's library is not installed (only looked up, not
            loaded: loading it here could clash with another solver's bundled libraries,
            see :mod:`qsudoku.exact.isolate`).
        ParameterError: An unknown or bad option.
    """

    backend_name: str = ""
    parameters = None
    properties = None

    def __init__(self, backend: str | None = None, **defaults):
        name = backend or self.backend_name
        if name not in BACKENDS:
            raise ConfigError(f"unknown exact backend {name!r}; choose from {', '.join(BACKENDS)}")
        self.name = name
        self.backend = BACKENDS[name]
        if not self.backend.available():
            raise ImportError(f"No module named {self.backend.module!r}", name=self.backend.module)
        params = self.backend.params
        unknown = sorted(set(defaults) - set(params))
        if unknown:
            raise ParameterError(f"sampler {name!r} has no option(s) {', '.join(unknown)}; "
                                 f"it accepts: {', '.join(sorted(params))}")
        self.defaults = {**params, **check_exact(name, defaults, options=True)}
        self.parameters = {"groups": [], "num_reads": [], "seed": [], **{k: [] for k in params}}
        self.properties = {"exact": True, "backend": name, "summary": self.backend.summary,
                           "any_bqm": name in _ANY_BQM}

    def sample(self, bqm, groups=None, num_reads=None, seed=None, **params):
        """One exact answer (``num_reads`` is accepted for the common CLI, and ignored;
        ``seed`` reaches the backends that take one)."""
        from qsudoku.exact.problem import Outcome, Problem

        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ParameterError(f"sampler {self.name!r} does not accept parameter(s) "
                                 f"{', '.join(unknown)}")
        seed = check_exact(self.name, {"num_reads": num_reads, "seed": seed})["seed"]
        call = {**self.defaults, **check_exact(self.name, params)}
        opt.need_finite_bqm(bqm, sampler=self.name)
        if seed is not None and "seed" in call:
            call["seed"] = seed % 2**31
        t0 = time.perf_counter()
        if not bqm.num_variables:
            return dimod.SampleSet.from_samples(([], []), bqm.vartype, [],
                                                info={"status": "solved", "num_reads": 0})
        variables = list(bqm.variables)
        limit = call.get("time_limit")
        deadline = None if limit is None else t0 + limit
        problem, note = None, None
        try:
            if not groups:
                try:
                    groups = find_groups(bqm, self.name, deadline=deadline)
                except ParameterError:
                    if self.name not in _ANY_BQM:
                        raise
                    return self._minimise(bqm, call, t0)
            problem = Problem.from_groups(groups, labels=variables, deadline=deadline)
        except TimeLimitError as err:  # the limit ended before the solver could start
            note = str(err)
        t1 = time.perf_counter()
        if limit is not None:  # recognising the groups and building the problem count too
            call["time_limit"] = limit - (t1 - t0)
        if problem is None or (limit is not None and call["time_limit"] <= 0.01):
            outcome = Outcome(None, "time_limit", {"solver": self.name,
                                                   **({"note": note} if note else {})})
        else:
            outcome = self.backend.solve(problem, **call)
        info = dict(outcome.info, status=outcome.status)
        info["timing"] = dict(info.get("timing", {}), groups=t1 - t0,
                              total=time.perf_counter() - t0)
        if outcome.status == "infeasible":
            raise ContradictionError(
                f"no solution: {info.get('solver', self.name)} proved the reduced model "
                "infeasible")
        return _answer(bqm, outcome.chosen, info)

    def _minimise(self, bqm, call: dict, t0: float):
        """The ground state of a BQM without one-hot structure (``cpsat``, ``ilp``)."""
        from qsudoku.exact.lazy import Lazy

        keys = {"cpsat": ("time_limit", "num_workers", "seed"), "ilp": ("time_limit", "threads")}
        sample, status, info = Lazy(_ANY_BQM[self.name])(
            bqm, **{k: call[k] for k in keys[self.name] if k in call})
        info = dict(info, status=status)
        info["timing"] = dict(info.get("timing", {}), total=time.perf_counter() - t0)
        variables = list(bqm.variables)
        low = -1 if bqm.vartype is dimod.SPIN else 0
        row = [low] * len(variables) if sample is None else [sample[v] for v in variables]
        return dimod.SampleSet.from_samples_bqm((row, variables), bqm, info=info)


def _answer(bqm, chosen, info: dict) -> dimod.SampleSet:
    """The one sample: the ``chosen`` variables on, every other off (all off if ``None``),
    in the BQM's order; the all-zero BINARY sample's energy is the offset."""
    variables = bqm.variables
    row = np.full((1, len(variables)), -1 if bqm.vartype is dimod.SPIN else 0, np.int8)
    row[0, list(chosen or ())] = 1
    if not chosen and bqm.vartype is dimod.BINARY:
        energy = [bqm.offset]  # every linear and quadratic term has a variable at 0
    else:
        energy = bqm.energies((row, variables))
    return dimod.SampleSet.from_samples((row, variables), bqm.vartype, energy, info=info,
                                        sort_labels=False)


class SATSampler(ExactSampler):
    """``sat``: exactly-one clauses over the candidates (python-sat)."""

    backend_name = "sat"


class CPSATSampler(ExactSampler):
    """``cpsat``: CP-SAT with AllDifferent per unit; any BQM without one-hot structure is
    minimised exactly (OR-Tools)."""

    backend_name = "cpsat"


class ILPSampler(ExactSampler):
    """``ilp``: a 0-1 integer programme, one row per group; any BQM without one-hot
    structure is minimised exactly (HiGHS)."""

    backend_name = "ilp"


class ASPSampler(ExactSampler):
    """``asp``: an answer-set programme with one cardinality rule per group (clingo)."""

    backend_name = "asp"


class CSPSampler(ExactSampler):
    """``csp``: qsudoku's own exact-cover search (no dependencies)."""

    backend_name = "csp"


class LimitedExactSolver(dimod.ExactSolver):
    """:class:`dimod.ExactSolver` that refuses models too large to enumerate.

    Args:
        max_variables: The most variables it enumerates (``2**N`` states), at most 30.
    """

    parameters = None

    def __init__(self, max_variables: int = 20):
        super().__init__()
        self.max_variables = opt.need_int("max_variables", max_variables, low=0,
                                          high=30, sampler="exact")
        self.parameters = {"max_variables": []}

    def sample(self, bqm, max_variables=None, **kwargs):
        limit = opt.need_int("max_variables", max_variables, low=0, high=30,
                             allow_none=True, sampler="exact")
        limit = self.max_variables if limit is None else limit
        opt.no_unknown("exact", kwargs)
        if len(bqm.variables) > limit:
            raise ConfigError(
                f"the exact solver enumerates all 2^N states; this model has N = "
                f"{len(bqm.variables)} variables, above its limit of {limit}. "
                "Use --sampler sa, or more propagation rules to shrink the model")
        opt.need_finite_bqm(bqm, sampler="exact")
        return super().sample(bqm)
