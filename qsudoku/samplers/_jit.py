"""``njit`` for the samplers' kernels, with a compile cache that survives a read-only install.

numba caches a compiled kernel next to its source (``__pycache__``), or under
``NUMBA_CACHE_DIR``, or in the user's cache directory; when none of them is writable (a
root-owned site-packages, a container image, a shared cluster install with a read-only
home) ``njit(cache=True)`` raises ``RuntimeError: cannot cache function ...: no locator
available`` at import.  :func:`cache_mode` probes that once, and then:

- a writable location: caching as usual (``"numba"``);
- none: the cache goes to a private directory under the system's temporary directory
  (created with mode ``0o700`` and used only if it is ours and not group or world
  writable, since numba unpickles its index files) (``"temp"``);
- not even that: kernels compile in memory in every process (``"memory"``), and one
  :class:`KernelCacheWarning` says so.

>>> cache_mode() in ("numba", "temp", "memory", "none")
True
"""

from __future__ import annotations

import os
import stat
import tempfile
import warnings

try:  # numba is optional: without it the kernels run as (slow) Python.
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only where numba is missing
    numba = None
    HAVE_NUMBA = False

__all__ = ["HAVE_NUMBA", "njit", "cache_mode", "KernelCacheWarning"]

_MODE: str | None = None


class KernelCacheWarning(RuntimeWarning):
    """No writable place for numba's kernel cache: the kernels compile in every process."""


def _probe() -> int:  # pragma: no cover - only compiled lazily, never called
    return 0


def _can_cache() -> bool:
    """True if numba finds a writable cache location for a function of this package."""
    try:
        numba.njit(cache=True)(_probe)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return False
    return True


def _private_dir() -> str | None:
    """A per-user cache directory under the temporary directory, or ``None`` if unsafe."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    path = os.path.join(tempfile.gettempdir(), f"qsudoku-numba-{uid}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    ours = not hasattr(os, "getuid") or st.st_uid == uid
    private = not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if not stat.S_ISDIR(st.st_mode) or not ours or not private or not os.access(path, os.W_OK):
        return None
    return path


def cache_mode() -> str:
    """Where compiled kernels are cached: ``"numba"`` (numba's own places), ``"temp"`` (a
    private temporary directory), ``"memory"`` (nowhere) or ``"none"`` (no numba).

    Decided once per process, on first use; may set ``numba.config.CACHE_DIR``.
    """
    global _MODE
    if _MODE is not None:
        return _MODE
    if not HAVE_NUMBA:
        _MODE = "none"
    elif _can_cache():
        _MODE = "numba"
    else:
        path = _private_dir()
        old = numba.config.CACHE_DIR
        if path is not None:
            numba.config.CACHE_DIR = path
        if path is not None and _can_cache():
            _MODE = "temp"
        else:
            numba.config.CACHE_DIR = old
            _MODE = "memory"
            warnings.warn("no writable directory for numba's kernel cache (package directory, "
                          "NUMBA_CACHE_DIR, home and temporary directory are read-only): the "
                          "kernels compile in every process", KernelCacheWarning, stacklevel=3)
    return _MODE


def njit(**options):
    """``numba.njit(**options)`` with ``cache`` on wherever :func:`cache_mode` found a place."""
    return numba.njit(cache=cache_mode() in ("numba", "temp"), **options)
