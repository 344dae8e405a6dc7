"""The values of a sweep axis, written as on the command line (``--grid KEY=VALUES``).

``start:stop:count`` is a geometric range; ``a,b,c`` a list of TOML values, as in a
config file.  An axis never changes silently: a range keeps its float values, an integer
range whose values would repeat is refused, and so is a value given twice.

>>> parse_values("0.5:4:4")
[0.5, 1.0, 2.0, 4.0]
>>> parse_values("100:10000:3"), parse_values("10,30"), parse_values("[0.1,5],[1,10]")
([100, 1000, 10000], [10, 30], [[0.1, 5], [1, 10]])
"""

from __future__ import annotations

import re

from qsudoku.config import toml_value
from qsudoku.errors import ConfigError

__all__ = ["MAX_AXIS_VALUES", "parse_values", "parse_axis"]

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"\s*({_NUMBER})\s*:\s*({_NUMBER})\s*:\s*(\d+)\s*")
_INT = re.compile(r"\s*[-+]?\d+\s*")
#: Most values of one axis.
MAX_AXIS_VALUES = 1000


def parse_values(text: str) -> list:
    """The values of one axis.

    ``start:stop:count`` spaces ``count`` values geometrically from ``start`` to
    ``stop``, the ends exact: floats kept to 15 significant digits (the float noise of
    the powers dropped, nothing else), rounded to integers if both ends
    are integers (a range whose integers would repeat is refused, not shortened);
    ``a,b,c`` lists them, each read as a TOML value like a config file's (``true``,
    ``1e-3``, ``"text"``, arrays ``[0.1,5],[1,10]``; a bare word is a string); a single
    value is a one-value axis.  An axis never holds a value twice: a repeat is refused.

    >>> parse_values("1:1000:4"), parse_values("2"), parse_values("linear,geometric")
    ([1, 10, 100, 1000], [2], ['linear', 'geometric'])
    >>> parse_values("1.0:4.0:3")
    [1.0, 2.0, 4.0]
    >>> parse_values("1:2:101")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: range '1:2:101' has integer ends, and its 101 values round to 2 distinct integers; give float ends (1.0:2.0:101) or fewer values
    >>> parse_values("linear,1e-3,false")
    ['linear', 0.001, False]
    >>> parse_values("(0.1,5),(1,10)")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: values '(0.1,5),(1,10)' are not TOML: write lists as arrays, e.g. [0.1,5],[1,10]
    >>> parse_values("0:1:3")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: range '0:1:3' needs start and stop > 0 (values are spaced geometrically)
    """
    m = _RANGE.fullmatch(text)
    if m:
        start, stop, count = float(m.group(1)), float(m.group(2)), int(m.group(3))
        if not (start > 0 and stop > 0):
            raise ConfigError(f"range {text!r} needs start and stop > 0 "
                              "(values are spaced geometrically)")
        if not 1 <= count <= MAX_AXIS_VALUES:
            raise ConfigError(f"range {text!r} needs a count from 1 to {MAX_AXIS_VALUES}")
        if count == 1:
            raw = [start]
        else:
            raw = [start * (stop / start) ** (k / (count - 1)) for k in range(count - 1)] + [stop]
        if _INT.fullmatch(m.group(1)) and _INT.fullmatch(m.group(2)):
            vals = [int(round(x)) for x in raw]
            distinct = len(set(vals))
            if distinct < len(vals):
                raise ConfigError(
                    f"range {text!r} has integer ends, and its {count} values round to "
                    f"{distinct} distinct integers; give float ends ({start!r}:{stop!r}:"
                    f"{count}) or fewer values")
            return vals
        return _no_repeats(text, [float(f"{x:.15g}") for x in raw])  # no float noise
    vals = toml_value("[" + text + "]")
    if not isinstance(vals, list):  # bare words: each comma-separated value on its own
        if "(" in text or "[" in text:
            raise ConfigError(f"values {text!r} are not TOML: write lists as arrays, "
                              "e.g. [0.1,5],[1,10]")
        vals = [toml_value(v.strip()) for v in _split_commas(text)]
    if not vals or any(v == "" for v in vals):
        raise ConfigError(f"no values in {text!r}")
    if len(vals) > MAX_AXIS_VALUES:
        raise ConfigError(f"{len(vals)} values in one axis; at most {MAX_AXIS_VALUES}")
    return _no_repeats(text, vals)


def _no_repeats(text: str, vals: list) -> list:
    """``vals``, if no value is there twice (``1`` and ``1.0`` are the same setting).

    >>> _no_repeats("1,2,1.0", [1, 2, 1.0])
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: values '1,2,1.0' repeat 1.0: each setting would run twice
    """
    seen: set = set()
    for v in vals:
        key = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else repr(v)
        if key in seen:
            raise ConfigError(f"values {text!r} repeat {v!r}: each setting would run twice")
        seen.add(key)
    return vals


def _split_commas(text: str) -> list[str]:
    """``text`` split at the commas outside quotes and brackets."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def parse_axis(spec: str) -> tuple[str, list]:
    """``"cell=0.5:4:8"`` -> ``("cell", [...])``.

    >>> parse_axis("unit=1,2")
    ('unit', [1, 2])
    """
    key, sep, text = spec.partition("=")
    if not sep or not key.strip() or not text.strip():
        raise ConfigError(f"sweep axis {spec!r} is not of the form KEY=VALUES "
                          "(VALUES: start:stop:count or a,b,c)")
    return key.strip(), parse_values(text)
