"""Offline samplers from dwave-samplers and dimod: ``sa``, ``neal``, ``tabu``,
``steepest``, ``random`` and ``exact`` (tiny models only).

>>> from qsudoku.samplers import get_sampler
>>> get_sampler("exact", max_variables=3).parameters
{'max_variables': []}
"""

from __future__ import annotations

from ..errors import ConfigError
from .registry import register

__all__ = ["LimitedExactSolver"]


@register("sa", summary="simulated annealing (dwave-samplers), the offline default",
          defaults={"num_reads": 50, "num_sweeps": 1000})
def _sa(**options):
    from dwave.samplers import SimulatedAnnealingSampler

    return SimulatedAnnealingSampler(**options)


@register("neal", summary="simulated annealing through the legacy dwave-neal package",
          defaults={"num_reads": 50, "num_sweeps": 1000}, extra="neal")
def _neal(**options):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import neal

    return neal.SimulatedAnnealingSampler(**options)


@register("tabu", summary="tabu search (dwave-samplers)", defaults={"num_reads": 10, "timeout": 100})
def _tabu(**options):
    from dwave.samplers import TabuSampler

    return TabuSampler(**options)


@register("steepest", summary="steepest descent from random states (dwave-samplers)",
          defaults={"num_reads": 100})
def _steepest(**options):
    from dwave.samplers import SteepestDescentSolver

    return SteepestDescentSolver(**options)


@register("random", summary="uniform random states: the floor any sampler must beat",
          defaults={"num_reads": 100})
def _random(**options):
    from dwave.samplers import RandomSampler

    return RandomSampler(**options)


def _exact_class():
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
    return _exact_class()(max_variables)


@register("exact", summary="brute-force enumeration (dimod.ExactSolver), at most 20 variables")
def _exact(**options):
    return LimitedExactSolver(**options)
