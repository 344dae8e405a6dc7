"""``pt`` and ``pa``: dwave-hybrid's parallel tempering and population annealing
workflows as :class:`dimod.Sampler` classes (:mod:`.sampler`; the workflows are built
in :mod:`.workflows`, which imports dwave-hybrid, extra ``qpu``, only when sampling)."""

from qsudoku.samplers.tempering.sampler import *  # noqa: F401,F403

__all__ = ["ParallelTemperingSampler", "PopulationAnnealingSampler", "check_pt", "check_pa"]
