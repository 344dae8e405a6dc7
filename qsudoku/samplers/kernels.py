"""What every compiled kernel of the samplers shares: the ``njit`` decorators and a generator.

``njit`` compiles a ``nogil`` kernel (cached, :mod:`qsudoku.samplers.jit`); ``ijit`` a small
hot helper that LLVM inlines (``forceinline``: far cheaper to compile than numba's
``inline="always"``).  Without numba both return the function unchanged.  Each read has its
own xorshift64* generator, ``seed_state(seed, read)``, independent of the threads.

>>> s = seed_state(1, 0)
>>> 0 <= randint(s, 10) < 10, 0.0 <= uniform(s) < 1.0
(True, True)
"""

from __future__ import annotations

import numpy as np

from qsudoku.samplers.jit import HAVE_NUMBA
from qsudoku.samplers.jit import njit as _numba_njit

__all__ = ["HAVE_NUMBA", "njit", "ijit", "copy", "rand", "uniform", "randint", "seed_state"]

if HAVE_NUMBA:
    njit = _numba_njit(nogil=True)
    ijit = _numba_njit(nogil=True, forceinline=True)
else:  # pragma: no cover - exercised only where numba is missing
    def njit(f):
        return f

    ijit = njit


@ijit
def copy(dst, src):
    """``dst[:] = src`` as a loop: a slice assignment compiles in numba's shape-mismatch
    message, whose string formatting loads numba's unicode modules in every process."""
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@ijit
def rand(state):
    """xorshift64*: advance ``state[0]`` and return a uint64."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@ijit
def uniform(state):
    return float(rand(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@ijit
def randint(state, n):
    return int(rand(state) % np.uint64(n))


@njit
def seed_state(seed, read):
    s = np.empty(1, np.uint64)
    s[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(read + 1) * np.uint64(
        0xBF58476D1CE4E5B9) + np.uint64(0x94D049BB133111EB)
    if s[0] == np.uint64(0):
        s[0] = np.uint64(0x2545F4914F6CDD1D)
    for _ in range(4):
        rand(s)
    return s
