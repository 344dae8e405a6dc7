"""What a path may be as an output of qsudoku, checked before anything is written.

:func:`check_target` is the check of one output file, :func:`check_outputs` the one check
of every command that writes: its outputs together, against each other and against the
files the command reads (see :mod:`qsudoku.io.output` for how they are written).

>>> check_target("-", "-o")  # standard output takes text
>>> import os, tempfile
>>> check_target(os.path.join(tempfile.mkdtemp(), "no", "x.txt"), "-o")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
qsudoku.errors.ConfigError: cannot write -o .../no/x.txt: directory .../no does not exist
"""

from __future__ import annotations

import os
import stat
import sys
from typing import Sequence

from qsudoku.errors import ConfigError
from qsudoku.io.failures import file_kind

__all__ = ["STDOUT", "is_stdout", "check_target", "check_outputs", "written_through",
           "stdout_is_terminal"]

#: The output name that means standard output.
STDOUT = "-"


def is_stdout(path) -> bool:
    """True if the output ``path`` means standard output (``-``).

    >>> is_stdout("-"), is_stdout("./-"), is_stdout("out.json")
    (True, False, False)
    """
    return path == STDOUT


def check_target(path: str, what: str = "", binary: bool = False) -> None:
    """Fail early, in one ``ConfigError`` line, if ``path`` (``-``: standard output; named
    ``what`` by the user, e.g. ``"-o"``) cannot be an output file: its directory is
    missing, it is a directory, or a ``binary`` format would go to a terminal."""
    name = f"{what} {path}".strip()
    if is_stdout(path):
        if binary and stdout_is_terminal():
            raise ConfigError(f"cannot write {name}: the format is binary and standard "
                              "output is a terminal; redirect it (> FILE, | program) or "
                              "give a file name")
        return
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ConfigError(f"cannot write {name}: directory {parent} does not exist")
    if os.path.isdir(path) and not os.path.islink(path):
        raise ConfigError(f"cannot write {name}: it is a directory")
    written_through(path, name)


def check_outputs(outputs, inputs=(), *, what: str | Sequence[str] = "-o",
                  binary: bool | Sequence[bool] = False) -> None:
    """Check every output of a command before any is written (one ``ConfigError`` line).
    The first ``outputs`` are named by the user, one per flag of ``what`` (``("-o",
    "--hist")``), each checked by :func:`check_target`; the rest are companions of the
    first, regular files or missing (a FIFO would block, a device swallow the data).  No
    output may be an input, another output (same inode, or same path if not yet made), or
    a second standard output.

    >>> import os, tempfile
    >>> a = os.path.join(tempfile.mkdtemp(), "a.png")
    >>> check_outputs([a, a], what=("-o", "--hist"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: cannot write --hist .../a.png: it is the same file as -o .../a.png; nothing was written
    """
    outputs = [os.fspath(o) for o in outputs]
    flags = [what] if isinstance(what, str) else list(what)
    kinds = [binary] * len(flags) if isinstance(binary, bool) else list(binary)
    if len(outputs) > len(flags) and is_stdout(outputs[0]):
        outputs = outputs[:len(flags)]  # companions of standard output: none are written
    read = {key[:2]: os.fspath(p) for p in reversed(list(inputs))  # the first input wins
            if p is not None and not is_stdout(p) and (key := _identity(p)) is not None}
    written: dict = {}
    for k, out in enumerate(outputs):
        flag, named = (flags[k], True) if k < len(flags) else ("", False)
        name = f"{flag} {out}".strip()
        check_target(out, flag, binary=named and bool(kinds[k]))
        key = _identity(out)
        if not named and key is not None and not stat.S_ISREG(key[2]):
            raise ConfigError(f"cannot write {name}: it is {file_kind(key[2])}, not a regular "
                              f"file (qsudoku writes the companions of {outputs[0]} only to "
                              "regular files); nothing was written")
        if key is not None and key[:2] in read:
            raise ConfigError(f"{flags[k] if named else flags[0]} {out if named else outputs[0]}"
                              f": {out} is also an input of this run ({read[key[:2]]}); write "
                              "the results to another file")
        same = ("-",) if is_stdout(out) else key[:2] if key is not None else _place(out)
        if same in written:
            raise ConfigError(f"cannot write {name}: " + (
                f"standard output takes {written[same]} already" if is_stdout(out) else
                f"it is the same file as {written[same]}") + "; nothing was written")
        written[same] = name


def _place(path: str) -> tuple[str, str]:
    """Where a file not yet made will be: its real directory and its name."""
    p = os.path.abspath(path)
    return os.path.realpath(os.path.dirname(p)), os.path.basename(p)


def _identity(path):
    """``(st_dev, st_ino, st_mode)`` of ``path`` (links followed), or ``None``."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, st.st_mode


def written_through(path: str, name: str) -> bool:
    """True if ``path`` is a FIFO or a character device, to be written through.

    Raises:
        ConfigError: ``path`` is a socket or a block device, or a symbolic link to
            anything but a regular file (a link to a FIFO or device is neither followed
            nor replaced).
    """
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode):
        try:
            to = os.stat(path)
        except OSError:  # a dangling link: replaced, as a link to a regular file is
            return False
        if not stat.S_ISREG(to.st_mode) and not stat.S_ISDIR(to.st_mode):
            raise ConfigError(f"cannot write {name}: it is a symbolic link to "
                              f"{file_kind(to.st_mode)} (qsudoku neither writes through a link "
                              "nor replaces one that leads to a FIFO or a device)")
        return False
    if stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode):
        return True
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"cannot write {name}: it is {file_kind(st.st_mode)}, not a regular file")
    return False


def stdout_is_terminal() -> bool:
    """True if standard output is a terminal (False if it is closed or no stream)."""
    try:
        return bool(sys.stdout.isatty())
    except (AttributeError, ValueError, OSError):  # closed or not a stream
        return False
