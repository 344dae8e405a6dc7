"""Samplers: a registry of name -> factory; every backend is a ``dimod.Sampler``.

>>> from qsudoku.samplers import get_sampler, names
>>> "sa" in names() and "exact" in names()
True
>>> type(get_sampler("sa")).__name__
'SimulatedAnnealingSampler'
"""

from qsudoku.samplers.registry import SamplerSpec, check_params, default_params, get_sampler, get_spec, names, register

__all__ = ["SamplerSpec", "register", "get_sampler", "get_spec", "names", "check_params",
           "default_params"]
