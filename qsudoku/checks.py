"""Argument checks of the public API: a wrong type is a ``TypeError``, a wrong value a
``ValueError``, and either names the argument.

Public functions call these first, so that a misuse fails at the call with a message
saying what was wrong, instead of deep inside numpy or dimod (or not at all).

A sampler's parameters are checked with the same functions given ``sampler=`` (by the
constraints of :mod:`qsudoku.samplers.params`, which hold the other rules of a sampler's
values): then any bad value is one :class:`~qsudoku.errors.ParameterError` (a
``ConfigError``, exit 2) that names the sampler and the parameter, so a bad ``--param``
is one line, never an internal error or a hang inside a library.

>>> need_int("num_ants", 10**9, low=1, high=10**4, sampler="aco")
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: aco: num_ants = 1000000000 must be an integer in 1..10000

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

import decimal
import itertools
import math
import numbers
from typing import Any, Iterable, NoReturn

from qsudoku.errors import ConfigError, ParameterError

__all__ = ["need_type", "need_int", "need_real", "need_ints", "describe", "need_time_limit",
           "no_unknown",
           "need_finite_bqm", "MAX_SECONDS", "MAX_READS"]

#: The longest time budget or limit accepted anywhere (about 116 days): beyond it a deadline
#: overflows timers, and a sampler's own time limit refuses it.
MAX_SECONDS = 1e7
#: The most reads of one sampler call.
MAX_READS = 10**7


def _shown(value: Any) -> str:
    """The repr of ``value``, cut to 40 characters (``10**400`` is not quoted whole); a
    string up to 120, so that a token-shaped one is quoted whole and the command line's
    masking (:func:`qsudoku.samplers.redact.mask`) recognises it, never a piece of it.

    >>> _shown(10**400)
    '100000000000000000000000000000000000...'
    """
    text = repr(value)
    limit = 120 if isinstance(value, str) else 40
    return text if len(text) <= limit else text[:limit - 3] + "..."


def describe(value: Any) -> str:
    """``"str ('1...')"``: the type and a short repr of ``value``, for messages."""
    return f"{type(value).__name__} ({_shown(value)})"


def _article(what: str) -> str:
    return ("an " if what[:1].lower() in "aeiou" else "a ") + what


def _raise(text: str, sampler: str | None) -> NoReturn:
    """Raise ``ValueError(text)``, or for a ``sampler``'s parameter a ``ParameterError``."""
    raise ParameterError(f"{sampler}: {text}") if sampler is not None else ValueError(text)


def need_type(name: str, value: Any, types, what: str | None = None) -> Any:
    """Return ``value`` if it is an instance of ``types`` (as for ``isinstance``), else raise
    a ``TypeError`` naming ``name`` and ``what`` was expected (default: the type names)."""
    if not isinstance(value, types):
        if what is None:
            names = [t.__name__ for t in (types if isinstance(types, tuple) else (types,))]
            what = _article(" or ".join(names))
        raise TypeError(f"{name} must be {what}, not {describe(value)}")
    return value


def need_int(name: str, value: Any, *, low: int | None = None, high: int | None = None,
             allow_none: bool = False, sampler: str | None = None) -> int | None:
    """Return ``value`` as an ``int`` if it is an integer (not a ``bool``: ``True`` as a
    count is a mistake) within ``[low, high]``; else a ``TypeError`` or ``ValueError`` (a
    ``ParameterError`` for a ``sampler``'s parameter)."""
    if value is None and allow_none:
        return None
    ok = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    value = int(value) if ok else value
    if ok and (low is None or value >= low) and (high is None or value <= high):
        return value
    if not ok and sampler is None:
        raise TypeError(f"{name} must be an integer, not {describe(value)}")
    bound = (f"in {low}..{high}" if low is not None and high is not None
             else f">= {low}" if low is not None else f"<= {high}" if high is not None else "")
    _raise(f"{name} = {_shown(value)} must be an integer {bound}".rstrip(), sampler)


