"""The checks of raw configuration data, before it becomes the tables of
:mod:`~qsudoku.config.settings`: known keys, tables, no credentials, registered sampler
names, weight keys, finite numbers, and the arguments of
:meth:`~qsudoku.config.settings.Config.with_overrides`.

Each failure is one :class:`~qsudoku.errors.ConfigError` (or a ``TypeError`` for a
Python argument of the wrong type) naming the key, after the file it came from.  API
tokens never belong in a config: a key that looks like one is refused, since D-Wave
credentials are read only by D-Wave's own config loader (``DWAVE_API_TOKEN`` or ``dwave
config create``).

>>> need_table({"sampler": {"name": "sa"}}, "sampler", "", "")
{'name': 'sa'}
>>> check_no_secrets({"sampler": {"options": {"token": "x"}}}, "my.toml: ")
Traceback (most recent call last):
...
qsudoku.errors.ConfigError: my.toml: key 'sampler.options.token' looks like a credential; tokens do not go in qsudoku configs: set DWAVE_API_TOKEN or run 'dwave config create'
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from qsudoku.checks import need_type
from qsudoku.errors import ConfigError

__all__ = ["WEIGHT_KEYS", "weight_overrides", "check_finite", "check_overrides", "need_table",
           "check_sampler_name", "check_known", "check_no_secrets"]

#: The keys of ``[qubo.weights]``, of ``--weight`` and of ``with_overrides(weights=...)``;
#: ``unit`` sets row, column, box and extra at once (a key given beside it wins).
WEIGHT_KEYS = ("cell", "unit", "row", "column", "box", "extra")

#: Keys that name a credential, at any depth of a config (compared in lower case).
_SECRET_KEYS = {"token", "api_token", "dwave_api_token", "password", "secret"}


def check_finite(key: str, value: Any) -> None:
    """ConfigError if ``value`` is or holds (in a list or tuple) a non-finite float: no
    sampler parameter means anything by ``nan`` or ``inf``, and samplers differ on one.

    >>> check_finite("sampler.params.beta_range", (0.1, float("nan")))
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: sampler.params.beta_range = (0.1, nan) must hold finite numbers (no nan or inf)
    """
    items = value if isinstance(value, (list, tuple)) else (value,)
    for x in items:
        if isinstance(x, (list, tuple)):
            check_finite(key, x)
        elif isinstance(x, float) and not math.isfinite(x):
            raise ConfigError(f"{key} = {value!r} must hold finite numbers (no nan or inf)")


def check_overrides(sampler, reads, seed, params, rules, weights, fallback, options,
                    route) -> None:
    """TypeError/ConfigError naming the first bad argument of
    :meth:`~qsudoku.config.settings.Config.with_overrides`."""
    from qsudoku.samplers.registry import check_values, get_spec

    if need_type("sampler", sampler, (str, type(None)), "a sampler name (str)") is not None:
        get_spec(sampler)  # "unknown sampler 'x'; choose from ..."
    if need_type("fallback", fallback, (str, type(None)), "a sampler name (str)"):
        check_sampler_name("fallback", fallback)
    for name, value in (("params", params), ("weights", weights), ("options", options),
                        ("route", route)):
        need_type(name, value, (Mapping, type(None)), "a mapping (dict)")
    need_type("rules", rules, (list, tuple, set, frozenset, type(None)), "a list of rule names")
    check_values({k: v for k, v in (("num_reads", reads), ("seed", seed)) if v is not None})


def need_table(data: Mapping, key: str, prefix: str, pre: str) -> dict:
    """``data[key]`` as a dict (empty if absent); a non-table value is a ConfigError."""
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"{pre}{prefix}{key} = {value!r} must be a table ([{prefix}{key}])")
    return dict(value)


def check_sampler_name(key: str, name: str) -> None:
    """ConfigError if ``name`` (the value of ``key``) is not a registered sampler.

    >>> check_sampler_name("sampler.name", "sa")
    """
    from qsudoku.samplers.registry import imported_spec, names

    known = names()
    if ":" in name and key == "sampler.name":
        imported_spec(name)  # any importable dimod.Sampler
    elif name not in known:
        raise ConfigError(f"{key} = {name!r} is not a registered sampler; choose from "
                          f"{', '.join(known)}")


def weight_overrides(weights: Mapping, pre: str = "") -> dict:
    """``weights`` (keys of :data:`WEIGHT_KEYS`) as fields of
    :class:`~qsudoku.model.qubo.Weights`: ``unit`` expanded, an unknown key refused.

    >>> weight_overrides({"unit": 2.0, "box": 3.0})
    {'box': 3.0, 'row': 2.0, 'column': 2.0, 'extra': 2.0}
    >>> weight_overrides({"bogus": 1})
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: unknown key 'qubo.weights.bogus' (an unknown weight); known keys: cell, unit, row, column, box, extra
    """
    if not isinstance(weights, Mapping):
        raise ConfigError(f"{pre}qubo.weights must be a table")
    for k in weights:
        if k not in WEIGHT_KEYS:
            raise ConfigError(f"{pre}unknown key 'qubo.weights.{k}' (an unknown weight); known "
                              f"keys: {', '.join(WEIGHT_KEYS)}")
    out = dict(weights)
    unit = out.pop("unit", None)
    if unit is not None:
        for k in ("row", "column", "box", "extra"):
            out.setdefault(k, unit)
    return out


def check_known(data: Mapping, keys, prefix: str, pre: str) -> None:
    """ConfigError if ``data`` is not a table or has a key not in ``keys`` (named with its
    table's ``prefix``, after ``pre``, the file).

    >>> check_known({"name": "sa", "nmae": "x"}, ("name",), "sampler.", "my.toml: ")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: my.toml: unknown key 'sampler.nmae'; known keys: name
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"{pre}{prefix.rstrip('.') or 'config'} must be a table")
    for k in data:
        if k not in keys:
            raise ConfigError(f"{pre}unknown key '{prefix}{k}'; known keys: {', '.join(keys)}")


def check_no_secrets(data, pre: str, path: str = "") -> None:
    """ConfigError if a key of ``data``, at any depth, names a credential (a token, a
    password): credentials are read only by D-Wave's own config loader."""
    if isinstance(data, Mapping):
        for k, v in data.items():
            if str(k).lower() in _SECRET_KEYS:
                raise ConfigError(f"{pre}key '{path}{k}' looks like a credential; tokens do not "
                                  "go in qsudoku configs: set DWAVE_API_TOKEN or run "
                                  "'dwave config create'")
            check_no_secrets(v, pre, f"{path}{k}.")
