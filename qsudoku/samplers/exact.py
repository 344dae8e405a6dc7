"""The exact samplers: ``sat``, ``cpsat``, ``ilp``, ``asp``, ``csp`` and brute-force ``exact``.

The first five are the exact backends of :data:`qsudoku.exact.backends.BACKENDS`,
each wrapped by :class:`ExactSampler`.  Each reads the model's exactly-one groups
(it lists ``groups`` in its ``parameters``, so the pipeline passes them), solves the
classical formulation with its library, and answers with one sample over
``bqm.variables`` carrying the BQM's energy (0 for the solution) and ``info`` with
the solver, its status and ``info["timing"]`` (``model`` = building the
formulation, ``solve`` = the solver).  A proof of infeasibility raises
:class:`~qsudoku.errors.ContradictionError` naming the solver; a time limit
reached without a solution gives the all-zero sample (invalid, so ``solve``
reports it) with ``info["status"] == "time_limit"``.  ``num_reads`` is accepted,
so ``--reads`` works with every sampler, but an exact backend always answers with
one sample.

``exact`` is :class:`dimod.ExactSolver` (every state of the BQM, so tiny models
only), limited by :func:`LimitedExactSolver`.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> ss = ExactSampler("csp").sample(m.bqm, groups=m.groups())
>>> float(ss.first.energy), ss.info["status"], sorted(ExactSampler("csp").parameters)
(0.0, 'solved', ['groups', 'hall', 'num_reads', 'restarts', 'time_limit'])
>>> from qsudoku.samplers import get_sampler
>>> get_sampler("exact", max_variables=3).parameters
{'max_variables': []}
"""

from __future__ import annotations

import functools
import time

from qsudoku.errors import ConfigError, ContradictionError
from qsudoku.exact.backends import BACKENDS, ExactBackend
from qsudoku.samplers.registry import register

__all__ = ["ExactSampler", "LimitedExactSolver", "BACKENDS"]


@functools.cache
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
            self.backend = BACKENDS[name]
            params = self.backend.params
            unknown = sorted(set(defaults) - set(params))
            if unknown:
                raise ConfigError(f"sampler {name!r} has no option(s) {', '.join(unknown)}; "
                                  f"it accepts: {', '.join(sorted(params))}")
            self.defaults = {**params, **defaults}
            self._parameters = {"groups": [], "num_reads": [], **{k: [] for k in params}}
            self._properties = {"exact": True, "backend": name, "summary": self.backend.summary}

        @property
        def parameters(self) -> dict:
            return self._parameters

        @property
        def properties(self) -> dict:
            return self._properties

        def sample(self, bqm, groups=None, num_reads=None, **params):
            """One exact answer (``num_reads`` is accepted for the common CLI, and ignored)."""
            from qsudoku.exact.problem import Problem

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
            outcome = self.backend.solve(problem, **call)
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


def ExactSampler(name: str, **defaults):  # noqa: N802 - factory of a lazily defined class
    """The exact backend ``name`` as a :class:`dimod.Sampler` (dimod imported on first use)."""
    return _sampler_class()(name, **defaults)


def _factory(backend: ExactBackend):
    def factory(**options):
        # Only check that the package is installed: loading it here could clash with
        # another solver's bundled libraries (see qsudoku.exact.isolate).
        if not backend.available():
            raise ImportError(f"No module named {backend.module!r}", name=backend.module)
        return ExactSampler(backend.name, **options)
    factory.__name__ = f"_{backend.name}"
    return factory


for _backend in BACKENDS.values():
    register(_backend.name, summary=_backend.summary, extra=_backend.extra)(_factory(_backend))


@functools.cache
def _limited_class():
    import dimod

    class LimitedExactSolver(dimod.ExactSolver):
        """:class:`dimod.ExactSolver` that refuses models too large to enumerate."""

        def __init__(self, max_variables: int = 20):
            super().__init__()
            self.max_variables = int(max_variables)
            self.parameters = {"max_variables": []}

        def sample(self, bqm, max_variables=None, **kwargs):
            limit = self.max_variables if max_variables is None else int(max_variables)
            if len(bqm.variables) > limit:
                raise ConfigError(
                    f"the exact solver enumerates all 2^N states; this model has N = "
                    f"{len(bqm.variables)} variables, above its limit of {limit}. "
                    "Use --sampler sa, or more propagation rules to shrink the model")
            return super().sample(bqm, **kwargs)

    return LimitedExactSolver


def LimitedExactSolver(max_variables: int = 20):  # noqa: N802 - factory of a lazily defined class
    """An exact solver (brute force) for models of at most ``max_variables`` variables."""
    return _limited_class()(max_variables)


@register("exact", summary="brute-force enumeration (dimod.ExactSolver), at most 20 variables")
def _exact(**options):
    return LimitedExactSolver(**options)
