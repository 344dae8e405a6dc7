"""``sqa`` (simulated quantum annealing) and ``rotor``: dwave-samplers'
:class:`~dwave.samplers.PathIntegralAnnealingSampler` and
:class:`~dwave.samplers.RotorModelAnnealingSampler` with a schedule that solves Sudoku.

With the library's defaults neither anneals the reduced QUBO well: its default inverse
temperatures, derived from the largest field, end too hot for penalty weights of 1, and a
``geometric`` path-integral schedule has no transverse field at all.
:class:`PathIntegralSampler` adds ``transverse_field``: the schedule is then the library's
``custom`` one built by :func:`transverse_schedule`, the longitudinal field rising over
``beta_range`` while the transverse field falls linearly from ``transverse_field *
beta_range[1]`` to 0.  :class:`RotorSampler` reports each read's energy in the BQM of the
projected (classical) state (the library reports the rotor state's, not 0 for a valid
grid).  Both answer a BQM without variables with no samples.  The defaults are in units
of the penalty weights (all 1 by default); ``docs/annealers.md`` has their success rates.

>>> import dimod
>>> bqm = dimod.BQM({"a": -1.0, "b": -1.0}, {("a", "b"): 2.0}, 1.0, "BINARY")
>>> ss = PathIntegralSampler().sample(bqm, num_reads=4, seed=1, num_sweeps=100,
...                                   num_sweeps_per_beta=10, transverse_field=0.5)
>>> float(ss.first.energy), ss.info["beta_schedule_type"]
(0.0, 'custom')
>>> check_sqa("sqa", {"transverse_field": -1})
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: sqa: transverse_field = -1 must be a finite number >= 0 and <= 1e+06
"""

from __future__ import annotations

from typing import Mapping

import dimod
import numpy as np
from dwave.samplers import PathIntegralAnnealingSampler, RotorModelAnnealingSampler

from qsudoku.samplers.classical import check_sa
from qsudoku.checks import need_finite_bqm, need_real
from qsudoku.samplers.params import Choice
from qsudoku.samplers.reads import empty_sampleset

__all__ = ["PathIntegralSampler", "RotorSampler", "check_sqa", "check_rotor",
           "transverse_schedule", "SEED_FOR_ZERO"]

#: Schedule types these samplers take (``custom`` is built from ``transverse_field``).
SCHEDULE_TYPES = ("linear", "geometric")
#: The seed ``sqa`` passes for ``seed=0``. dwave-samplers' path-integral kernel reads 0 as
#: "seed from the operating system", so its reads would not repeat; this seed (the largest
#: the library takes) does, and so ``seed=0`` and ``seed=2**31 - 1`` give the same reads.
SEED_FOR_ZERO = 2**31 - 1


def check_rotor(sampler: str, params: Mapping) -> None:
    """``rotor``'s parameters: those of simulated annealing (``beta_range``, sweeps,
    seed, initial states), with a ``linear`` or ``geometric`` schedule."""
    Choice(SCHEDULE_TYPES)(sampler, "beta_schedule_type",
                           params.get("beta_schedule_type", "geometric"))
    check_sa(sampler, params)


def check_sqa(sampler: str, params: Mapping) -> None:
    """``sqa``'s parameters: ``rotor``'s, and ``transverse_field`` (a finite number
    ``>= 0``, or ``None`` for the library's classical schedule)."""
    check_rotor(sampler, {k: v for k, v in params.items() if k != "transverse_field"})
    need_real("transverse_field", params.get("transverse_field"), low=0, high=1e6,
              allow_none=True, low_open=False, sampler=sampler)


def transverse_schedule(beta_range, num_betas: int, transverse_field: float,
                        kind: str = "geometric") -> tuple[np.ndarray, np.ndarray]:
    """``(Hp_field, Hd_field)``: ``num_betas`` longitudinal values over ``beta_range``
    (``kind`` spacing) and a transverse field falling linearly from
    ``transverse_field * beta_range[1]`` to 0.

    >>> hp, hd = transverse_schedule((1.0, 4.0), 3, 0.5)
    >>> hp.tolist(), hd.tolist()
    ([1.0, 2.0, 4.0], [2.0, 1.0, 0.0])
    """
    low, high = (float(b) for b in beta_range)
    space = np.geomspace if kind == "geometric" else np.linspace
    hp = space(low, high, num_betas)
    hd = transverse_field * high * np.linspace(1.0, 0.0, num_betas)
    return hp, hd


class PathIntegralSampler(PathIntegralAnnealingSampler):
    """Path-integral (simulated quantum) annealing with a transverse-field schedule.

    Parameters are the library's (``parameters`` lists them) and ``transverse_field``;
    see the module's docstring.  The defaults are what ``--sampler sqa`` runs (the registry
    reads them from here); ``transverse_field=None`` is the library's own schedule.
    """

    name = "sqa"

    def __init__(self):
        super().__init__()
        self.parameters = {**self.parameters, "transverse_field": []}

    def sample(self, bqm, *, num_reads=20, num_sweeps=500, num_sweeps_per_beta=5,
               beta_range=(0.25, 5.0), beta_schedule_type="linear", transverse_field=0.5,
               **params) -> dimod.SampleSet:
        params.update(num_reads=num_reads, num_sweeps=num_sweeps, beta_range=beta_range,
                      num_sweeps_per_beta=num_sweeps_per_beta,
                      beta_schedule_type=beta_schedule_type)
        check_sqa(self.name, {**params, "transverse_field": transverse_field})
        need_finite_bqm(bqm, sampler=self.name)
        if bqm.num_variables == 0:
            return empty_sampleset(bqm)
        if transverse_field is not None:
            if params.get("beta_range") is None:
                params["beta_range"] = (0.1, 5.0)
            per_beta = params.get("num_sweeps_per_beta", 1)
            num_betas = max(1, params.pop("num_sweeps", 1000) // per_beta)
            hp, hd = transverse_schedule(params.pop("beta_range"), num_betas, transverse_field,
                                         params.pop("beta_schedule_type", "geometric"))
            params.update(beta_schedule_type="custom", Hp_field=hp, Hd_field=hd)
        if params.get("seed") == 0:
            params["seed"] = SEED_FOR_ZERO
        ss = super().sample(bqm, **params)
        ss.info["transverse_field"] = transverse_field
        return ss


class RotorSampler(RotorModelAnnealingSampler):
    """Rotor-model annealing whose energies are the BQM's energies of its reads (the
    defaults are what ``--sampler rotor`` runs)."""

    name = "rotor"

    def sample(self, bqm, *, num_reads=50, num_sweeps=1000, beta_range=(1.0, 50.0),
               **params) -> dimod.SampleSet:
        params.update(num_reads=num_reads, num_sweeps=num_sweeps, beta_range=beta_range)
        check_rotor(self.name, params)
        need_finite_bqm(bqm, sampler=self.name)
        if bqm.num_variables == 0:
            return empty_sampleset(bqm)
        ss = super().sample(bqm, **params)
        return dimod.SampleSet.from_samples_bqm((ss.record.sample, ss.variables), bqm,
                                                info=ss.info)
