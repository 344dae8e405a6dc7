"""A foreign sampler the tests share: a ``dimod.Sampler``-shaped class of no registry entry
and no time parameter (so a solve's rounds must measure it), whose reads are uniform random
states (never a valid grid of a puzzle propagation does not finish) and whose calls are
recorded in ``asked`` (the ``num_reads`` of each)."""

from __future__ import annotations


class CountingRandom:
    """Uniform random reads; ``asked`` lists the ``num_reads`` of every call."""

    parameters = {"num_reads": [], "seed": []}
    properties: dict = {}

    def __init__(self):
        self.asked: list[int] = []

    def sample(self, bqm, num_reads=10, seed=None):
        import dimod
        import numpy as np

        self.asked.append(num_reads)
        rng = np.random.default_rng(seed)
        return dimod.SampleSet.from_samples_bqm(
            (rng.integers(0, 2, (num_reads, len(bqm.variables)), dtype=np.int8),
             list(bqm.variables)), bqm)
