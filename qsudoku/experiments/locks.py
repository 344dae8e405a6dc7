"""One writer per results file: a lock named after the file's real path, and locks on
the file itself (whatever name, hard link included, reaches it).

The lock file of ``x.csv`` is ``x.csv.lock`` in its real directory (a Parquet output and
its journal share one).  It is only ever created exclusively, so a link planted at its name
cannot make qsudoku truncate what it reaches; a stale one is replaced only if it is a
regular file with one name holding only a pid; it is removed on release while still
locked (a writer that locked a removed file retries).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat

from qsudoku.errors import ConfigError
from qsudoku.experiments.results import JOURNAL_SUFFIX
from qsudoku.io.failures import file_kind, is_machine, machine_error, output_error

__all__ = ["lock_path", "lock", "unlock", "hold", "lock_file"]

_LOCK_SUFFIX = ".lock"


def lock_path(path: str) -> str:
    """The lock file of an output, the same for every name of it: its real directory,
    and a Parquet output's journal (``x.parquet.partial.csv``) locks as ``x.parquet``.

    >>> lock_path("/tmp/x.parquet.partial.csv") == lock_path("/tmp/./x.parquet")
    True
    """
    p = os.path.abspath(path)
    if p.lower().endswith(".parquet" + JOURNAL_SUFFIX):
        p = p[: -len(JOURNAL_SUFFIX)]
    return os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p)) + _LOCK_SUFFIX


def lock(path: str) -> int:
    """An open descriptor of :func:`lock_path` holding an exclusive ``flock`` (see the
    module doc; an existing lock file is checked by :func:`_clear_stale`).

    Raises:
        ConfigError: Another writer holds the lock, the lock file is not one of
            qsudoku's, or the system refused it.
        MachineError: The machine refused to create, lock or write the lock file (a full
            disk, an I/O error); a lock file this call created is not left then.
    """
    lock = lock_path(path)
    for _ in range(100):
        fd = _create(lock, path)
        if fd is None:
            continue  # a stale lock file was removed: create it anew
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in _BUSY:  # the file this call made: not left behind
                _remove(lock, fd)
            os.close(fd)
            raise _lock_error(e, lock, path, "") from None
        try:
            now = os.stat(lock, follow_symlinks=False)
        except FileNotFoundError:
            now = None
        held = os.fstat(fd)
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            try:  # the holder's pid, for the message of a refused second writer
                os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            except OSError as e:  # a full disk: no lock file is left behind
                unlock(path, fd)
                raise output_error(lock, e) from None
            return fd
        os.close(fd)  # removed by a writer that took it for stale: lock the new file
    raise ConfigError(f"cannot lock {lock}: it keeps being replaced")


_BUSY = (errno.EAGAIN, errno.EACCES)


def _lock_error(e: OSError, lock: str, path: str, holder: str) -> Exception:
    """Why ``flock`` of ``lock`` failed: another run holds it (pid ``holder``), the machine
    refused, or the system did."""
    if e.errno in _BUSY:
        who = f" (pid {holder})" if holder.isdigit() else ""
        return ConfigError(f"{path} is being written by another qsudoku run{who}; "
                           "wait for it to finish or write another file")
    if is_machine(e):
        return machine_error(lock, e, action="lock")
    return ConfigError(f"cannot lock {lock}: {e.strerror or e}")


def _create(lock: str, path: str) -> int | None:
    """A write-only descriptor of a new file ``lock``, created exclusively; ``None`` if
    an existing stale lock file was removed (or vanished) instead."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
             | getattr(os, "O_CLOEXEC", 0))
    try:
        return os.open(lock, flags, 0o666)
    except FileExistsError:
        pass
    except OSError as e:
        raise output_error(lock, e) from None
    _clear_stale(lock, path)
    return None


def _clear_stale(lock: str, path: str) -> None:
    """Remove the existing lock file ``lock`` if a dead run left it: a regular file with
    one name (no hard link), holding at most a pid, that no live run holds.

    Raises:
        ConfigError: A live run holds it, or it is not a lock file of qsudoku (a link of
            any kind, not a regular file, other data): then it is left as it is.
    """
    refuse = (f"cannot lock {path}: {lock} exists and is not a lock file of qsudoku "
              "({}); it was left as it is (remove it if no run uses it)")
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return  # removed meanwhile: create it anew
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ConfigError(refuse.format("a symbolic link")) from None
        raise output_error(lock, e) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(refuse.format(file_kind(st.st_mode)))
        if st.st_nlink != 1:
            raise ConfigError(refuse.format(f"a file with {st.st_nlink} names: a hard link"))
        text = os.pread(fd, 33, 0)
        if len(text) > 32 or not text.strip().isdigit() and text.strip():
            raise ConfigError(refuse.format("it holds other data than a pid"))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            raise _lock_error(e, lock, path, text.decode("ascii").strip()) from None
        _remove(lock, fd)  # a dead run's lock, held now by us alone: removed
    finally:
        os.close(fd)


def _remove(lock: str, fd: int) -> None:
    """Remove the name ``lock`` if it still names the file open as ``fd``."""
    try:
        now, held = os.stat(lock, follow_symlinks=False), os.fstat(fd)
        if (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            os.unlink(lock)
    except OSError:
        pass


def unlock(path: str, fd: int) -> None:
    try:
        os.unlink(lock_path(path))  # still locked: nobody can have locked this file
    except OSError:
        pass
    os.close(fd)


def hold(path: str) -> int | None:
    """A descriptor of the existing file ``path`` holding an exclusive ``flock`` on it
    (the file, whatever name reaches it); ``None`` if there is no such file.

    Raises:
        ConfigError: Another writer holds it, or it is not a regular file.
        MachineError: The machine refused to open it (an I/O error).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as e:
        if is_machine(e):
            raise machine_error(path, e, action="open") from None
        if e.errno == errno.ELOOP:
            raise ConfigError(f"cannot write {path}: it is a symbolic link "
                              "(qsudoku does not write through links)") from None
        raise ConfigError(f"cannot open {path}: {e.strerror or e}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ConfigError(f"cannot write {path}: it is not a regular file "
                          "(a results file must be one)")
    return lock_file(fd, path)


def lock_file(fd: int, path: str) -> int:
    """``fd``, an open descriptor of the file ``path``, holding an exclusive ``flock``.

    Raises:
        ConfigError: Another writer holds the file (``fd`` is closed then).
    """
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise ConfigError(f"{path} is being written by another qsudoku run (under another "
                          "name); wait for it to finish or write another file") from None
    return fd
