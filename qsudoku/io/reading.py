"""Every file qsudoku reads without being named by the user goes through here.

Each (solutions, a cache entry, a journal, a config) is opened without blocking, checked
with ``fstat`` to be a regular file before a byte is read, and read with a size bound.
An optional file that is not regular is skipped with one :class:`SkippedFileWarning`
(:func:`skip`); a file that must be ours is refused with the error.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "a.json")
>>> _ = open(path, "w").write("{}")
>>> read_regular(path, 10, "cache entry")
b'{}'
>>> read_regular(os.path.join(folder, "none"), 10, "cache entry") is None
True
>>> os.mkfifo(os.path.join(folder, "p"))
>>> read_regular(os.path.join(folder, "p"), 10, "cache entry")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
qsudoku.io.reading.NotRegularFileError: cannot read the cache entry .../p: it is a FIFO, not a regular file
>>> read_regular(path, 1, "cache entry")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
qsudoku.errors.ConfigError: cannot read the cache entry .../a.json: larger than 1 bytes
"""

from __future__ import annotations

import errno
import os
import stat
import warnings
from typing import IO

from qsudoku.errors import ConfigError, QSudokuError
from qsudoku.io.failures import file_kind, is_machine, machine_error

__all__ = ["open_regular", "read_regular", "skip", "SkippedFileWarning", "NotRegularFileError"]


class SkippedFileWarning(UserWarning):
    """An optional file qsudoku reads on its own was not read (not regular, too large,
    or unreadable)."""


class NotRegularFileError(ConfigError):
    """A file qsudoku reads on its own is a FIFO, a device, a socket or a directory.

    Attributes:
        path: The file.
        kind: What it is (``"a FIFO"``, ``"a directory"``, ...).
    """

    def __init__(self, message: str, path: str, kind: str):
        super().__init__(message)
        self.path = path
        self.kind = kind


def open_regular(path: str, what: str, *, follow: bool = True) -> IO[bytes] | None:
    """``path`` opened for binary reading, checked to be a regular file; ``None`` if
    there is no such file.

    Args:
        path: The file.
        what: What it is to qsudoku, for the message (``"solutions file"``).
        follow: Whether a symbolic link is followed (else it is refused).

    Raises:
        NotRegularFileError: It is not a regular file (checked before any read).
        ConfigError: The system refused to open it.
        MachineError: The machine failed (an I/O error).
    """
    path = os.fspath(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):  # no such file (nor directory)
        return None
    except OSError as e:
        raise _error(path, what, e) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as e:
        os.close(fd)
        raise _error(path, what, e) from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else file_kind(mode)
        raise NotRegularFileError(f"cannot read the {what} {path}: it is {kind}, not a "
                                  "regular file", path, kind)
    return os.fdopen(fd, "rb")


def read_regular(path: str, limit: int, what: str, *, follow: bool = True) -> bytes | None:
    """The bytes of the regular file ``path`` (see :func:`open_regular`), at most
    ``limit`` of them; ``None`` if there is no such file.

    Raises:
        ConfigError: Larger than ``limit`` bytes, or as :func:`open_regular`.
        MachineError: As :func:`open_regular`.
    """
    f = open_regular(path, what, follow=follow)
    if f is None:
        return None
    try:
        with f:  # a huge (or sparse) file is not read: its size says so first
            large = os.fstat(f.fileno()).st_size > limit
            data = b"" if large else f.read(limit + 1)
    except OSError as e:
        raise _error(path, what, e) from None
    if large or len(data) > limit:
        raise ConfigError(f"cannot read the {what} {path}: larger than {limit:,} bytes")
    return data


def skip(error: QSudokuError | OSError, then: str) -> None:
    """Warn in one :class:`SkippedFileWarning` line: ``error``, then ``then``."""
    warnings.warn_explicit(f"{error}; {then}", SkippedFileWarning, filename="qsudoku",
                           lineno=0, module="qsudoku.io.reading")


def _error(path: str, what: str, e: OSError) -> QSudokuError:
    if is_machine(e):
        return machine_error(f"the {what} {path}", e, action="read")
    if isinstance(e, IsADirectoryError):
        return NotRegularFileError(f"cannot read the {what} {path}: it is a directory, not a "
                                   "regular file", path, "a directory")
    if e.errno == errno.ELOOP:
        return ConfigError(f"cannot read the {what} {path}: it is a symbolic link "
                           "(qsudoku does not read it through a link)")
    return ConfigError(f"cannot read the {what} {path}: {e.strerror or e}")