def need_real(name: str, value: Any, *, low: float | None = None, high: float | None = None,
              low_open: bool = True, allow_none: bool = False,
              sampler: str | None = None) -> float | None:
    """Return ``value`` as a ``float`` if it is a finite real number (not a ``bool``) above
    ``low`` (or at it, unless ``low_open``) and at most ``high``; ``10**400`` is out of
    bounds, never an ``OverflowError``.  A non-number is a ``TypeError``, a value out of
    bounds a ``ValueError`` (a ``ParameterError`` for a ``sampler``'s parameter)."""
    if value is None and allow_none:
        return None
    ok = not isinstance(value, bool) and isinstance(value, (numbers.Real, decimal.Decimal))
    if not ok and sampler is None:
        raise TypeError(f"{name} must be a number, not {describe(value)}")
    try:
        x = float(value) if ok else math.nan
    except (OverflowError, ValueError):  # beyond any float (10**400), Decimal('sNaN')
        x = math.nan
    below = low is not None and (x <= low if low_open else x < low)
    if not math.isfinite(x) or below or (high is not None and x > high):
        parts = ([f"{'>' if low_open else '>='} {low:g}"] if low is not None else []) + \
                ([f"<= {high:g}"] if high is not None else [])
        _raise(f"{name} = {_shown(value)} must be a finite number {' and '.join(parts)}"
               .rstrip(), sampler)
    return x


def need_time_limit(value: Any, name: str = "time_limit", *,
                    sampler: str | None = None) -> float | None:
    """A time limit: ``None`` or seconds in ``(0, MAX_SECONDS]``."""
    return need_real(name, value, low=0, high=MAX_SECONDS, low_open=True, allow_none=True,
                     sampler=sampler)


def no_unknown(sampler: str, kwargs: dict) -> None:
    """Refuse the leftover keyword arguments of a sampler's ``sample()``."""
    if kwargs:
        raise ParameterError(f"{sampler}: unknown parameter(s) {', '.join(sorted(kwargs))}")


def need_ints(name: str, values: Any, *, low: int, high: int,
              length: int | None = None) -> tuple[int, ...]:
    """Return ``values`` as a tuple of ``int`` if it is a sequence (not a string: use
    :func:`qsudoku.io.parse_puzzle` for text) of ``length`` integers in ``[low, high]``.

    >>> need_ints("grid", [1, 0.5], low=0, high=4)
    Traceback (most recent call last):
    ...
    TypeError: grid[1] must be an integer, not float (0.5)
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a sequence of integers, not {describe(values)}")
    out: tuple[Any, ...] = tuple(v if type(v) is int and low <= v <= high  # fast path: plain ints in range
                                 else need_int(f"{name}[{i}]", v, low=low, high=high)
                                 for i, v in enumerate(values))
    if length is not None and len(out) != length:
        raise ValueError(f"{name} has {len(out)} values, expected {length}")
    return out


def need_finite_bqm(bqm: Any, *, sampler: str) -> None:
    """Refuse a BQM with a bias or offset that is NaN or infinite (or biases whose sum
    overflows), before any work: a sampler would answer NaN energies without a word.

    >>> import dimod
    >>> need_finite_bqm(dimod.BQM({"a": 1.0, "b": 2.0}, {"ab": float("nan")}, 0, "SPIN"),
    ...                 sampler="sqa")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: sqa: the BQM's quadratic bias of ('b', 'a') is nan; every bias must be a finite number
    """
    import dimod
    import numpy as np

    if not isinstance(bqm, dimod.BinaryQuadraticModel):
        return
    with np.errstate(all="ignore"):  # the energy of the all-ones sample adds every bias
        ones = (np.ones((1, bqm.num_variables), np.int8), bqm.variables)
        total = float(bqm.energies(ones)[0]) if bqm.num_variables else float(bqm.offset)
    if math.isfinite(total):
        return
    biases = itertools.chain([("offset", bqm.offset)],
                             ((f"linear bias of {v!r}", b) for v, b in bqm.linear.items()),
                             ((f"quadratic bias of {uv!r}", b) for uv, b in bqm.quadratic.items()))
    where = next((f"{what} is {float(b)!r}" for what, b in biases if not math.isfinite(b)), None)
    raise ConfigError(f"{sampler}: the BQM's {where}; every bias must be a finite number"
                      if where else f"{sampler}: the BQM's biases add up past the float range "
                      "(the energies would overflow); scale them down")
