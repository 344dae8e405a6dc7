"""What qsudoku says when the machine or the operating system refuses a file: one line
naming the path, and which failures are the machine's.

A failure of the machine (:data:`MACHINE_ERRNOS`: a full disk, a file-size limit, a
quota, an I/O error, a broken pipe) is a :class:`~qsudoku.errors.MachineError` (exit 4)
with its ``errno`` name; any other refusal met while writing is a
:class:`~qsudoku.errors.ConfigError` (exit 2).  Every reader and writer says these here.

>>> import errno
>>> str(output_error("out.csv", OSError(errno.EACCES, "Permission denied")))
'cannot write out.csv: Permission denied'
>>> type(output_error("out.csv", OSError(errno.ENOSPC, "No space left on device"))).__name__
'MachineError'
"""

from __future__ import annotations

import errno
import os
import stat

from qsudoku.errors import ConfigError, MachineError, QSudokuError

__all__ = ["MACHINE_ERRNOS", "machine_error", "is_machine", "output_error", "file_kind"]

#: ``errno`` values that are failures of the machine, not of the input or of qsudoku.
MACHINE_ERRNOS = frozenset(getattr(errno, name) for name in
                           ("ENOSPC", "EFBIG", "EDQUOT", "EIO", "EPIPE") if hasattr(errno, name))

#: What each failure of the machine means, in the words of one line.
_WHY = {errno.ENOSPC: "no space left on device",
        errno.EFBIG: "file too large: a file-size limit was reached",
        errno.EIO: "input/output error of the device",
        errno.EPIPE: "broken pipe: its reader has gone",
        errno.EROFS: "the file system is read-only"}
if hasattr(errno, "EDQUOT"):
    _WHY[errno.EDQUOT] = "disk quota exceeded"

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a file of ``mode`` is, for a message (``"a FIFO"``, ...).

    >>> import stat
    >>> file_kind(stat.S_IFIFO)
    'a FIFO'
    """
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def machine_error(where: str, e: OSError, kept: str = "", action: str = "write"
                  ) -> MachineError:
    """The one-line :class:`MachineError` for ``e`` met while writing ``where``.

    Args:
        where: The file (or ``"standard output"``).
        e: The error (a :class:`MachineError` is returned as it is, ``kept`` added).
        kept: Where the finished rows are, when a run keeps them.
        action: What failed, for ``"cannot {action} {where}"``.

    >>> import errno
    >>> str(machine_error("out.csv", OSError(errno.ENOSPC, "No space left on device")))
    'cannot write out.csv: no space left on device (ENOSPC)'
    >>> str(machine_error("r.csv", OSError(errno.EFBIG, "File too large"), kept="r.csv"))
    'cannot write r.csv: file too large: a file-size limit was reached (EFBIG); finished rows are kept in r.csv (--resume continues)'
    """
    tail = f"; finished rows are kept in {kept} (--resume continues)" if kept else ""
    if isinstance(e, MachineError):
        text = str(e)
        return e if not tail or "finished rows are kept" in text else MachineError(text + tail)
    code = errno.errorcode.get(e.errno or 0, "")
    why = _WHY.get(e.errno or 0)
    if why is None:
        why = (e.strerror or str(e) or type(e).__name__).strip().splitlines()[0]
        why = why[:1].lower() + why[1:]
    return MachineError(f"cannot {action} {where}: {why}" + (f" ({code})" if code else "") + tail)


def is_machine(e: BaseException) -> bool:
    """True for a failure of the machine: a :class:`MachineError`, or an ``OSError`` of
    :data:`MACHINE_ERRNOS`.

    >>> import errno
    >>> is_machine(OSError(errno.EFBIG, "File too large")), is_machine(OSError(errno.EACCES, "x"))
    (True, False)
    """
    return isinstance(e, MachineError) or (isinstance(e, OSError) and e.errno in MACHINE_ERRNOS)


def output_error(path: str, e: OSError) -> QSudokuError:
    """The one-line error for an ``OSError`` met while writing ``path``: a
    :class:`MachineError` (:data:`MACHINE_ERRNOS`) or a :class:`ConfigError`."""
    if isinstance(e, QSudokuError):
        return e
    if is_machine(e):
        return machine_error(path, e)
    if e.errno == errno.ELOOP:
        return ConfigError(f"cannot write {path}: it is a symbolic link "
                           "(qsudoku does not write through links)")
    if e.errno == errno.EISDIR:
        return ConfigError(f"cannot write {path}: it is a directory")
    if e.errno in (errno.ENOENT, errno.ENOTDIR):
        return ConfigError(f"cannot write {path}: directory "
                           f"{os.path.dirname(os.path.abspath(path))} does not exist")
    return ConfigError(f"cannot write {path}: {e.strerror or e}")
