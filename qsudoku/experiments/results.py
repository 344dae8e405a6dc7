r"""Reading results files of ``bench`` and ``sweep``: rows as a CSV holds them
(:func:`read_rows`, also of a Parquet file) and typed frames (:func:`load_frame`).

A ``.parquet`` output is written at the end of its run; until then its rows are in its
journal ``<out>.partial.csv`` (:func:`journal_path`), which these functions read.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
>>> with open(path, "w") as f:
...     _ = f.write("key,valid\na,True\nb,Fa")  # a torn last line
>>> read_rows(path), load_frame(path)["valid"].tolist()
([{'key': 'a', 'valid': 'True'}], [True])
"""

from __future__ import annotations

import csv
import io
import math
import os
from typing import Iterable, Iterator, Mapping

from qsudoku.errors import BackendUnavailableError, ConfigError, install_hint
from qsudoku.io.reading import open_regular

__all__ = ["journal_path", "read_rows", "iter_rows", "count_rows", "records",
           "rows_of", "load_frame", "JOURNAL_SUFFIX", "check_format", "results_header", "header_line"]

#: The suffix of a Parquet output's journal.
JOURNAL_SUFFIX = ".partial.csv"

#: Longest line of a results file read (a row with a long error or ``info`` text fits).
MAX_LINE_BYTES = 16 * 1024 * 1024

#: Longest header line of a results file read (qsudoku's columns take a few hundred bytes).
MAX_HEADER_BYTES = 64 * 1024


def journal_path(path: str) -> str:
    """Where the rows of ``path`` are appended: ``<out>.partial.csv`` for a Parquet output,
    the file itself for a CSV one."""
    return path + JOURNAL_SUFFIX if path.lower().endswith(".parquet") else path


def check_format(path: str) -> None:
    """Fail before any work if this installation cannot write the results file ``path``:
    a ``.parquet`` output is written by pyarrow, an optional package.

    >>> check_format("rows.csv")  # a CSV needs nothing optional

    Raises:
        BackendUnavailableError: ``path`` ends in ``.parquet`` and pyarrow cannot be
            imported (one line naming the extra that installs it; exit 3).
    """
    if not os.fspath(path).lower().endswith(".parquet"):
        return
    try:
        import pyarrow.parquet  # noqa: F401 - the engine that writes the file at the end
    except ImportError:
        raise BackendUnavailableError(
            f"cannot write {path}: .parquet files need pyarrow, which is not installed: "
            f"{install_hint('bench')} (or write a .csv)") from None


def rows_of(source):
    """The rows of the results file ``source`` (streamed by :func:`iter_rows`), or
    ``source`` itself if it is no path.

    Raises:
        ConfigError: No such results file (nor its journal).
    """
    if not isinstance(source, (str, os.PathLike)):
        return source
    path = os.fspath(source)
    if not (os.path.exists(path) or os.path.exists(journal_path(path))):
        raise ConfigError(f"results file not found: {path}")
    return iter_rows(path)


def read_rows(path: str) -> list[dict]:
    """Rows of a CSV (or Parquet) results file; a torn last CSV line is dropped."""
    return list(iter_rows(path))


def iter_rows(path: str) -> Iterator[dict]:
    r"""The rows of a results file (CSV, or Parquet by batches), streamed, as a CSV holds
    them (a missing value ``""``); a torn last CSV line is dropped; no file gives no rows.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write('key,note\na,"two\nlines"\nb,x\n')
    >>> [r["note"] for r in iter_rows(path)]
    ['two\nlines', 'x']
    """
    for _, row, _ in records(path):
        if row is not None:  # a header without rows
            yield row


def count_rows(path: str) -> int:
    """How many rows a results file holds, counted as they stream by (see :func:`iter_rows`)."""
    return sum(1 for _ in iter_rows(path))


def records(path: str, strict: bool = False
            ) -> Iterator[tuple[list[str], dict | None, str]]:
    r"""``(header, row, where)`` of each row of a results file, streamed; a header and no
    rows gives one ``(header, None, "")``; ``where`` is ``"line N"`` (CSV, the line the
    row ends on) or ``"row N"`` (Parquet).  ``strict``: a row that does not parse
    (other field count, bad text) is a :class:`ConfigError` naming the line.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write('key,v\na,1\nb,2\n')
    >>> [(row["key"], where) for _, row, where in records(path)]
    [('a', 'line 2'), ('b', 'line 3')]
    """
    path = os.fspath(path)
    if path.lower().endswith(".parquet") and os.path.exists(path):
        yield from _parquet_records(path)
        return
    path = journal_path(path)
    if not os.path.exists(path):
        return
    header: list[str] | None = None
    n = 0
    reader = csv.reader(_whole_lines(path))
    try:
        for record in reader:
            if header is None:
                header = record
                continue
            if not record:
                continue
            if strict and len(record) != len(header):
                raise ConfigError(f"{path}, line {reader.line_num}: {len(record)} fields where "
                                  f"the header has {len(header)}; the file is not a results "
                                  "file of this run (or was edited)")
            n += 1
            yield header, dict(zip(header, record)), f"line {reader.line_num}"
    except csv.Error as e:
        raise ConfigError(f"{path}, line {reader.line_num}: cannot parse the row ({e})") from None
    if header is not None and n == 0:
        yield header, None, ""


