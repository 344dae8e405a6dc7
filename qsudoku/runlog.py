"""Incremental, resumable result tables for long runs (``bench``, ``sweep``).

Rows are written as they finish: each row is one ``write`` of a complete CSV line,
flushed and ``fsync``-ed, so an interrupted run (Ctrl-C, SIGTERM, a crash) keeps
every finished row and at worst leaves a torn last line, which a resumed run
drops.  A ``.parquet`` output is journaled to ``<out>.partial.csv`` and converted
atomically when the run closes.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
>>> with RowWriter(path, key=("puzzle", "repeat")) as w:
...     w.write({"puzzle": "a", "repeat": 0, "valid": True})
>>> with RowWriter(path, key=("puzzle", "repeat"), resume=True) as w:
...     ("a", "0") in w.done, ("a", "1") in w.done
(True, False)
>>> len(read_rows(path))
1
"""

from __future__ import annotations

import csv
import io
import math
import os
import signal
from contextlib import contextmanager
from typing import Iterable, Mapping, Sequence

from .errors import ConfigError

__all__ = ["RowWriter", "read_rows", "terminate_as_interrupt"]


def _journal_path(path: str) -> str:
    return path + ".partial.csv" if path.lower().endswith(".parquet") else path


def read_rows(path: str) -> list[dict]:
    """Rows of a CSV (or Parquet) results file; a torn last CSV line is dropped."""
    if path.lower().endswith(".parquet") and os.path.exists(path):
        import pandas as pd

        return pd.read_parquet(path).to_dict("records")
    path = _journal_path(path)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    return list(csv.DictReader(io.StringIO(text)))


class RowWriter:
    """Append rows to a results table, one durable line per finished row.

    Args:
        path: ``.csv`` or ``.parquet`` output.
        key: Columns that identify a row; with ``resume`` the keys already present
            (as strings) are in :attr:`done`, so the caller skips them.
        resume: Keep existing rows and continue; otherwise an existing file is an error
            unless ``overwrite``.
        overwrite: Replace an existing file.
    """

    def __init__(self, path: str, key: Sequence[str] = (), *, resume: bool = False,
                 overwrite: bool = False):
        if not path.lower().endswith((".csv", ".parquet")):
            raise ConfigError(f"results file {path!r} must end in .csv or .parquet")
        self.path = path
        self.journal = _journal_path(path)
        self.key = tuple(key)
        self.fields: list[str] | None = None
        self.done: set[tuple] = set()
        self.rows_written = 0
        exists = os.path.exists(self.journal) or os.path.exists(path)
        if exists and not (resume or overwrite):
            raise ConfigError(f"{path} exists; pass --resume to continue it or remove it")
        previous = []
        if resume:  # an interrupted resumed Parquet run: the journal holds every row
            previous = read_rows(self.journal if os.path.exists(self.journal) else path)
        if resume and path.lower().endswith(".parquet") and previous and not os.path.exists(self.journal):
            self._rewrite(previous)
        elif resume and os.path.exists(self.journal):
            self._rewrite(read_rows(self.journal))  # drops a torn last line
        else:
            if os.path.exists(self.journal):
                os.remove(self.journal)
        for row in previous:
            self.done.add(tuple(_key_str(row.get(k)) for k in self.key))
        self._f = open(self.journal, "a", encoding="utf-8", newline="")

    def _rewrite(self, rows: list[dict]) -> None:
        tmp = self.journal + ".tmp"
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            if rows:
                self.fields = list(rows[0].keys())
                w = csv.DictWriter(f, self.fields)
                w.writeheader()
                w.writerows({k: _key_str(v) if isinstance(v, float) else v for k, v in r.items()}
                            for r in rows)  # NaN from a Parquet round trip -> empty cell
        os.replace(tmp, self.journal)

    def write(self, row: Mapping) -> None:
        """Append one finished row durably."""
        row = {k: _cell(v) for k, v in row.items()}
        buf = io.StringIO()
        if self.fields is None:
            self.fields = list(row.keys())
            w = csv.DictWriter(buf, self.fields)
            if self._f.tell() == 0:
                w.writeheader()
        extra = set(row) - set(self.fields)
        if extra:
            raise ValueError(f"row has columns not in the table: {sorted(extra)}")
        csv.DictWriter(buf, self.fields).writerow(row)
        self._f.write(buf.getvalue())
        self._f.flush()
        os.fsync(self._f.fileno())
        self.done.add(tuple(_key_str(row.get(k)) for k in self.key))
        self.rows_written += 1

    def write_many(self, rows: Iterable[Mapping]) -> None:
        for row in rows:
            self.write(row)

    def close(self) -> None:
        """Close; a Parquet output is written (atomically) from the journal."""
        if self._f.closed:
            return
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
                tmp = self.path + ".tmp"
                df.to_parquet(tmp, index=False)
                os.replace(tmp, self.path)
                os.remove(self.journal)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _key_str(v) -> str:
    """A key value as the string a CSV holds ("" for empty, also after a Parquet round trip)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return str(v)


def _cell(v):
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    if isinstance(v, (list, tuple, dict)):
        import json

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
        signal.signal(signal.SIGTERM, old)
