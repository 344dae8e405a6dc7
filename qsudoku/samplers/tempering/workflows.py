"""dwave-hybrid's parallel tempering and population annealing workflows, seeded.

The workflows are those of :func:`hybrid.reference.pt.ParallelTempering` and
:func:`hybrid.reference.pa.PopulationAnnealing`, with two changes: every random step
takes its seed from one :class:`numpy.random.SeedSequence` (the library's pieces draw
from unseeded generators), and the tempering betas may be given (``beta_range``).  Each
fixed-temperature sampler draws a fresh seed per call from its own generator, so
replicas in parallel threads stay reproducible.  Only :mod:`.sampler`'s ``sample``
methods import this module (it imports dwave-hybrid).
"""

from __future__ import annotations

import dimod
import hybrid
import numpy as np
from dwave.samplers.sa.sampler import default_beta_range
from hybrid.reference.pa import (CalculateAnnealingBetaSchedule, EnergyWeightedResampler,
                                 ProgressBetaAlongSchedule)
from hybrid.reference.pt import FixedTemperatureSampler, SwapReplicasDownsweep

__all__ = ["SeededFixedTemperatureSampler", "SpawnReplicas", "parallel_tempering",
           "population_annealing", "random_states"]


class SeededFixedTemperatureSampler(FixedTemperatureSampler):
    """:class:`~hybrid.reference.pt.FixedTemperatureSampler` whose calls each use a
    seed drawn from a generator seeded once."""

    def __init__(self, *, seed: int, **kwargs):
        super().__init__(**kwargs)
        self.rng = np.random.default_rng(seed)

    def next(self, state, **runopts):
        self.seed = int(self.rng.integers(2**31 - 1))
        return super().next(state, **runopts)


class SpawnReplicas(hybrid.traits.SIMO, hybrid.Runnable):
    """One state per replica, betas geometric over ``beta_range`` (hot to cold;
    ``None``: dwave-samplers' default range of the BQM)."""

    def __init__(self, num_replicas: int, beta_range=None, **runopts):
        super().__init__(**runopts)
        self.num_replicas = num_replicas
        self.beta_range = beta_range

    def next(self, state, **runopts):
        hot, cold = self.beta_range or default_beta_range(state.problem)
        betas = np.geomspace(hot, cold, self.num_replicas)
        return hybrid.States(*[state.updated(beta=float(b)) for b in betas])


def _coldest(states):
    return states[-1].samples.first.energy if states is not None else None


def parallel_tempering(*, num_sweeps: int, num_replicas: int, max_iter: int,
                       convergence: int | None, beta_range, seed: int):
    """The parallel tempering workflow: spawn replicas, then ``max_iter`` rounds of
    ``num_sweeps`` fixed-temperature sweeps per replica and a downward sweep of replica
    swaps, stopping early when the coldest replica's best energy repeats
    ``convergence`` times.  Its output is the replicas' states, coldest last."""
    seeds = np.random.SeedSequence(seed).generate_state(num_replicas + 1)
    update = hybrid.Branches(*[SeededFixedTemperatureSampler(num_sweeps=num_sweeps, seed=int(s))
                               for s in seeds[:-1]])
    loop = hybrid.Loop(update | SwapReplicasDownsweep(seed=int(seeds[-1])), max_iter=max_iter,
                       convergence=convergence, key=_coldest)
    return SpawnReplicas(num_replicas, beta_range) | loop


def population_annealing(*, num_reads: int, num_iter: int, num_sweeps: int, beta_range,
                         seed: int):
    """The population annealing workflow: ``num_iter`` betas linear over ``beta_range``,
    at each ``num_sweeps`` fixed-temperature sweeps of every member of a population of
    ``num_reads``, then resampling weighted by ``exp(-delta_beta * energy)``."""
    sa_seed, resample_seed = np.random.SeedSequence(seed).generate_state(2)
    step = (ProgressBetaAlongSchedule()
            | SeededFixedTemperatureSampler(num_sweeps=num_sweeps, num_reads=num_reads,
                                            seed=int(sa_seed))
            | EnergyWeightedResampler(seed=int(resample_seed)))
    return (CalculateAnnealingBetaSchedule(length=num_iter, beta_range=beta_range,
                                           interpolation="linear")
            | hybrid.Loop(step, max_iter=num_iter))


def random_states(bqm, count: int, seed: int) -> hybrid.State:
    """A state of ``bqm`` holding ``count`` uniformly random samples."""
    values = np.array([0, 1] if bqm.vartype is dimod.BINARY else [-1, 1], dtype=np.int8)
    rng = np.random.default_rng(seed)
    states = values[rng.integers(0, 2, size=(count, bqm.num_variables))]
    return hybrid.State.from_samples((states, list(bqm.variables)), bqm)
