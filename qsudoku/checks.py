"""Argument checks of the public API: a wrong type is a ``TypeError``, a wrong value a
``ValueError``, and either names the argument.

Public functions call these first, so that a misuse fails at the call with a message
saying what was wrong, instead of deep inside numpy or dimod (or not at all).

>>> need_int("limit", 2, low=1)
2
>>> need_int("limit", 0, low=1)
Traceback (most recent call last):
...
ValueError: limit = 0 must be an integer >= 1
>>> need_real("time_limit", float("nan"), low=0, allow_none=True)
Traceback (most recent call last):
...
ValueError: time_limit = nan must be a finite number > 0
>>> need_type("size", "9", int)
Traceback (most recent call last):
...
TypeError: size must be an int, not str ('9')
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable

__all__ = ["need_type", "need_int", "need_real", "need_ints", "need_memory", "describe",
           "MAX_SECONDS"]

#: The longest time budget or limit accepted anywhere (about 116 days): beyond it a deadline
#: overflows timers, and a sampler's own time limit refuses it.
MAX_SECONDS = 1e7


def describe(value: Any) -> str:
    """``"str ('1...')"``: the type and a short repr of ``value``, for messages."""
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} ({text})"


def _article(what: str) -> str:
    return ("an " if what[:1].lower() in "aeiou" else "a ") + what


def need_type(name: str, value: Any, types, what: str | None = None) -> Any:
    """Return ``value`` if it is an instance of ``types``, else raise ``TypeError``.

    Args:
        name: The argument's name, quoted in the message.
        value: The value given.
        types: A type or a tuple of types (as for ``isinstance``).
        what: How to call the expected type in the message (default: the type names).
    """
    if not isinstance(value, types):
        if what is None:
            names = [t.__name__ for t in (types if isinstance(types, tuple) else (types,))]
            what = _article(" or ".join(names))
        raise TypeError(f"{name} must be {what}, not {describe(value)}")
    return value


def need_int(name: str, value: Any, *, low: int | None = None, high: int | None = None,
             allow_none: bool = False) -> int | None:
    """Return ``value`` as an ``int`` if it is an integer within ``[low, high]``.

    ``bool`` is not an integer here (``True`` as a count is a mistake).

    Raises:
        TypeError: Not an integer.
        ValueError: Outside ``[low, high]``.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {describe(value)}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        bound = (f"in {low}..{high}" if low is not None and high is not None
                 else f">= {low}" if low is not None else f"<= {high}")
        raise ValueError(f"{name} = {value} must be an integer {bound}")
    return value


def need_real(name: str, value: Any, *, low: float | None = None, high: float | None = None,
              low_open: bool = True, allow_none: bool = False) -> float | None:
    """Return ``value`` as a ``float`` if it is a finite number within its bounds.

    Args:
        name: The argument's name.
        value: The value given.
        low: Lower bound (excluded if ``low_open``, else included).
        high: Upper bound (included).
        low_open: Whether ``low`` itself is refused.
        allow_none: Whether ``None`` (no value) is accepted; it is returned as is.

    Raises:
        TypeError: Not a real number.
        ValueError: Not finite (``nan``, ``inf``) or out of bounds.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {describe(value)}")
    x = float(value)
    below = low is not None and (x <= low if low_open else x < low)
    if not math.isfinite(x) or below or (high is not None and x > high):
        parts = ([f"{'>' if low_open else '>='} {low:g}"] if low is not None else []) + \
                ([f"<= {high:g}"] if high is not None else [])
        raise ValueError(f"{name} = {value!r} must be a finite number {' and '.join(parts)}"
                         .rstrip())
    return x


def need_ints(name: str, values: Any, *, low: int, high: int,
              length: int | None = None) -> tuple[int, ...]:
    """Return ``values`` as a tuple of ``int`` if it is a sequence of integers in range.

    A string is refused (its characters are not digits of a grid: use
    :func:`qsudoku.io.parse_puzzle` for text).

    >>> need_ints("grid", [1, 0, 2], low=0, high=4)
    (1, 0, 2)
    >>> need_ints("grid", [1, 0.5], low=0, high=4)
    Traceback (most recent call last):
    ...
    TypeError: grid[1] must be an integer, not float (0.5)

    Raises:
        TypeError: Not an iterable of integers (or a string).
        ValueError: A value outside ``[low, high]``, or not ``length`` values.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a sequence of integers, not {describe(values)}")
    out = tuple(values)
    for i, v in enumerate(out):
        if type(v) is not int or not low <= v <= high:  # fast path: plain ints in range
            need_int(f"{name}[{i}]", v, low=low, high=high)
    if any(type(v) is not int for v in out):
        out = tuple(int(v) for v in out)
    if length is not None and len(out) != length:
        raise ValueError(f"{name} has {len(out)} values, expected {length}")
    return out


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def need_memory(name: str, value: Any) -> str | int:
    """A memory size: ``"auto"``, or bytes as an int or text with a unit (``"2GiB"``,
    ``"500 MB"``); 0 = no limit.  Returns ``"auto"`` or the number of bytes.

    >>> need_memory("worker_memory", "2GiB"), need_memory("worker_memory", "auto")
    (2147483648, 'auto')
    >>> need_memory("worker_memory", "lots")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: worker_memory = 'lots' must be "auto" or a size such as "2GiB", "500MB" or a number of bytes (0 = no limit)
    """
    import re

    from qsudoku.errors import ConfigError

    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto"
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*", value, re.I) \
        if isinstance(value, str) else None
    if m is None:
        raise ConfigError(f"{name} = {value!r} must be \"auto\" or a size such as \"2GiB\", "
                          "\"500MB\" or a number of bytes (0 = no limit)")
    return int(float(m.group(1)) * _UNITS[(m.group(2) or "").lower()])
