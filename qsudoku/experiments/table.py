"""Incremental, resumable, single-writer result tables for long runs (``bench``, ``sweep``).

Each finished row is one ``write`` of a complete CSV line, flushed and ``fsync``-ed, so an
interrupted run keeps every finished row (a torn last line is dropped on resume).  A
``.parquet`` output is journaled to ``<out>.partial.csv`` and converted atomically, by
chunks, when the run closes (:mod:`qsudoku.experiments.convert`).

One :class:`RowWriter` holds an output at a time, under every name that reaches it (a lock
named after its real path, :mod:`qsudoku.experiments.locks`, and a ``flock`` on the files
themselves); a second writer is refused before it touches anything.  Only a file that
provably is a results file of qsudoku is resumed
(:func:`~qsudoku.experiments.results.results_header`, :mod:`qsudoku.experiments.resume`).
A refused write is a :class:`~qsudoku.errors.MachineError` that keeps every earlier row;
a key already in the table is never written again; nothing is written through a link.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
>>> with RowWriter(path, key=("puzzle", "repeat")) as w:
...     w.write({"puzzle": "a", "repeat": 0, "valid": True})
True
>>> with RowWriter(path, key=("puzzle", "repeat"), resume=True) as w:
...     ("a", "0") in w.done, w.write({"puzzle": "a", "repeat": 0, "valid": False})
(True, False)
>>> len(read_rows(path)), load_frame(path)["valid"].tolist()
(1, [True])
"""

from __future__ import annotations

import csv
import io
import os
import signal
import sys
from contextlib import contextmanager, suppress
from typing import Iterable, Mapping, Sequence

from qsudoku.errors import ConfigError, MachineError
from qsudoku.experiments import locks
from qsudoku.experiments.locks import lock_path
from qsudoku.experiments.convert import write_parquet
from qsudoku.experiments.results import (check_format, header_line, iter_rows, journal_path,
                                         load_frame, read_rows, results_header)
from qsudoku.experiments.resume import check_header, copy_rows, csv_value, row_key
from qsudoku.io.failures import machine_error, output_error
from qsudoku.io.output import atomic_open
from qsudoku.io.output import atomic_write as _atomic_write
from qsudoku.io.output import check_target as _check_target
from qsudoku.io.output import STDOUT, open_nofollow, write_text

__all__ = ["RowWriter", "StdoutRows", "read_rows", "load_frame", "write_text", "terminate_as_interrupt",
           "journal_path", "lock_path", "machine_error", "write_all"]

