"""Read puzzle text one line at a time, with bounded memory, from files, pipes and devices.

A puzzle file can be larger than memory or never end (``/dev/zero``), so text is read
line by line: at most :data:`MAX_LINE_BYTES` a line, NUL bytes mean a binary file, and
each line is decoded from UTF-8 on its own (a leading byte-order mark is dropped), split
as :meth:`str.splitlines` splits.  A read error ends the lines, yielded in place of the
line: a :class:`~qsudoku.errors.PuzzleFormatError`, or a
:class:`~qsudoku.errors.MachineError` when the machine failed.

>>> import io
>>> list(read_lines(io.BytesIO(b"\\xef\\xbb\\xbfab\\r\\ncd\\n"), "x.txt"))
[(1, 'ab'), (2, 'cd')]
>>> list(read_lines(io.BytesIO(b"ab\\n\\x00\\n"), "x.txt"))[1][1]
PuzzleFormatError('x.txt:2: binary file (NUL bytes), not puzzle text')
"""

from __future__ import annotations

import os
from typing import IO, Iterator

from qsudoku.errors import MachineError, PuzzleFormatError
from qsudoku.io.failures import is_machine, machine_error

__all__ = ["MAX_LINE_BYTES", "read_lines", "file_lines", "NumberedLines"]

#: Longest line read (a 1000x1000 grid on one line has 10**6 symbols).
MAX_LINE_BYTES = 4 * 1024 * 1024

#: A line read, or the error that ended the text.
NumberedLines = Iterator[tuple[int, "str | PuzzleFormatError | MachineError"]]


def _read_error(source: str, e: OSError, line: int | None = None):
    """The error of a failed read: the machine's (:class:`MachineError`) or the input's."""
    if is_machine(e):
        return machine_error(source, e, action="read")
    return PuzzleFormatError(f"cannot read: {e.strerror or e}", source=source, line=line)


def read_lines(stream: IO, source: str) -> NumberedLines:
    """``(line number, text)`` of each line of a binary or text ``stream``, each as soon
    as it is complete."""
    lineno = 0
    while True:
        try:
            chunk = stream.readline(MAX_LINE_BYTES + 1)
        except OSError as e:
            yield lineno + 1, _read_error(source, e)
            return
        except UnicodeDecodeError:  # a text stream that decodes for us
            yield lineno + 1, PuzzleFormatError("not UTF-8 text", source=source, line=lineno + 1)
            return
        if not chunk:
            return
        where = lineno + 1
        nul = b"\0" if isinstance(chunk, bytes) else "\0"
        if nul in chunk:
            yield where, PuzzleFormatError("binary file (NUL bytes), not puzzle text",
                                           source=source, line=where)
            return
        if len(chunk) > MAX_LINE_BYTES:
            yield where, PuzzleFormatError(f"a line longer than {MAX_LINE_BYTES} bytes is not "
                                           "puzzle text", source=source, line=where)
            return
        if isinstance(chunk, bytes):
            try:
                chunk = chunk.decode("utf-8")
            except UnicodeDecodeError:
                yield where, PuzzleFormatError("not UTF-8 text", source=source, line=where)
                return
        if lineno == 0 and chunk.startswith("\ufeff"):
            chunk = chunk[1:]
        for part in chunk.splitlines() or [""]:
            lineno += 1
            yield lineno, part


def file_lines(path: str) -> NumberedLines:
    """:func:`read_lines` of the file (or device, or FIFO) at ``path``; a file that
    cannot be opened is one error."""
    try:
        f = open(path, "rb")
    except OSError as e:
        if os.path.isdir(path):
            yield 1, PuzzleFormatError("cannot read: it is a directory", source=path)
        else:
            yield 1, _read_error(path, e)
        return
    with f:
        yield from read_lines(f, path)
