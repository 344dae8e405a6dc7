"""Resuming a results table: the file is checked and its rows copied into a new journal, a
row at a time, and the values of a row are written as the table holds them.

A resumed file must have the key columns (and exactly the run's columns, if it names
them); every row must parse and have a key that does not repeat.  The rows are copied
into a new journal that replaces the old one atomically once every row is checked, so a
refused file or a full disk leaves it as it was.  Values are written as a CSV reads them
back (``inf``, JSON lists); a key is compared as the string a CSV holds.

>>> key_text(float("nan")), key_text(float("-inf")), key_text(3)
('', '-inf', '3')
>>> csv_value([1, 2]), csv_value(float("inf")), csv_value(0.5)
('[1, 2]', 'inf', 0.5)
>>> row_key({"puzzle": "a", "repeat": 0, "valid": True}, ("puzzle", "repeat"))
('a', '0')
"""

from __future__ import annotations

import csv
import json
import math
from typing import Mapping, Sequence

from qsudoku.errors import ConfigError, MachineError
from qsudoku.experiments.results import records
from qsudoku.io.failures import is_machine, machine_error
from qsudoku.io.output import atomic_open

__all__ = ["key_text", "csv_value", "row_key", "check_header", "copy_rows"]


def key_text(v) -> str:
    """A key value as the string a CSV holds ("" for empty, also after a Parquet round trip)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v)


def csv_value(v):
    """A row's value as the table writes it: an infinite float as ``inf``/``-inf``, a list,
    tuple or dict as JSON, anything else as it is."""
    if isinstance(v, float) and math.isinf(v):
        return key_text(v)
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(v)
    return v


def row_key(row: Mapping, key: Sequence[str]) -> tuple:
    """The key of ``row``: its values of the ``key`` columns, as :func:`key_text`."""
    return tuple(key_text(row.get(k)) for k in key)


def check_header(path: str, header: list[str] | None, key: Sequence[str],
                 expected: Sequence[str] | None) -> None:
    """Refuse to resume ``path`` (a ``ConfigError`` naming the missing key columns, or the
    columns only in the file and only in this run) if its ``header`` lacks a ``key``
    column or differs from the ``expected`` columns (``None``: any)."""
    missing = [k for k in key if k not in (header or key)]
    if missing:
        raise ConfigError(f"cannot resume {path}: it has no column "
                          f"{', '.join(missing)} (is it a results file of this command?)")
    if header is not None and expected is not None and list(header) != list(expected):
        gone = [c for c in header if c not in expected]
        new = [c for c in expected if c not in header]
        raise ConfigError(f"{path} was written with other columns (only there: "
                          f"{', '.join(map(str, gone)) or '-'}; only here: "
                          f"{', '.join(new) or '-'}); resume it with the same swept keys, "
                          "or write another file")


def copy_rows(source: str, journal: str, key: Sequence[str], done: set) -> list[str] | None:
    """Check the rows of ``source`` and copy them into a new ``journal`` (see the module
    doc), adding each row's key to ``done``.

    Returns:
        The columns of ``source`` (``None`` if it has no header).

    Raises:
        ConfigError: A row does not parse, has no key or repeats a key; ``source`` cannot be
            read.
        MachineError: The machine refused the read or the write (the file is as it was).
    """
    fields = None

    def copy(f) -> None:
        nonlocal fields
        out = None
        for header, row, where in _read(source):
            if out is None:
                fields = list(header)
                out = csv.DictWriter(f, fields)
                out.writeheader()
            if row is None:  # a header without rows
                continue
            k = row_key(row, key)
            if key and not any(k):
                raise ConfigError(f"cannot resume {source}, {where}: the row has no key")
            if key and k in done:
                raise ConfigError(f"cannot resume {source}, {where}: it repeats the key "
                                  f"of {_first_with(source, key, k)} (was the file "
                                  "edited?)")
            done.add(k)
            out.writerow({c: csv_value(v) for c, v in row.items()})  # NaN read as ""

    try:  # atomic: if anything fails, the resumed file is as it was
        with atomic_open(journal, "w") as f:
            copy(f)
    except MachineError as e:
        raise machine_error(journal, e, kept=source) from None
    return fields


def _first_with(source: str, key: Sequence[str], k: tuple) -> str:
    """Where the first row of ``source`` with key ``k`` is (read again, for the message)."""
    return next(where for _, row, where in records(source)
                if row is not None and row_key(row, key) == k)


def _read(source: str):
    """:func:`records` of ``source`` (strict), a failure to read it named as such (not as
    a failure to write the journal the rows are copied to)."""
    try:
        yield from records(source, strict=True)
    except OSError as e:
        if is_machine(e):
            raise machine_error(source, e, action="read") from None
        raise ConfigError(f"cannot read {source}: {e.strerror or e}") from None