def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` and ``fsync`` it (``OSError`` as the system
    raises it: a torn line is possible, and dropped by a resume)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


class RowWriter:
    """Append rows to a results table, one durable line per finished row, as its only writer.

    Args:
        path: ``.csv`` or ``.parquet`` output.
        key: Columns that identify a row; the keys present (as strings) are in
            :attr:`done`, and :meth:`write` never writes a key twice.
        resume: Keep existing rows and continue; otherwise an existing file is an error
            unless ``overwrite``.
        overwrite: Replace an existing file.
        fields: The columns of this run's rows, in order; a resumed file written with
            other columns is refused before anything is rewritten.

    Raises:
        BackendUnavailableError: A ``.parquet`` output without pyarrow installed (before
            anything is locked or written).
        ConfigError: Bad suffix or target; another writer holds it; it exists without
            ``resume`` or ``overwrite``; a resumed file is not one of this run (the
            message names the file and line).  Nothing is changed then.
    """

    _newline = "\r\n"  # the csv module's, as every table written so far has it

    def __init__(self, path: str, key: Sequence[str] = (), *, resume: bool = False,
                 overwrite: bool = False, fields: Sequence[str] | None = None):
        path = os.fspath(path)
        if not path.lower().endswith((".csv", ".parquet")):
            raise ConfigError(f"results file {path!r} must end in .csv or .parquet")
        self.path = path
        self.journal = journal_path(path)
        self.key = tuple(key)
        self.expected = None if fields is None else list(fields)
        self.fields: list[str] | None = None
        self.done: set[tuple] = set()
        self.rows_written = 0
        self.rows_skipped = 0
        self._fd: int | None = None
        self._held: list[int] = []
        check_format(path)  # a Parquet output needs pyarrow: said before anything is held
        for p in {path, self.journal}:
            _check_target(p)
        self._lock_fd = locks.lock(path)  # before anything is read or rewritten
        try:
            self._open(resume, overwrite)
        except BaseException:
            self._release()
            raise

    def _open(self, resume: bool, overwrite: bool) -> None:
        path, journal = self.path, self.journal
        for p in dict.fromkeys((path, journal)):  # a link is refused, never followed
            fd = locks.hold(p)  # the file itself, under whatever other name it is written
            if fd is not None:
                self._held.append(fd)
        exists = os.path.exists(journal) or os.path.exists(path)
        if exists and not (resume or overwrite):
            raise ConfigError(f"{path} exists; pass --resume to continue it, --overwrite to "
                              "replace it, or write another file")
        if resume and exists:
            # an interrupted resumed Parquet run: the journal holds every row
            source = journal if os.path.exists(journal) else path
            self._resume_from(source)  # drops a torn last line
        elif os.path.exists(journal):
            try:
                os.remove(journal)
            except OSError as e:
                raise output_error(journal, e) from None
        if self.fields is None and self.expected is not None:
            self.fields = list(self.expected)
        if self.fields is not None and not os.path.lexists(journal):
            # the header at once: a file of ours is never empty, so --resume can tell it
            with atomic_open(journal, "w") as f:
                f.write(header_line(self.fields))
        fd = open_nofollow(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self._fd = locks.lock_file(fd, journal)

    def _resume_from(self, source: str) -> None:
        """Check the rows of ``source`` and copy them into a new journal
        (:func:`~qsudoku.experiments.resume.copy_rows`)."""
        check_header(self.path, results_header(source), self.key, self.expected)
        fields = copy_rows(source, self.journal, self.key, self.done)
        if fields is not None:
            self.fields = fields

    def write(self, row: Mapping) -> bool:
        """Append one finished row durably.

        Returns:
            ``True`` if written; ``False`` if a row with the same key is already in the
            table (then nothing is written).

        Raises:
            MachineError: The machine refused the write (disk full, file too large): the
                rows before it are kept; this writer writes no more.
            ValueError: The row has columns the table does not have.
        """
        if self._fd is None:
            raise ValueError(f"the writer of {self.path} is closed")
        row = {k: csv_value(v) for k, v in row.items()}
        k = row_key(row, self.key)
        if self.key and k in self.done:
            self.rows_skipped += 1
            return False
        buf = io.StringIO()
        if self.fields is None:
            self.fields = list(row.keys())
        out = csv.DictWriter(buf, self.fields, lineterminator=self._newline)
        if self._empty():
            out.writeheader()
        extra = set(row) - set(self.fields)
        if extra:
            raise ValueError(f"row has columns not in the table: {sorted(extra)}")
        out.writerow(row)
        self._append(buf.getvalue())
        self.done.add(k)
        self.rows_written += 1
        return True

    def _empty(self) -> bool:  # no line yet: the header goes first
        try:
            return os.fstat(self._fd).st_size == 0
        except OSError as e:
            raise self._failed(e) from None

    def _append(self, text: str) -> None:
        try:
            write_all(self._fd, text.encode("utf-8"))
        except OSError as e:
            raise self._failed(e) from None

    def _failed(self, e: OSError) -> MachineError:
        """Stop writing (a torn line is dropped on resume) and name the failure."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with suppress(OSError):
                os.close(fd)
        self._broken = True
        return machine_error(self.journal, e, kept=self.journal)

    def write_many(self, rows: Iterable[Mapping]) -> int:
        """Write each row; returns how many were written (not already present)."""
        return sum(bool(self.write(row)) for row in rows)

    def close(self) -> None:
        """Close and release the lock; a Parquet output is written (atomically) from the
        journal.

        Raises:
            MachineError: The Parquet file could not be written (its rows stay in the
                journal, which ``--resume`` reads); the lock is released all the same.
        """
        if self._lock_fd is None:
            return
        try:
            fd, self._fd = self._fd, None
            if fd is not None:
                os.close(fd)
            if self.journal != self.path and not getattr(self, "_broken", False):
                self._convert()
        finally:
            self._release()

    def _convert(self) -> None:
        if next(iter_rows(self.journal), None) is None:
            return  # no row: no Parquet file (the journal stays, resumable)
        try:  # by chunks of rows: memory bounded by a chunk, not by the journal
            _atomic_write(self.path, lambda f: write_parquet(self.journal, f))
        except OSError as e:  # a MachineError said by atomic_write included
            raise machine_error(self.path, e, kept=self.journal) from None
        except ConfigError as e:  # atomic_write's one line for the system's refusal
            raise MachineError(f"{e}; finished rows are kept in {self.journal} "
                               "(--resume continues)") from None
        try:
            os.remove(self.journal)
        except OSError as e:
            raise output_error(self.journal, e) from None

    def _release(self) -> None:
        for fd in self._held:
            with suppress(OSError):
                os.close(fd)
        self._held = []
        if self._fd is not None:
            with suppress(OSError):
                os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            locks.unlock(self.path, self._lock_fd)
            self._lock_fd = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and issubclass(exc_type, MachineError):
            self._broken = True  # the journal keeps every row; do not write more
        self.close()
        return False


class StdoutRows(RowWriter):
    """The rows of a run as CSV on standard output (``-o -``), flushed a line per row; no
    file to lock, resume or convert.

    >>> with StdoutRows(("k",)) as w:
    ...     w.write({"k": 1, "v": 0.5}), w.write({"k": 1, "v": 0.7})
    k,v
    1,0.5
    (True, False)
    """

    _newline = "\n"

    def __init__(self, key: Sequence[str] = (), *, fields: Sequence[str] | None = None):
        self.path = self.journal = STDOUT
        self.key, self.done, self.rows_written, self.rows_skipped = tuple(key), set(), 0, 0
        self.expected = self.fields = None if fields is None else list(fields)
        self._fd, self._lock_fd, self._held, self._started = -1, None, [], False

    def _empty(self) -> bool:
        return not self._started

    def _append(self, text: str) -> None:
        sys.stdout.write(text)  # a reader that left stops the run quietly (the CLI)
        sys.stdout.flush()
        self._started = True

    def close(self) -> None:
        self._fd = None


@contextmanager
def terminate_as_interrupt():
    """Within the block, SIGTERM raises KeyboardInterrupt so ``finally`` blocks run."""
    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        with suppress(ValueError):  # a generator finalised in another thread
            signal.signal(signal.SIGTERM, old)
