"""``njit`` for the samplers' kernels, with a compile cache that survives a read-only install.

When no place numba would cache in is writable, ``njit(cache=True)`` raises at import
(``no locator available``).  :func:`cache_mode` probes that once: a writable location is
used as numba does (``"numba"``); else a private directory under the temporary directory
(mode ``0o700``, used only if it is ours and not group or world writable, since numba
unpickles its index files) (``"temp"``); else kernels compile in memory in every process
(``"memory"``), said in one :class:`KernelCacheWarning`.

The cache is disposable: an entry that cannot be read is dropped and the kernel compiled
and cached again (:func:`safe_loader`), with one warning line per process.  Two changes to
how a cached kernel is found and loaded:

- numba keys a cached function on its own source file alone, but a kernel compiles in
  helpers of other modules, so it is keyed on every kernel module (:func:`sources_stamp`);
- numba loads a cached kernel only after installing every typing and lowering registry
  (which imports all its implementation modules, and scipy): for the numba versions whose
  loader this mirrors (:data:`FAST_LOAD_NUMBA`), :func:`njit` kernels initialise only the
  memory-management runtime compiled code needs, then load.

>>> cache_mode() in ("numba", "temp", "memory", "none")
True
"""

from __future__ import annotations

import functools
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

__all__ = ["HAVE_NUMBA", "njit", "cache_mode", "sources_stamp", "KernelCacheWarning",
           "FAST_LOAD_NUMBA", "safe_loader", "drop_entry", "check_entry", "MAX_ENTRY_BYTES"]

_MODE: str | None = None

#: numba versions ``[low, high)`` whose cache loader :func:`_load_cached` mirrors (others
#: load the numba way).
FAST_LOAD_NUMBA = ((0, 58), (0, 69))


class KernelCacheWarning(RuntimeWarning):
    """No writable place for numba's kernel cache (the kernels compile in every process),
    or a cache entry that could not be read (dropped and rebuilt)."""


_WARNED_CORRUPT = False


def _warn_once(message: str) -> None:
    """One :class:`KernelCacheWarning` line per process (no source line under it)."""
    global _WARNED_CORRUPT
    if _WARNED_CORRUPT:
        return
    _WARNED_CORRUPT = True
    warnings.warn_explicit(message, KernelCacheWarning, filename="qsudoku", lineno=0,
                           module="qsudoku.samplers.jit")


def drop_entry(index) -> list[str]:
    """Remove the files of one kernel's cache entry: its index (``.nbi``) and every
    compiled-code file (``.nbc``) of its name; returns the paths removed.

    Args:
        index: numba's ``IndexDataCacheFile`` of the kernel.
    """
    removed = []
    folder = getattr(index, "_cache_path", None)
    name = getattr(index, "_index_name", None)
    if not folder or not name:
        return removed
    stem = name[:-len(".nbi")] if name.endswith(".nbi") else name
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for entry in names:
        if entry == name or (entry.startswith(stem + ".") and entry.endswith(".nbc")):
            try:
                os.unlink(os.path.join(folder, entry))
                removed.append(os.path.join(folder, entry))
            except OSError:
                pass
    return removed


#: Largest kernel-cache file read (compiled kernels take a few MB).
MAX_ENTRY_BYTES = 256 * 1024 * 1024


def check_entry(path: str | None) -> None:
    """Check a kernel-cache file before numba reads it (:func:`~qsudoku.io.reading.open_regular`):
    a regular file of at most :data:`MAX_ENTRY_BYTES`; no such file passes.  A bad one is a
    :class:`~qsudoku.errors.QSudokuError` (:func:`safe_loader` then drops it).
    """
    from qsudoku.errors import ConfigError
    from qsudoku.io.reading import open_regular

    f = open_regular(path, "kernel cache file") if path else None
    if f is not None:
        with f:
            if os.fstat(f.fileno()).st_size > MAX_ENTRY_BYTES:
                raise ConfigError(f"cannot read the kernel cache file {path}: larger than "
                                  f"{MAX_ENTRY_BYTES:,} bytes")


