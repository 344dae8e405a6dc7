"""Offline heuristic samplers from dwave-samplers: ``sa``, ``neal``, ``tabu``, ``steepest``
and ``random`` (the exact ones are in :mod:`qsudoku.samplers.exact`).

Each is a factory of the library's own :class:`dimod.Sampler` (their classes live in
dwave-samplers; the registry names these factories), importing the library when called.

>>> type(simulated_annealing()).__name__
'SimulatedAnnealingSampler'
"""

from __future__ import annotations

__all__ = ["simulated_annealing", "neal_annealing", "tabu_search", "steepest_descent",
           "random_states"]


def simulated_annealing(**options):
    """``sa``: :class:`dwave.samplers.SimulatedAnnealingSampler`."""
    from dwave.samplers import SimulatedAnnealingSampler

    return SimulatedAnnealingSampler(**options)


def neal_annealing(**options):
    """``neal``: the legacy ``neal.SimulatedAnnealingSampler`` (extra ``neal``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import neal

    return neal.SimulatedAnnealingSampler(**options)


def tabu_search(**options):
    """``tabu``: :class:`dwave.samplers.TabuSampler`."""
    from dwave.samplers import TabuSampler

    return TabuSampler(**options)


def steepest_descent(**options):
    """``steepest``: :class:`dwave.samplers.SteepestDescentSolver`."""
    from dwave.samplers import SteepestDescentSolver

    return SteepestDescentSolver(**options)


def random_states(**options):
    """``random``: :class:`dwave.samplers.RandomSampler`."""
    from dwave.samplers import RandomSampler

    return RandomSampler(**options)
