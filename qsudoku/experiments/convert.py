"""A ``.parquet`` results file written from its CSV journal by chunks of rows, so that
memory is bounded by a chunk, not by the file.

The table is the one a single :class:`pandas.DataFrame` of every row gives (each column
:func:`pandas.to_numeric` if all of it parses, else text).  A column's type depends on all
its values, so the journal is read twice: once for the types, once to write one row group
per chunk.  In short: a value that does not parse keeps the column as text; else only
``int64`` integers give ``int64``; else numbers or empty cells give ``float64``; anything
else (an integer beyond ``int64``) is rare and irregular in pandas, so that column alone
is converted whole.

>>> import io, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "rows.parquet.partial.csv")
>>> with open(path, "w") as f:
...     _ = f.write("key,n,p,ok\\na,1,0.5,True\\nb,2,,False\\n")
>>> buf = io.BytesIO()
>>> write_parquet(path, buf, chunk=1)
2
>>> import pyarrow.parquet as pq
>>> t = pq.read_table(buf)
>>> [str(t.schema.field(c).type) for c in t.column_names], t.column("p").to_pylist()
(['large_string', 'int64', 'double', 'large_string'], [0.5, None])
"""

from __future__ import annotations

import math
from itertools import islice
from typing import IO, Iterator

from qsudoku.experiments.results import iter_rows

__all__ = ["write_parquet", "CHUNK"]

#: Rows converted and written at a time.
CHUNK = 8192

_TEXT, _INT, _FLOAT, _WHOLE = "text", "int", "float", "whole"


def write_parquet(journal: str, f: IO[bytes], chunk: int | None = None) -> int:
    """Write the rows of the CSV ``journal`` to the binary file ``f`` as Parquet, ``chunk``
    rows at a time (default :data:`CHUNK`); returns how many rows (0: nothing is
    written, as there is no row).

    Errors of pyarrow and of ``f`` (an ``OSError`` of a full disk) pass through.
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    chunk = CHUNK if chunk is None else chunk
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, not {chunk}")
    columns, kinds, rows = _kinds(journal, chunk)
    if not rows:
        return 0
    whole = {c: pd.to_numeric(_column(journal, c))
             for c in columns if kinds[c] == _WHOLE}  # rare: see the module's docstring
    writer, start = None, 0
    try:
        for part in _chunks(journal, chunk):
            df = _frame(part, columns)
            for c in columns:
                if kinds[c] == _WHOLE:
                    df[c] = whole[c].iloc[start:start + len(part)].set_axis(df.index)
                else:
                    df[c] = _convert(df[c], kinds[c])
            start += len(part)
            schema = None if writer is None else writer.schema
            table = pa.Table.from_pandas(df, schema=schema, preserve_index=False)
            if writer is None:
                writer = pq.ParquetWriter(f, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    return start


def _kinds(journal: str, chunk: int) -> tuple[list[str], dict[str, str], int]:
    """The columns (in order of first appearance), each one's kind, and the row count."""
    import pandas as pd

    columns: dict[str, None] = {}
    kinds: dict[str, str] = {}
    rows = 0
    for part in _chunks(journal, chunk):
        rows += len(part)
        columns.update(dict.fromkeys(k for r in part for k in r))
        df = _frame(part, list(columns))
        for c in columns:
            if kinds.get(c) in (_TEXT, _WHOLE):
                continue
            try:
                values = pd.to_numeric(df[c])
            except (ValueError, TypeError):
                kinds[c] = _TEXT
                continue
            kind = _INT if values.dtype == "int64" else _WHOLE
            if values.dtype == "float64":  # beyond int64, maybe an integer: see above
                big = values.abs() >= 2.0 ** 63
                kind = _WHOLE if (big & (values.abs() != math.inf)).any() else _FLOAT
            if c not in kinds:  # a column first seen here: its earlier rows lack it (NaN)
                kinds[c] = _FLOAT if rows > len(part) and kind == _INT else kind
            elif kind == _WHOLE:
                kinds[c] = _WHOLE
            elif _FLOAT in (kind, kinds[c]):
                kinds[c] = _FLOAT
    if any(k == _WHOLE for k in kinds.values()):  # a text value later keeps it text
        for c in [c for c, k in kinds.items() if k == _WHOLE]:
            kinds[c] = _text_or_whole(journal, c)
    return list(columns), kinds, rows


def _text_or_whole(journal: str, column: str) -> str:
    """``_TEXT`` if some value of ``column`` does not parse, else ``_WHOLE``."""
    import pandas as pd

    for part in _chunks(journal, CHUNK):
        try:
            pd.to_numeric(_frame(part, [column])[column])
        except (ValueError, TypeError):
            return _TEXT
    return _WHOLE


def _column(journal: str, column: str):
    """Every value of ``column`` (text; a row without it: missing), as one series."""
    import pandas as pd

    return pd.Series([r.get(column) for r in iter_rows(journal)], dtype=pd.Series(["x"]).dtype)


def _chunks(journal: str, chunk: int) -> Iterator[list[dict]]:
    rows = iter_rows(journal)
    while part := list(islice(rows, chunk)):
        yield part


def _frame(rows: list[dict], columns: list[str]):
    """A frame of ``rows`` with ``columns``; a column no row of these has is text, all
    missing (as it is within a frame of every row)."""
    import pandas as pd

    df = pd.DataFrame(rows)
    text = pd.Series(["x"]).dtype  # how this pandas holds a column of text
    for c in columns:
        if c not in df.columns:
            df[c] = pd.Series([None] * len(df), dtype=text, index=df.index)
    return df[columns]


def _convert(s, kind: str):
    """The column ``s`` (text) converted as a whole-file column of ``kind`` would be."""
    import pandas as pd

    if kind == _TEXT:
        return s
    if kind == _FLOAT:  # parse each value as a float, as a column with a float does
        probe = pd.concat([s, pd.Series(["0.5"], dtype=s.dtype)], ignore_index=True)
        return pd.Series(pd.to_numeric(probe).to_numpy()[:-1], index=s.index, dtype="float64")
    return pd.to_numeric(s)