def safe_loader(cache, load):
    """``load`` (a ``load_overload(sig, target_context)``) that treats an unreadable cache
    entry as a miss: the entry is dropped (:func:`drop_entry`), one warning line is
    shown, and ``None`` is returned, so that numba compiles the kernel and saves it anew.

    Also makes the index reader of ``cache`` return an empty index for an unreadable
    index file (dropping it), since saving a new entry reads the index first.
    """
    index = getattr(cache, "_cache_file", None)

    def dropped(error: BaseException) -> None:
        drop_entry(index)
        where = getattr(index, "_cache_path", "numba's cache")
        _warn_once(f"an unreadable numba cache entry in {where} was dropped and is being "
                   f"rebuilt ({type(error).__name__})")

    read_index = getattr(index, "_load_index", None)
    if read_index is not None and not getattr(read_index, "_qsudoku_safe", False):
        def load_index():
            try:
                check_entry(getattr(index, "_index_path", None))
                return read_index()
            except Exception as e:  # noqa: BLE001 - any unreadable index is a miss
                dropped(e)
                return {}

        load_index._qsudoku_safe = True
        index._load_index = load_index
    read_data = getattr(index, "_load_data", None)
    if read_data is not None and not getattr(read_data, "_qsudoku_safe", False):
        def load_data(name):
            check_entry(os.path.join(getattr(index, "_cache_path", ""), name))
            return read_data(name)

        load_data._qsudoku_safe = True
        index._load_data = load_data

    def safe(sig, target_context):
        try:
            return load(sig, target_context)
        except Exception as e:  # noqa: BLE001 - any unreadable entry is a miss
            dropped(e)
            return None

    return safe


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


#: The modules whose code the numba kernels compile in, relative to this package.
KERNEL_MODULES = ("kernels.py", "aco/kernel.py", "aco/learn.py", "swap/kernel.py",
                  "swap/tabu_kernel.py")


@functools.cache
def sources_stamp(directory: str | None = None) -> tuple:
    """Name, modification time and size of every kernel module (:data:`KERNEL_MODULES`),
    and of the private modules (``_*.py``) of ``directory`` if given (kernels of another
    package): a kernel compiles in helpers of the others, so its cached machine code is
    valid only for all of them as they are.

    >>> [name for name, _, _ in sources_stamp()][:2]
    ['kernels.py', 'aco/kernel.py']
    """
    here = os.path.dirname(os.path.abspath(__file__))
    names = [os.path.join(here, n) for n in KERNEL_MODULES]
    if directory is not None:
        names += [os.path.join(directory, n) for n in sorted(os.listdir(directory))
                  if n.startswith("_") and not n.startswith("__") and n.endswith(".py")]
    stamp = []
    for path in names:
        try:
            st = os.stat(path)
        except OSError:  # a module missing from a partial install: nothing to stamp
            continue
        stamp.append((os.path.relpath(path, here), st.st_mtime, st.st_size))
    return tuple(stamp)


def _fast_load_ok() -> bool:
    """True if this numba's cache loader is one :func:`_load_cached` mirrors."""
    try:
        version = tuple(int(part) for part in numba.__version__.split(".")[:2])
    except ValueError:  # a development version string
        return False
    low, high = FAST_LOAD_NUMBA
    return low <= version < high


def _load_cached(cache, sig, target_context):
    """numba's ``Cache.load_overload`` less the full context refresh: initialise the
    runtime that compiled code calls (allocation, reference counts), then load."""
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)
    with cache._guard_against_spurious_io_errors():
        return cache._load_overload(sig, target_context)


def _tune_cache(dispatcher) -> None:
    """Key ``dispatcher``'s cache on the kernel modules beside its source, and load it
    without a refresh."""
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(cache, "_cache_file", None)
    source = getattr(dispatcher.py_func, "__code__", None)
    if hasattr(index, "_source_stamp") and source is not None:
        directory = os.path.dirname(os.path.abspath(source.co_filename))
        index._source_stamp = sources_stamp(directory)
    if (_fast_load_ok() and hasattr(cache, "_load_overload")
            and hasattr(cache, "_guard_against_spurious_io_errors")):
        cache.load_overload = functools.partial(_load_cached, cache)
    _make_safe(dispatcher)


def _make_safe(dispatcher) -> None:
    """Put :func:`safe_loader` on ``dispatcher``'s cache (if it has one), and make a
    failed save (a full disk, a cache made read-only) a warning: the kernel still runs."""
    cache = getattr(dispatcher, "_cache", None)
    if cache is not None and hasattr(cache, "load_overload"):
        cache.load_overload = safe_loader(cache, cache.load_overload)
    if cache is not None and hasattr(cache, "save_overload"):
        save = cache.save_overload

        def safe_save(sig, data):
            try:
                return save(sig, data)
            except OSError as e:
                where = getattr(getattr(cache, "_cache_file", None), "_cache_path", "")
                _warn_once(f"cannot write numba's kernel cache {where}: "
                           f"{e.strerror or e}; the kernels compile again in the next process")
                return None

        cache.save_overload = safe_save


def njit(**options):
    """``numba.njit(**options)`` with ``cache`` on wherever :func:`cache_mode` found a place;
    cached kernels are keyed on every kernel module and load without numba's refresh."""
    cache = cache_mode() in ("numba", "temp")
    decorate = numba.njit(cache=cache, **options)
    if not cache:
        return decorate

    def jit(func):
        dispatcher = decorate(func)
        _tune_cache(dispatcher)
        return dispatcher

    return jit
