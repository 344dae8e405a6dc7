"""Incremental, resumable, single-writer result tables for long runs (``bench``, ``sweep``).

Rows are written as they finish: each row is one ``write`` of a complete CSV line,
flushed and ``fsync``-ed, so an interrupted run (Ctrl-C, SIGTERM, a crash) keeps
every finished row and at worst leaves a torn last line, which a resumed run
drops.  A ``.parquet`` output is journaled to ``<out>.partial.csv`` and converted
atomically when the run closes.

One :class:`RowWriter` holds an output at a time: it takes an exclusive lock on
``<out>.lock`` before it reads or rewrites anything, and a second writer (another
run, or another writer in this process) is refused with a
:class:`~qsudoku.errors.ConfigError`.  A row whose key the table already has is not
written again, so a batch that Dask re-runs after losing a worker, or a key that a
resumed run already holds, never becomes a duplicate row.  Nothing is written
through a symbolic link.

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
import errno
import fcntl
import io
import json
import math
import os
import signal
from contextlib import contextmanager, suppress
from typing import Iterable, Mapping, Sequence

from qsudoku.errors import ConfigError
from qsudoku.io.output import atomic_write as _atomic_write
from qsudoku.io.output import check_target as _check_target
from qsudoku.io.output import open_nofollow, write_text

__all__ = ["RowWriter", "read_rows", "load_frame", "write_text", "terminate_as_interrupt"]

_LOCK_SUFFIX = ".lock"


def _journal_path(path: str) -> str:
    return path + ".partial.csv" if path.lower().endswith(".parquet") else path


def read_rows(path: str) -> list[dict]:
    """Rows of a CSV (or Parquet) results file; a torn last CSV line is dropped."""
    return _read_table(path)[1]


def _read_table(path: str) -> tuple[list[str] | None, list[dict]]:
    """``(header, rows)`` of a results file (``(None, [])`` if there is none)."""
    if path.lower().endswith(".parquet") and os.path.exists(path):
        import pandas as pd

        df = pd.read_parquet(path)
        return list(df.columns), df.to_dict("records")
    path = _journal_path(path)
    if not os.path.exists(path):
        return None, []
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.DictReader(io.StringIO(text))
    rows = list(reader)
    return reader.fieldnames, rows


def load_frame(path_or_rows):
    """A :class:`pandas.DataFrame` of a results file (CSV or Parquet), a list of row
    dicts or a DataFrame, with types restored.

    Empty cells become NaN; a column of numbers (``"inf"`` included) becomes numeric;
    a column of only ``"True"``/``"False"`` becomes boolean; other text stays text.

    >>> df = load_frame([{"p": "0.5", "t": "inf", "ok": "True", "n": ""},
    ...                  {"p": "1", "t": "2", "ok": "False", "n": "3"}])
    >>> df["p"].tolist(), df["t"].tolist(), df["ok"].tolist(), df["n"].tolist()
    ([0.5, 1.0], [inf, 2.0], [True, False], [nan, 3.0])
    """
    import pandas as pd

    if isinstance(path_or_rows, pd.DataFrame):
        df = path_or_rows.copy()
    elif isinstance(path_or_rows, (str, os.PathLike)):
        df = pd.DataFrame(read_rows(os.fspath(path_or_rows)))
    else:
        df = pd.DataFrame(list(path_or_rows))
    for col in df.columns:
        s = df[col]
        if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        empty = s.isna() | s.map(lambda v: isinstance(v, str) and not v.strip())
        filled = s[~empty]
        if filled.empty:
            df[col] = math.nan
            continue
        if filled.map(lambda v: v in ("True", "False") or isinstance(v, bool)).all():
            values = s.map(lambda v: v if isinstance(v, bool) else v == "True")
            df[col] = values.astype(bool) if not empty.any() else values.where(~empty, math.nan)
            continue
        conv = pd.to_numeric(s.where(~empty), errors="coerce")
        if conv[~empty].notna().all():
            df[col] = conv
        elif empty.any():
            df[col] = s.where(~empty, math.nan)
    return df


def _lock(path: str) -> int:
    """An open descriptor of ``<path>.lock`` holding an exclusive ``flock``.

    The lock file is removed on release while still locked, so after locking we check
    that the name still refers to the locked file (else another writer removed it
    meanwhile and we retry on the new one).
    """
    lock = path + _LOCK_SUFFIX
    for _ in range(100):
        fd = open_nofollow(lock, os.O_CREAT | os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            try:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            finally:
                os.close(fd)
            if e.errno not in (errno.EAGAIN, errno.EACCES):
                raise ConfigError(f"cannot lock {lock}: {e.strerror or e}") from None
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise ConfigError(f"{path} is being written by another qsudoku run{who}; "
                              "wait for it to finish or write another file") from None
        try:
            now = os.stat(lock, follow_symlinks=False)
        except FileNotFoundError:
            now = None
        held = os.fstat(fd)
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            return fd
        os.close(fd)  # removed by the writer that just finished: lock the new file
    raise ConfigError(f"cannot lock {lock}: it keeps being replaced")


def _unlock(path: str, fd: int) -> None:
    try:
        os.unlink(path + _LOCK_SUFFIX)  # still locked: nobody can have locked this file
    except OSError:
        pass
    os.close(fd)


class RowWriter:
    """Append rows to a results table, one durable line per finished row, as the only
    writer of that table.

    Args:
        path: ``.csv`` or ``.parquet`` output.
        key: Columns that identify a row; with ``resume`` the keys already present
            (as strings) are in :attr:`done`, so the caller skips them, and
            :meth:`write` never writes a key twice.
        resume: Keep existing rows and continue; otherwise an existing file is an error
            unless ``overwrite``.
        overwrite: Replace an existing file.

    Raises:
        ConfigError: Bad suffix; missing directory; ``path`` is a directory or a
            symbolic link; another writer holds it; it exists without ``resume`` or
            ``overwrite``; a resumed file lacks the key columns.
    """

    def __init__(self, path: str, key: Sequence[str] = (), *, resume: bool = False,
                 overwrite: bool = False):
        path = os.fspath(path)
        if not path.lower().endswith((".csv", ".parquet")):
            raise ConfigError(f"results file {path!r} must end in .csv or .parquet")
        self.path = path
        self.journal = _journal_path(path)
        self.key = tuple(key)
        self.fields: list[str] | None = None
        self.done: set[tuple] = set()
        self.rows_written = 0
        self.rows_skipped = 0
        self._f = None
        for p in {path, self.journal}:
            _check_target(p)
        self._lock_fd = _lock(path)  # before anything is read or rewritten
        try:
            self._open(resume, overwrite)
        except BaseException:
            _unlock(self.path, self._lock_fd)
            raise

    def _open(self, resume: bool, overwrite: bool) -> None:
        path, journal = self.path, self.journal
        for p in {path, journal}:
            if os.path.islink(p):
                raise ConfigError(f"cannot write {p}: it is a symbolic link "
                                  "(qsudoku does not write through links)")
        exists = os.path.exists(journal) or os.path.exists(path)
        if exists and not (resume or overwrite):
            raise ConfigError(f"{path} exists; pass --resume to continue it or remove it")
        if resume and exists:
            # an interrupted resumed Parquet run: the journal holds every row
            header, previous = _read_table(journal if os.path.exists(journal) else path)
            missing = [k for k in self.key if k not in (header or self.key)]
            if missing:
                raise ConfigError(f"cannot resume {path}: it has no column "
                                  f"{', '.join(missing)} (is it a results file of this command?)")
            self._rewrite(header, previous)  # drops a torn last line
            for row in previous:
                self.done.add(self._key_of(row))
        elif os.path.exists(journal):
            os.remove(journal)
        fd = open_nofollow(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self._f = os.fdopen(fd, "a", encoding="utf-8", newline="")

    def _key_of(self, row: Mapping) -> tuple:
        return tuple(_key_str(row.get(k)) for k in self.key)

    def _rewrite(self, header: list[str] | None, rows: list[dict]) -> None:
        if rows:
            self.fields = list(header or rows[0].keys())
        buf = io.StringIO()
        if self.fields:
            w = csv.DictWriter(buf, self.fields)
            w.writeheader()
            w.writerows({k: _key_str(v) if isinstance(v, float) and math.isnan(v) else _cell(v)
                         for k, v in r.items()} for r in rows)  # NaN (Parquet) -> empty cell
        data = buf.getvalue().encode("utf-8")
        _atomic_write(self.journal, lambda f: f.write(data))

    def write(self, row: Mapping) -> bool:
        """Append one finished row durably.

        Returns:
            ``True`` if written; ``False`` if a row with the same key is already in the
            table (then nothing is written).
        """
        row = {k: _cell(v) for k, v in row.items()}
        k = self._key_of(row)
        if self.key and k in self.done:
            self.rows_skipped += 1
            return False
        buf = io.StringIO()
        if self.fields is None:
            self.fields = list(row.keys())
            if self._f.tell() == 0:
                csv.DictWriter(buf, self.fields).writeheader()
        extra = set(row) - set(self.fields)
        if extra:
            raise ValueError(f"row has columns not in the table: {sorted(extra)}")
        csv.DictWriter(buf, self.fields).writerow(row)
        self._f.write(buf.getvalue())
        self._f.flush()
        os.fsync(self._f.fileno())
        self.done.add(k)
        self.rows_written += 1
        return True

    def write_many(self, rows: Iterable[Mapping]) -> int:
        """Write each row; returns how many were written (not already present)."""
        return sum(bool(self.write(row)) for row in rows)

    def close(self) -> None:
        """Close and release the lock; a Parquet output is written (atomically) from the
        journal."""
        if self._f is None or self._f.closed:
            return
        try:
            self._f.close()
            if self.journal != self.path:
                rows = read_rows(self.journal)
                if rows:
                    import pandas as pd

                    df = pd.DataFrame(rows)
                    for col in df.columns:
                        try:
                            df[col] = pd.to_numeric(df[col])
                        except (ValueError, TypeError):
                            pass
                    _atomic_write(self.path, lambda f: df.to_parquet(f, index=False))
                    os.remove(self.journal)
        finally:
            _unlock(self.path, self._lock_fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _key_str(v) -> str:
    """A key value as the string a CSV holds ("" for empty, also after a Parquet round trip)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v)


def _cell(v):
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(v)
    return v


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
