"""``pt`` (parallel tempering) and ``pa`` (population annealing): dwave-hybrid's
reference workflows (:mod:`.workflows`) as :class:`dimod.Sampler` classes.

Every parameter is declared once, with its default, in ``sample``'s signature, and
checked against the class's ``_constraints`` on every call (:mod:`qsudoku.samplers.params`;
the registry runs the same table before a model is built: :func:`check_pt`,
:func:`check_pa`).  A run is reproducible from ``info["seed"]`` (drawn when not given).

* ``pt``: each read is one parallel tempering run from a random state (``num_replicas``
  replicas, betas geometric over ``beta_range``, ``max_iter`` rounds of ``num_sweeps``
  sweeps and replica swaps, stopping after ``convergence`` rounds without a new best in
  the coldest replica); the read is the coldest replica's best sample.
* ``pa``: the reads are one population of ``num_reads`` annealed together over
  ``num_iter`` betas with resampling between betas, so reads are correlated.

dwave-hybrid (extra ``qpu``) is imported when sampling, not when the class is built.

>>> check_pt("pt", {"num_replicas": 1})
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: pt: num_replicas = 1 must be an integer in 2..1000
>>> sorted(PopulationAnnealingSampler().parameters)
['beta_range', 'num_iter', 'num_reads', 'num_sweeps', 'seed']
"""

from __future__ import annotations

import dimod
import numpy as np

from qsudoku.checks import MAX_READS, need_finite_bqm
from qsudoku.samplers.classical import check_sa
from qsudoku.samplers.params import Int, Seed, checked, parameters_of, table_check
from qsudoku.samplers.reads import empty_sampleset, fresh_seed

__all__ = ["ParallelTemperingSampler", "PopulationAnnealingSampler", "check_pt", "check_pa"]


def _beta_range(sampler: str, name: str, value):
    """``None``, or two finite numbers ``0 < hot <= cold`` (as ``sa`` takes them)."""
    if value is not None:
        check_sa(sampler, {name: value})
    return value


class _Workflow(dimod.Sampler):
    """A dwave-hybrid workflow as a sampler: the seed, an empty BQM; its subclasses'
    ``sample()`` declares the parameters and ``_constraints`` what they take."""

    name = ""
    properties: dict = {}
    _constraints: dict = {}

    def _sample(self, bqm, params: dict) -> dimod.SampleSet:
        """Sample ``bqm`` with the checked ``params`` of :meth:`sample`."""
        need_finite_bqm(bqm, sampler=self.name)
        seed = fresh_seed() % 2**63 if params["seed"] is None else params["seed"]
        info = {"seed": seed, **{k: v for k, v in params.items() if k != "seed"}}
        if bqm.num_variables == 0:
            return empty_sampleset(bqm, **{k: v for k, v in info.items() if k != "num_reads"})
        return self.run(bqm, params, seed, info)


class ParallelTemperingSampler(_Workflow):
    """Parallel tempering (dwave-hybrid's workflow), one run per read."""

    name = "pt"
    #: What each parameter of :meth:`sample` takes (reads, sweeps, replicas (at least 2),
    #: rounds, an optional ``convergence``, ``beta_range`` and the seed), in this order.
    _constraints = {"num_reads": Int(1, 10**5), "num_sweeps": Int(1, 10**7),
                    "num_replicas": Int(2, 1000), "max_iter": Int(1, 10**6),
                    "convergence": Int(1, 10**6, none=True), "seed": Seed(),
                    "beta_range": _beta_range}

    @checked("pt")
    def sample(self, bqm, num_reads: int = 5, num_sweeps: int = 200, num_replicas: int = 4,
               max_iter: int = 10, convergence=None, beta_range=None, seed=None,
               **kwargs) -> dimod.SampleSet:
        params = locals()
        return self._sample(bqm, {k: params[k] for k in self.parameters})

    parameters = parameters_of(sample)

    def run(self, bqm, params, seed, info) -> dimod.SampleSet:
        from qsudoku.samplers.tempering import workflows

        seeds = np.random.SeedSequence(seed).generate_state(params["num_reads"] * 2)
        rows = []
        for k in range(params["num_reads"]):
            flow = workflows.parallel_tempering(
                num_sweeps=params["num_sweeps"], num_replicas=params["num_replicas"],
                max_iter=params["max_iter"], convergence=params["convergence"],
                beta_range=params["beta_range"], seed=int(seeds[2 * k]))
            states = flow.run(workflows.random_states(bqm, 1, int(seeds[2 * k + 1]))).result()
            best = states[-1].samples.first
            rows.append([best.sample[v] for v in bqm.variables])
        return dimod.SampleSet.from_samples_bqm((np.array(rows), list(bqm.variables)), bqm,
                                                info=info)


class PopulationAnnealingSampler(_Workflow):
    """Population annealing (dwave-hybrid's workflow): the population is the reads."""

    name = "pa"
    #: The reads are one population: a solve's round never splits them to measure a read.
    properties = {"population": True}
    #: What each parameter of :meth:`sample` takes (population size, betas, sweeps per
    #: beta, ``beta_range`` and the seed), in this order.
    _constraints = {"num_reads": Int(1, MAX_READS), "num_iter": Int(1, 10**6),
                    "num_sweeps": Int(1, 10**7), "seed": Seed(), "beta_range": _beta_range}

    @checked("pa")
    def sample(self, bqm, num_reads: int = 100, num_iter: int = 100, num_sweeps: int = 10,
               beta_range=None, seed=None, **kwargs) -> dimod.SampleSet:
        params = locals()
        return self._sample(bqm, {k: params[k] for k in self.parameters})

    parameters = parameters_of(sample)

    def run(self, bqm, params, seed, info) -> dimod.SampleSet:
        from qsudoku.samplers.tempering import workflows

        flow_seed, start_seed = np.random.SeedSequence(seed).generate_state(2)
        flow = workflows.population_annealing(
            num_reads=params["num_reads"], num_iter=params["num_iter"],
            num_sweeps=params["num_sweeps"], beta_range=params["beta_range"],
            seed=int(flow_seed))
        state = flow.run(workflows.random_states(bqm, params["num_reads"],
                                                 int(start_seed))).result()
        ss = state.samples
        return dimod.SampleSet.from_samples_bqm((ss.record.sample, ss.variables), bqm, info=info)


#: The registry's checks of ``pt``'s and ``pa``'s parameters, before a model is built.
check_pt, check_pa = table_check(ParallelTemperingSampler), table_check(PopulationAnnealingSampler)
