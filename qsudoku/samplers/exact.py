"""Exact reference solvers as ``dimod.Sampler`` s: ``sat``, ``cpsat``, ``ilp``, ``asp``, ``csp``.

Each reads the model's exactly-one groups (it lists ``groups`` in its
``parameters``, so the pipeline passes them), solves the classical formulation
with its library, and answers with one sample over ``bqm.variables`` carrying the
BQM's energy (0 for the solution) and ``info`` with the solver, its status and
``info["timing"]`` (``model`` = building the formulation, ``solve`` = the solver).
A proof of infeasibility raises :class:`~qsudoku.errors.ContradictionError`
naming the solver; a time limit reached without a solution gives the all-zero
sample (invalid, so ``solve`` reports it) with ``info["status"] == "time_limit"``.
``num_reads`` is accepted, so ``--reads`` works with every sampler, but an exact
backend always answers with one sample.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.propagate import propagate
>>> from qsudoku.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> ss = ExactSampler("csp").sample(m.bqm, groups=m.groups())
>>> float(ss.first.energy), ss.info["status"], sorted(ExactSampler("csp").parameters)
(0.0, 'solved', ['groups', 'hall', 'num_reads', 'restarts', 'time_limit'])
"""

from __future__ import annotations

import importlib.util
import time

from ..errors import ConfigError, ContradictionError
from .registry import register

__all__ = ["ExactSampler", "BACKENDS"]

#: name -> (summary, library module checked at construction, {parameter: default}).
BACKENDS = {
    "sat": ("exact: SAT over the candidates (python-sat, exactly-one clauses)", "pysat",
            {"solver": "glucose4", "time_limit": None}),
    "cpsat": ("exact: CP with AllDifferent per unit (OR-Tools CP-SAT)", "ortools",
              {"time_limit": None, "num_workers": 1, "seed": 0}),
    "ilp": ("exact: 0-1 integer programme, one row per group (HiGHS)", "highspy",
            {"time_limit": None, "threads": 1}),
    "asp": ("exact: answer-set programme, one cardinality rule (clingo)", "clingo",
            {"time_limit": None, "seed": 0}),
    "csp": ("exact: qsudoku's own exact-cover search (no dependencies)", None,
            {"time_limit": None, "hall": False, "restarts": True}),
}


def _solve(name: str, problem, params: dict):
    if name == "sat":
        from ..exact.cnf import solve_sat
        return solve_sat(problem, **params)
    if name == "cpsat":
        from ..exact.cp import solve_cpsat
        return solve_cpsat(problem, **params)
    if name == "ilp":
        from ..exact.lp import solve_ilp
        return solve_ilp(problem, **params)
    if name == "asp":
        from ..exact.asp import solve_asp
        return solve_asp(problem, **params)
    from ..exact.problem import Outcome
    from ..exact.search import solve_cover
    res = solve_cover(problem, limit=1, **params)
    status = {"limit": "solved", "solved": "solved"}.get(res.status, res.status)
    chosen = res.solutions[0] if res.solutions else None
    info = {"solver": "csp:exact-cover", "stats": res.stats,
            "timing": {"solve": res.stats["seconds"]}}
    return Outcome(chosen, status, info)


def _sampler_class():
    import dimod

    class _ExactSampler(dimod.Sampler):
        """One exact backend (see the module docstring); ``name`` is a key of :data:`BACKENDS`.

        Constructor keywords override the backend's default parameters.
        """

        def __init__(self, name: str, **defaults):
            if name not in BACKENDS:
                raise ConfigError(f"unknown exact backend {name!r}; choose from {', '.join(BACKENDS)}")
            self.name = name
            summary, _, params = BACKENDS[name]
            unknown = sorted(set(defaults) - set(params))
            if unknown:
                raise ConfigError(f"sampler {name!r} has no option(s) {', '.join(unknown)}; "
                                  f"it accepts: {', '.join(sorted(params))}")
            self.defaults = {**params, **defaults}
            self._parameters = {"groups": [], "num_reads": [], **{k: [] for k in params}}
            self._properties = {"exact": True, "backend": name, "summary": summary}

        @property
        def parameters(self) -> dict:
            return self._parameters

        @property
        def properties(self) -> dict:
            return self._properties

        def sample(self, bqm, groups=None, num_reads=None, **params):
            """One exact answer (``num_reads`` is accepted for the common CLI, and ignored)."""
            from ..exact.problem import Problem

            unknown = sorted(set(params) - set(self.defaults))
            if unknown:
                raise ConfigError(f"sampler {self.name!r} does not accept parameter(s) "
                                  f"{', '.join(unknown)}")
            call = {**self.defaults, **params}
            tl = call.get("time_limit")
            if tl is not None and (isinstance(tl, bool) or not isinstance(tl, (int, float))
                                   or not tl > 0):
                raise ConfigError(f"time_limit = {tl!r} must be a positive number of seconds")
            t0 = time.perf_counter()
            variables = list(bqm.variables)
            problem = Problem.from_groups(groups, labels=variables)
            t1 = time.perf_counter()
            outcome = _solve(self.name, problem, call)
            info = dict(outcome.info)
            info["status"] = outcome.status
            timing = dict(info.get("timing", {}))
            timing["groups"] = t1 - t0
            timing["total"] = time.perf_counter() - t0
            info["timing"] = timing
            if outcome.status == "infeasible":
                raise ContradictionError(
                    f"no solution: {info.get('solver', self.name)} proved the reduced model "
                    "infeasible")
            on = set(outcome.chosen or ())
            low = -1 if bqm.vartype is dimod.SPIN else 0
            row = [1 if i in on else low for i in range(len(variables))]
            return dimod.SampleSet.from_samples_bqm((row, variables), bqm, info=info)

    return _ExactSampler


_CLASS = None


def ExactSampler(name: str, **defaults):  # noqa: N802 - factory of a lazily defined class
    """The exact backend ``name`` as a :class:`dimod.Sampler` (dimod imported on first use)."""
    global _CLASS
    if _CLASS is None:
        _CLASS = _sampler_class()
    return _CLASS(name, **defaults)


def _factory(name: str, module: str | None):
    def factory(**options):
        # Only check that the package is installed: loading it here could clash with
        # another solver's bundled libraries (see qsudoku.exact.isolate).
        if module is not None and importlib.util.find_spec(module) is None:
            raise ImportError(f"No module named {module!r}", name=module)
        return ExactSampler(name, **options)
    factory.__name__ = f"_{name}"
    return factory


for _name, (_summary, _module, _) in BACKENDS.items():
    register(_name, summary=_summary, extra=None if _module is None else "classical")(
        _factory(_name, _module))
