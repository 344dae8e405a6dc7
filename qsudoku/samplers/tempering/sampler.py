"""``pt`` (parallel tempering) and ``pa`` (population annealing): dwave-hybrid's
reference workflows (:mod:`.workflows`) as :class:`dimod.Sampler` classes.

Every parameter is listed in ``parameters`` with its default in ``sample``'s signature,
and checked at the top of ``sample`` (:func:`check_pt`, :func:`check_pa`, which the
registry also runs before a model is built) with a one-line
:class:`~qsudoku.errors.ParameterError` naming the sampler and the parameter.
A run is reproducible from ``info["seed"]`` (drawn when not given).

* ``pt``: each read is one parallel tempering run from a random state
  (``num_replicas`` replicas, betas geometric over ``beta_range``, ``max_iter`` rounds
  of ``num_sweeps`` sweeps and replica swaps, stopping early after ``convergence``
  rounds without a new best in the coldest replica); the read is the coldest replica's
  best sample.  Reads are independent.
* ``pa``: the reads are one population of ``num_reads`` annealed together over
  ``num_iter`` betas (linear over ``beta_range``) with resampling between betas, so
  reads are correlated (copies of one ancestor are common).

dwave-hybrid (extra ``qpu``) is imported when sampling, not when the class is built.

>>> check_pt("pt", {"num_replicas": 1})
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: pt: num_replicas = 1 must be an integer in 2..1000
>>> sorted(PopulationAnnealingSampler().parameters)
['beta_range', 'num_iter', 'num_reads', 'num_sweeps', 'seed']
"""

from __future__ import annotations

from typing import Mapping

import dimod
import numpy as np

from qsudoku.samplers.classical import check_sa
from qsudoku.checks import MAX_READS, need_finite_bqm, need_int, need_seed, no_unknown
from qsudoku.samplers.reads import empty_sampleset, fresh_seed

__all__ = ["ParallelTemperingSampler", "PopulationAnnealingSampler", "check_pt", "check_pa",
           "PT_PARAMS", "PA_PARAMS"]

#: ``pt``'s parameters and their defaults.
PT_PARAMS = {"num_reads": 5, "num_sweeps": 200, "num_replicas": 4, "max_iter": 10,
             "convergence": None, "beta_range": None, "seed": None}
#: ``pa``'s parameters and their defaults.
PA_PARAMS = {"num_reads": 100, "num_iter": 100, "num_sweeps": 10, "beta_range": None,
             "seed": None}


def _check(sampler: str, params: Mapping, ints: Mapping, defaults: Mapping) -> None:
    for key, (low, high) in ints.items():
        need_int(key, params.get(key, defaults[key]), low=low, high=high,
                 allow_none=defaults[key] is None, sampler=sampler)
    need_seed(params.get("seed"), sampler=sampler)
    if params.get("beta_range") is not None:  # two finite numbers 0 < hot <= cold
        check_sa(sampler, {"beta_range": params["beta_range"]})


def check_pt(sampler: str, params: Mapping) -> None:
    """``pt``'s parameters: reads, sweeps, replicas (at least 2), rounds, an optional
    ``convergence``, ``beta_range`` (``0 < hot <= cold``) and the seed."""
    _check(sampler, params, {"num_reads": (1, 10**5), "num_sweeps": (1, 10**7),
                             "num_replicas": (2, 1000), "max_iter": (1, 10**6),
                             "convergence": (1, 10**6)}, PT_PARAMS)


def check_pa(sampler: str, params: Mapping) -> None:
    """``pa``'s parameters: population size, betas, sweeps per beta, ``beta_range``
    and the seed."""
    _check(sampler, params, {"num_reads": (1, MAX_READS), "num_iter": (1, 10**6),
                             "num_sweeps": (1, 10**7)}, PA_PARAMS)


class _Workflow(dimod.Sampler):
    """A dwave-hybrid workflow as a sampler: checks, the seed, an empty BQM."""

    name = ""
    defaults: Mapping = {}
    properties: dict = {}

    @property
    def parameters(self) -> dict:
        return {key: [] for key in self.defaults}

    def sample(self, bqm, **params) -> dimod.SampleSet:
        no_unknown(self.name, {k: v for k, v in params.items() if k not in self.defaults})
        params = {**self.defaults, **params}
        self.check(self.name, params)
        need_finite_bqm(bqm, sampler=self.name)
        seed = fresh_seed() % 2**63 if params["seed"] is None else params["seed"]
        info = {"seed": seed, **{k: v for k, v in params.items() if k != "seed"}}
        if bqm.num_variables == 0:
            return empty_sampleset(bqm, **{k: v for k, v in info.items() if k != "num_reads"})
        return self.run(bqm, params, seed, info)


class ParallelTemperingSampler(_Workflow):
    """Parallel tempering (dwave-hybrid's workflow), one run per read."""

    name = "pt"
    defaults = PT_PARAMS
    check = staticmethod(check_pt)

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
    defaults = PA_PARAMS
    check = staticmethod(check_pa)
    #: The reads are one population: a solve's round never splits them to measure a read.
    properties = {"population": True}

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