def _whole_lines(path: str) -> Iterator[str]:
    """The lines of ``path`` up to its last newline, decoded one at a time (opened by
    :func:`~qsudoku.io.reading.open_regular`; a line longer than :data:`MAX_LINE_BYTES`
    is refused, not read whole)."""
    f = open_regular(path, "results file")
    if f is None:
        return
    with f:
        end = _last_newline(f)
        pos = 0
        while pos < end:
            raw = f.readline(min(MAX_LINE_BYTES + 1, end - pos))
            if not raw:
                return
            pos += len(raw)
            if len(raw) > MAX_LINE_BYTES:
                raise ConfigError(f"cannot read {path}: a line longer than {MAX_LINE_BYTES:,} "
                                  "bytes (is it a results file of qsudoku?)")
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ConfigError(f"cannot read {path}: it is not UTF-8 text "
                                  "(is it a results file of qsudoku?)") from None


def _last_newline(f, chunk: int = 1 << 16) -> int:
    """The offset just past the last newline of the binary file ``f`` (0 if none); ``f`` is
    left at its start."""
    end = f.seek(0, os.SEEK_END)
    while end > 0:
        start = max(0, end - chunk)
        f.seek(start)
        at = f.read(end - start).rfind(b"\n")
        if at >= 0:
            f.seek(0)
            return start + at + 1
        end = start
    f.seek(0)
    return 0


def _parquet_records(path: str) -> Iterator[tuple[list[str], dict | None, str]]:
    f = open_regular(path, "results file")
    if f is None:
        return
    with f:
        pf = _parquet_file(f, path)
        header = list(pf.schema_arrow.names)
        n = 0
        try:
            for batch in pf.iter_batches(batch_size=4096):
                for r in batch.to_pylist():
                    n += 1
                    yield header, {k: _from_parquet(v) for k, v in r.items()}, f"row {n}"
        except Exception as e:  # noqa: BLE001 - a damaged row group
            raise _not_parquet(path, e) from None
    if n == 0:
        yield header, None, ""


def _parquet_file(f, path: str):
    """pyarrow's ``ParquetFile`` of the open binary file ``f``.

    Raises:
        ConfigError: ``f`` is not a Parquet file pyarrow can read.
    """
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(f)
    except Exception as e:  # noqa: BLE001 - pyarrow's errors have no common base
        raise _not_parquet(path, e) from None


def _not_parquet(path: str, e: Exception) -> ConfigError:
    return ConfigError(f"cannot read {path}: not a readable Parquet file ({type(e).__name__})")


def results_header(path: str) -> list[str]:
    r"""The column names of ``path`` if it provably is a results file qsudoku wrote: a CSV
    whose first line is exactly the header line qsudoku writes, line end included
    (``\r\n``, or ``\n``), or a Parquet file under a ``.parquet`` name whose schema
    pyarrow reads; anything else is refused, so ``--resume`` never rewrites a foreign file.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w", newline="") as f:
    ...     _ = f.write("key,valid\r\na,True\r\n")
    >>> results_header(path)
    ['key', 'valid']
    >>> with open(path, "w") as f:
    ...     _ = f.write("my notes, no newline at the end")
    >>> results_header(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: ...rows.csv is not a results file of qsudoku (its first line is not a complete header line qsudoku writes); it was left as it is
    """
    path = os.fspath(path)
    parquet = path.lower().endswith(".parquet")
    f = open_regular(path, "results file", follow=False)
    if f is None:
        raise ConfigError(f"results file not found: {path}")
    with f:
        if parquet:
            try:
                return list(_parquet_file(f, path).schema_arrow.names)
            except ConfigError:
                raise ConfigError(f"{path} is not a results file of qsudoku (not a Parquet "
                                  "file pyarrow reads); it was left as it is") from None
        first = f.readline(MAX_HEADER_BYTES + 1)
    why = "it is empty" if not first else (
        "its first line is not a complete header line qsudoku writes")
    try:
        text = first.decode("utf-8")
        names = next(csv.reader([text]), [])
    except (UnicodeDecodeError, csv.Error):
        names = []
    named = names and all(n and n.isprintable() and n == n.strip() for n in names)
    if named and text in (header_line(names), header_line(names)[:-2] + "\n"):
        return names
    raise ConfigError(f"{path} is not a results file of qsudoku ({why}); it was left as it is")


def header_line(names: Iterable[str]) -> str:
    r"""The header line qsudoku writes for columns ``names`` (with its line end).

    >>> header_line(["key", "valid"])
    'key,valid\r\n'
    """
    buf = io.StringIO()
    csv.writer(buf).writerow(list(names))
    return buf.getvalue()


def _from_parquet(v):  # pyarrow's to_pylist gives Python values; a missing one as CSV has it
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else v


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
    elif isinstance(path_or_rows, (bytes, Mapping)) or not isinstance(path_or_rows, Iterable):
        raise TypeError("expected a results file path, a list of row dicts or a DataFrame, "
                        f"not {type(path_or_rows).__name__}")
    else:
        df = pd.DataFrame(list(rows_of(path_or_rows)))
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
