"""What the kernel samplers (``aco``, ``swap``, ``swap-tabu``) share: threads of reads, a warm-up.

:func:`parallel_reads` spreads one batch of reads over threads (the kernels release the
GIL); :class:`KernelSampler` is the base of the kernel samplers: the empty-BQM answer,
``properties["numba"]`` and a one-time :meth:`~KernelSampler.warm_up` on a blank 4x4 model
built here from its one-hot groups (no puzzle model needed).

>>> bqm, groups = tiny_model()
>>> bqm.num_variables, len(groups), float(bqm.energy({v: 0 for v in bqm.variables}))
(64, 64, 64.0)
"""

from __future__ import annotations

import gc
import importlib.util
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, wait

import dimod
import numpy as np

__all__ = ["KernelSampler", "parallel_reads", "as_binary", "fresh_seed", "num_threads",
           "tiny_model", "empty_sampleset"]


def tiny_model():
    """A blank 4x4 Sudoku as a BQM and its labelled one-hot groups (cell, row, column, box)."""
    cells = [(r, c) for r in range(4) for c in range(4)]
    groups = ([("cell", [(r, c, d) for d in range(1, 5)]) for r, c in cells]
              + [("row", [(r, c, d) for c in range(4)]) for r in range(4) for d in range(1, 5)]
              + [("column", [(r, c, d) for r in range(4)]) for c in range(4) for d in range(1, 5)]
              + [("box", [(2 * (b // 2) + i // 2, 2 * (b % 2) + i % 2, d) for i in range(4)])
                 for b in range(4) for d in range(1, 5)])
    bqm = dimod.BQM("BINARY")
    for _, labels in groups:
        bqm.add_linear_equality_constraint([(v, 1.0) for v in labels], 1.0, -1.0)
    return bqm, groups


def empty_sampleset(bqm, **info):
    """The answer to a BQM without variables: no samples, in ``bqm``'s vartype."""
    return dimod.SampleSet.from_samples(([], []), bqm.vartype, [], info=dict(num_reads=0, **info))


def _have_numba() -> bool:
    """True if the kernels run compiled; asked without importing numba (0.1 s) when no
    kernel module is loaded yet, so that building a sampler stays cheap."""
    jit = sys.modules.get(f"{__package__}.jit")
    if jit is not None:
        return jit.HAVE_NUMBA
    return importlib.util.find_spec("numba") is not None



class KernelSampler:
    """Mixin of the structured samplers: ``properties["numba"]`` and a one-time warm-up.

    ``_WARM_CALLS`` lists the keyword sets of :meth:`sample` that together run every kernel
    it uses, ``_KERNEL_PARAMS`` the parameters that choose the kernels; :meth:`kernel_params`
    resolves those that depend on the model's size, so that the warm-up on the blank 4x4
    runs the kernels a model of that size runs.
    """

    _WARM_CALLS: tuple = ()
    _KERNEL_PARAMS: tuple = ()

    def __init__(self):
        self.properties = dict(self.properties, numba=_have_numba())

    def kernel_params(self, chosen: dict, num_variables: int) -> dict:
        """The :data:`_KERNEL_PARAMS` values ``chosen`` as :meth:`sample` resolves them
        on a model of ``num_variables`` variables (here: as they are)."""
        return chosen

    def warm_up(self, params: dict | None = None, num_variables: int | None = None) -> float:
        """Compile (or load from numba's cache) the kernels that :meth:`sample` runs with
        ``params`` (on a model of ``num_variables`` variables, if given: see
        :meth:`kernel_params`), on a blank 4x4 model, once per process, so that no time
        limit pays for them; returns the seconds it took."""
        chosen = {k: v for k, v in (params or {}).items() if k in self._KERNEL_PARAMS}
        if num_variables is not None:
            chosen = self.kernel_params(chosen, num_variables)
        key = (type(self), repr(sorted(chosen.items())))
        if key in _WARMED:
            return 0.0
        t = time.perf_counter()
        bqm, groups = tiny_model()
        for kwargs in self._WARM_CALLS:
            self.sample(bqm, groups=groups, num_reads=1, seed=0, **{**chosen, **kwargs})
        _WARMED.add(key)
        # The compiler's garbage is collected here, under compile, not in the first round.
        gc.collect()
        return time.perf_counter() - t


#: (sampler class, kernel parameters) pairs whose kernels this process has loaded.
_WARMED: set = set()


def as_binary(bqm):
    """``bqm`` with BINARY variables (a copy if it was SPIN)."""
    return bqm if bqm.vartype is dimod.BINARY else bqm.change_vartype(dimod.BINARY, inplace=False)


def fresh_seed() -> int:
    return int(np.random.SeedSequence().generate_state(1)[0])


def num_threads() -> int:
    """Threads for a batch of reads: numba's thread count (``NUMBA_NUM_THREADS``, or
    :func:`numba.set_num_threads` once numba's thread pool runs), else the CPU count."""
    try:
        import numba
        from numba.np.ufunc import parallel
    except ImportError:  # pragma: no cover
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)
    if parallel._is_initialized:  # do not start numba's pool (0.1 s) just to ask
        return int(numba.get_num_threads())
    return int(numba.config.NUMBA_NUM_THREADS)


_POOL: tuple[ThreadPoolExecutor, int, int] | None = None  # (pool, its size, owning process)


def _pool(k: int) -> ThreadPoolExecutor:
    """The shared thread pool, with at least ``k`` threads (a forked child gets its own:
    the parent's threads do not exist there)."""
    global _POOL
    if _POOL is None or _POOL[1] < k or _POOL[2] != os.getpid():
        size = max(k, num_threads())
        _POOL = (ThreadPoolExecutor(max_workers=size, thread_name_prefix="qsudoku-reads"), size,
                 os.getpid())
    return _POOL[0]


def parallel_reads(call, num_reads: int, first_read: int, deadline: float):
    """Run ``num_reads`` reads of a kernel, split into contiguous ranges over threads.

    ``call(n, first, flags)`` runs reads ``first .. first + n - 1`` (a ``nogil`` kernel)
    and returns a tuple of per-read arrays; the ranges' arrays are concatenated in read
    order.  Every range shares one ``flags`` array (see :mod:`qsudoku.samplers.swap.kernel`): at
    ``deadline`` (a ``perf_counter`` time; ``inf`` for none), or if the caller is
    interrupted, ``flags[1]`` is set and the kernels stop at their next check.

    >>> import numpy as np
    >>> parallel_reads(lambda n, first, flags: (np.arange(first, first + n),), 5, 10, np.inf)
    (array([10, 11, 12, 13, 14]),)
    """
    flags = np.zeros(2, np.int64)
    k = max(1, min(num_threads(), num_reads))
    pool = _pool(k)
    cut = [num_reads * i // k for i in range(k + 1)]
    futures = [pool.submit(call, cut[i + 1] - cut[i], first_read + cut[i], flags)
               for i in range(k)]
    try:
        wait(futures, timeout=None if deadline == np.inf
             else max(0.0, deadline - time.perf_counter()))
    finally:
        flags[1] = 1  # time is up (or an interrupt): the kernels stop at their next check
    parts = [f.result() for f in futures]
    return tuple(np.concatenate(p) for p in zip(*parts))
