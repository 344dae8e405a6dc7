"""Samplers: a static registry of name -> ``"module:Class"``; every backend is a ``dimod.Sampler``.

One subpackage or module per family (:mod:`.aco`, :mod:`.swap`, :mod:`.exact`,
:mod:`.classical`, :mod:`.sqa`, :mod:`.tempering`, :mod:`.dwave`); shared pieces:
:mod:`.registry`, :mod:`.params`, :mod:`.onehot` (groups recognised from a BQM),
:mod:`.penalty_fit`, :mod:`.reads` (threads of reads, warm-up), :mod:`.kernels` and
:mod:`.jit` (numba).

>>> from qsudoku.samplers import get_sampler, names
>>> "sa" in names() and "exact" in names()
True
>>> type(get_sampler("sa")).__name__
'SimulatedAnnealingSampler'
"""

from qsudoku.samplers.registry import (SPECS, SamplerSpec, check_params, check_values,
                                       default_params, get_sampler, get_spec, names, register)

__all__ = ["SamplerSpec", "SPECS", "register", "get_sampler", "get_spec", "names", "check_params",
           "check_values", "default_params"]
