"""Every file qsudoku writes goes through here: atomic, exclusive, never through a link.

A whole file is written by :func:`atomic_write`: into a new temporary file created
exclusively (``O_EXCL``, ``O_NOFOLLOW``, a random name) beside the target, ``fsync``-ed,
then ``os.replace``-d onto it, so a reader sees the old file or the new one and a planted
symbolic link is never followed.  A file that grows row by row is opened by
:func:`open_nofollow`.

A FIFO or a character device at the target is written through (no ``O_CREAT``; a FIFO
with no reader is refused at once); a socket, a block device or a link to a FIFO or a
device is refused.  ``-`` (:data:`STDOUT`) is standard output: a binary format goes there
only when it is redirected, never to a terminal.

Every failure is one line naming the path (:mod:`qsudoku.io.failures`): a
:class:`~qsudoku.errors.ConfigError` (exit 2), or a :class:`~qsudoku.errors.MachineError`
(exit 4) for a failure of the machine.  The checks made before anything is written are in
:mod:`qsudoku.io.targets`.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "a.txt")
>>> write_text(path, "hello\\n")
>>> open(path).read()
'hello\\n'
>>> write_text(folder, "x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
qsudoku.errors.ConfigError: cannot write ...: it is a directory
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from typing import IO, Callable, Iterator, Mapping

from qsudoku.errors import ConfigError
from qsudoku.io.failures import (MACHINE_ERRNOS, file_kind, is_machine, machine_error,
                                 output_error)
from qsudoku.io.targets import (STDOUT, check_outputs, check_target, is_stdout,
                                written_through)

__all__ = ["STDOUT", "is_stdout", "check_target", "check_outputs", "atomic_write", "atomic_open",
           "write_text", "write_texts", "write_bytes", "open_nofollow", "output_error", "file_kind", "make_directory",
           "machine_error", "is_machine", "MACHINE_ERRNOS"]


def atomic_write(path: str, write: Callable[[IO[bytes]], object]) -> None:
    """Call ``write(binary file)`` on a new exclusive temporary file beside ``path``,
    then move it onto ``path`` (see :func:`atomic_open`)."""
    with atomic_open(path, "wb") as f:
        write(f)


@contextmanager
def atomic_open(path: str, mode: str = "w") -> Iterator[IO]:
    """``with atomic_open(path) as f: f.write(...)``: a new exclusive temporary file
    beside ``path``, text (``"w"``, UTF-8) or binary (``"wb"``), that replaces ``path``
    when the block ends without an error (an error leaves ``path`` as it was; errors
    other than ``OSError`` pass through).  A FIFO or a character device is written through.

    Raises:
        ConfigError: See :func:`check_target`, or the system refused to create,
            write or rename the file.
        MachineError: The disk is full, a file-size limit or quota was reached.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', not {mode!r}")
    check_target(path, binary=mode == "wb")
    if is_stdout(path):
        with _write_stdout(mode) as f:
            yield f
        return
    if written_through(path, path):
        with _write_through(path, mode) as f:
            yield f
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as raw:
            with _in_mode(raw, mode) as f:
                yield f
            os.fsync(raw.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise output_error(path, e) from None
        raise
    _fsync_dir(directory)


@contextmanager
def _in_mode(raw: IO[bytes], mode: str) -> Iterator[IO]:
    """``raw`` as text (``"w"``, UTF-8) or binary (``"wb"``), flushed at the end."""
    f = raw if mode == "wb" else io.TextIOWrapper(raw, encoding="utf-8", newline="")
    yield f
    f.flush()
    if isinstance(f, io.TextIOWrapper):
        f.detach()


def _temporary(path: str) -> tuple[int, str]:
    """A new temporary file beside ``path``: ``(descriptor, name)``."""
    try:  # mkstemp opens O_CREAT | O_EXCL | O_NOFOLLOW with a random name, mode 0600
        return tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except OSError as e:
        raise output_error(path, e) from None


def write_texts(files: Mapping[str, str]) -> None:
    """Write several text files (UTF-8) as one: a file and its companions.

    Every regular target is first written whole to a temporary file beside it (as
    :func:`atomic_open` does), and only then are they renamed onto their targets: a full
    disk leaves every target as it was.  A FIFO or a character device is written through
    after the renames.

    Raises:
        ConfigError: See :func:`check_target`, or the system refused a file.
        MachineError: The disk is full, a file-size limit or quota was reached.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> a, b = os.path.join(folder, "a.txt"), os.path.join(folder, "b.txt")
    >>> write_texts({a: "1\\n", b: "2\\n"})
    >>> open(a).read(), open(b).read()
    ('1\\n', '2\\n')
    """
    through, staged = [], {}
    for path in files:
        check_target(path)
        if is_stdout(path) or written_through(path, path):
            through.append(path)
    try:
        for path, text in files.items():
            if path in through:
                continue
            fd, staged[path] = _temporary(path)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(text.encode("utf-8"))
                    f.flush()
                    os.fsync(f.fileno())
                os.chmod(staged[path], 0o666 & ~_umask())
            except OSError as e:
                raise output_error(path, e) from None
        for path in list(staged):  # every file is whole: now they replace the old ones
            try:
                os.replace(staged[path], path)
            except OSError as e:
                raise output_error(path, e) from None
            del staged[path]
    finally:
        for tmp in staged.values():
            try:
                os.unlink(tmp)
            except OSError:
                pass
    for directory in dict.fromkeys(os.path.dirname(os.path.abspath(p)) for p in files
                                   if p not in through):
        _fsync_dir(directory)
    for path in through:
        write_text(path, files[path])


@contextmanager
def _write_through(path: str, mode: str) -> Iterator[IO]:
    """The FIFO or character device ``path`` opened for writing as it is (no ``O_CREAT``,
    no link followed), checked again once open."""
    try:  # without blocking: a FIFO with no reader fails now (ENXIO) instead of hanging
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise ConfigError(f"cannot write {path}: it is a FIFO with no reader (start "
                              "the reader first, or write to a regular file)") from None
        raise output_error(path, e) from None
    try:
        os.set_blocking(fd, True)
        st = os.fstat(fd)
        if not (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
            raise ConfigError(f"cannot write {path}: it changed while being opened")
        with os.fdopen(fd, "wb") as raw:
            fd = -1
            with _in_mode(raw, mode) as f:
                yield f
    except OSError as e:
        raise output_error(path, e) from None
    finally:
        if fd >= 0:
            os.close(fd)


@contextmanager
def _write_stdout(mode: str) -> Iterator[IO]:
    """Standard output as the file of :func:`atomic_open` (left open, flushed); a
    ``BrokenPipeError`` passes through."""
    try:
        sys.stdout.flush()
        f = sys.stdout if mode == "w" else sys.stdout.buffer
        yield f
        f.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise output_error("standard output", e) from None


def write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_write`)."""
    atomic_write(path, lambda f: f.write(data))


def write_text(path: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path, "w") as f:
        f.write(text)


def open_nofollow(path: str, flags: int, mode: int = 0o666) -> int:
    """``os.open(path, flags | O_NOFOLLOW | O_CLOEXEC)``; a link or another refusal
    becomes a one-line :class:`ConfigError`.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> os.symlink(os.path.join(folder, "victim"), os.path.join(folder, "link"))
    >>> open_nofollow(os.path.join(folder, "link"), os.O_WRONLY | os.O_CREAT)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: cannot write .../link: it is a symbolic link (qsudoku does not write through links)
    >>> os.path.exists(os.path.join(folder, "victim"))
    False
    """
    try:
        return os.open(path, flags | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as e:
        raise output_error(path, e) from None


def make_directory(path: str, what: str = "") -> None:
    """Create the output directory ``path`` (and its parents) if missing.

    Raises:
        ConfigError: ``path`` exists and is not a directory, or cannot be created.
        MachineError: The machine refused to create it (a full disk, a quota).
    """
    name = f"{what} {path}".strip()
    if os.path.lexists(path) and not os.path.isdir(path):
        raise ConfigError(f"cannot write into {name}: it exists and is not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        if is_machine(e):
            raise machine_error(name, e, action="create the directory") from None
        raise ConfigError(f"cannot create the directory {name}: {e.strerror or e}") from None


def _umask() -> int:
    """The process umask, read without setting it where the system shows it (no race)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
