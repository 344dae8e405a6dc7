"""Offline heuristic samplers from dwave-samplers: ``sa``, ``neal``, ``tabu``,
``steepest`` and ``random`` (the exact ones are in :mod:`qsudoku.samplers.exact`).

>>> from qsudoku.samplers import get_sampler
>>> type(get_sampler("tabu")).__name__
'TabuSampler'
"""

from __future__ import annotations

from qsudoku.samplers.registry import register

__all__: list[str] = []


@register("sa", summary="simulated annealing (dwave-samplers) on the reduced QUBO",
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

