"""Checks of sampler options and parameters: type, range, finite, before any work.

Every check names the sampler and the parameter and raises
:class:`~qsudoku.errors.ParameterError` (a :class:`~qsudoku.errors.ConfigError`, exit 2),
so a bad ``--param`` is one line, never an internal error or a hang inside a library.
Booleans must be real booleans: ``"false"`` is a (true) string, so it is refused.

>>> need_int("aco", "num_ants", 10, low=1, high=10**4)
10
>>> need_int("aco", "num_ants", 10**9, low=1, high=10**4)
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: aco: num_ants = 1000000000 must be an integer in 1..10000
>>> need_bool("aco", "backjump", "yes")
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: aco: backjump = 'yes' must be true or false
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable

from qsudoku.checks import MAX_SECONDS  # the longest time limit accepted (its one home)
from qsudoku.errors import ParameterError  # noqa: F401 - opt.ParameterError for callers

__all__ = ["need_int", "need_real", "need_bool", "need_choice", "need_seed", "need_time_limit",
           "no_unknown", "need_finite_bqm", "MAX_SECONDS", "MAX_READS"]

#: The most reads of one call.
MAX_READS = 10**7


def need_int(sampler: str, name: str, value: Any, *, low: int | None = None,
             high: int | None = None, allow_none: bool = False) -> int | None:
    """``value`` as an ``int`` if it is an integer (not a bool) in ``[low, high]``."""
    if value is None and allow_none:
        return None
    ok = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    if ok:
        value = int(value)
    if not ok or (low is not None and value < low) or (high is not None and value > high):
        bound = (f" in {low}..{high}" if low is not None and high is not None
                 else f" >= {low}" if low is not None else f" <= {high}" if high is not None
                 else "")
        raise ParameterError(f"{sampler}: {name} = {value!r} must be an integer{bound}")
    return value


def need_real(sampler: str, name: str, value: Any, *, low: float | None = None,
              high: float | None = None, low_open: bool = False,
              allow_none: bool = False) -> float | None:
    """``value`` as a finite ``float`` in its bounds (``low`` excluded if ``low_open``)."""
    if value is None and allow_none:
        return None
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real)
    x = float(value) if ok else math.nan
    if (not math.isfinite(x) or (low is not None and (x <= low if low_open else x < low))
            or (high is not None and x > high)):
        parts = ([f"{'>' if low_open else '>='} {low:g}"] if low is not None else []) + \
                ([f"<= {high:g}"] if high is not None else [])
        raise ParameterError(f"{sampler}: {name} = {value!r} must be a finite number "
                             f"{' and '.join(parts)}".rstrip())
    return x


def need_bool(sampler: str, name: str, value: Any) -> bool:
    """``value`` if it is ``True`` or ``False`` (numpy's bool too)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise ParameterError(f"{sampler}: {name} = {value!r} must be true or false")


def need_choice(sampler: str, name: str, value: Any, choices: Iterable, *,
                allow_none: bool = False):
    """``value`` if it is one of ``choices``."""
    choices = list(choices)
    if (value is None and allow_none) or (isinstance(value, str) and value in choices):
        return value
    raise ParameterError(f"{sampler}: {name} = {value!r}; choose from "
                         f"{', '.join(map(str, choices))}")


def need_seed(sampler: str, value: Any) -> int | None:
    """A seed: ``None`` or an integer in ``0 .. 2**63 - 1``."""
    return need_int(sampler, "seed", value, low=0, high=2**63 - 1, allow_none=True)


def need_time_limit(sampler: str, value: Any, name: str = "time_limit") -> float | None:
    """A time limit: ``None`` or seconds in ``(0, MAX_SECONDS]``."""
    return need_real(sampler, name, value, low=0, high=MAX_SECONDS, low_open=True,
                     allow_none=True)


def need_finite_bqm(sampler: str, bqm) -> None:
    """Refuse a BQM with a bias or offset that is NaN or infinite (or biases whose sum
    overflows), before any work: a sampler would answer NaN energies without a word.

    One pass in C (the energy of the all-ones sample adds every bias); the offending
    bias is looked for only when that sum is not finite.

    >>> import dimod
    >>> need_finite_bqm("sqa", dimod.BQM({"a": 1.0, "b": 2.0}, {"ab": -1.0}, 0.5, "SPIN"))
    >>> need_finite_bqm("sqa", dimod.BQM({"a": 1.0, "b": 2.0}, {"ab": float("nan")}, 0, "SPIN"))
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: sqa: the BQM's quadratic bias of ('b', 'a') is nan; every bias must be a finite number
    """
    import dimod
    import numpy as np

    from qsudoku.errors import ConfigError

    if not isinstance(bqm, dimod.BinaryQuadraticModel):
        return
    n = bqm.num_variables
    with np.errstate(all="ignore"):
        total = float(bqm.offset) + (float(bqm.energies((np.ones((1, n), np.int8),
                                                          bqm.variables))[0] - bqm.offset)
                                     if n else 0.0)
    if math.isfinite(total):
        return
    where = (f"offset is {float(bqm.offset)!r}" if not math.isfinite(bqm.offset) else
             next((f"linear bias of {v!r} is {float(b)!r}" for v, b in bqm.linear.items()
                   if not math.isfinite(b)), None) or
             next((f"quadratic bias of {uv!r} is {float(b)!r}"
                   for uv, b in bqm.quadratic.items() if not math.isfinite(b)), None))
    raise ConfigError(f"{sampler}: the BQM's {where}; every bias must be a finite number"
                      if where else f"{sampler}: the BQM's biases add up past the float range "
                      "(the energies would overflow); scale them down")


def no_unknown(sampler: str, kwargs: dict) -> None:
    """Refuse leftover keyword arguments of ``sample()``."""
    if kwargs:
        raise ParameterError(f"{sampler}: unknown parameter(s) {', '.join(sorted(kwargs))}")
