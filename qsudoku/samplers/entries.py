"""The checks of a sampler entry registered by a user (:func:`~.registry.register`).

A registered entry is read much later, by the command line (``--sampler NAME``,
``qsudoku samplers``) and by every solve, so each field is checked when it is given:
a name the command line can use, a callable factory, and options of the types and
ranges :class:`~.registry.SamplerSpec` documents.  A wrong type is a ``TypeError``, a
wrong value a :class:`~qsudoku.errors.ConfigError` (a ``ValueError``); either names the
field and quotes the value.

>>> check_name("my-sa")
'my-sa'
>>> check_name("a,b")
Traceback (most recent call last):
...
qsudoku.errors.ConfigError: sampler name 'a,b' cannot be used on the command line: a name is printable, without commas or spaces, and does not start with -
>>> check_target("checks", "qsudoku.samplers.classical:check_sa", resolve=True)
'qsudoku.samplers.classical:check_sa'
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Callable, Mapping

from qsudoku.checks import MAX_SECONDS, describe, need_real, need_type
from qsudoku.errors import ConfigError

__all__ = ["check_name", "check_factory", "check_target", "check_mapping", "check_extra",
           "check_weight_kinds", "check_round_cost", "RESERVED", "NAME_RULE"]

#: What a name ``--sampler NAME`` (and a comma-separated list of names, as bench, sweep and
#: ``[route] exact_fallback`` take) reads back unchanged has: printable characters, no comma,
#: space or newline, and not an option's leading ``-``.
NAME_RULE = "a name is printable, without commas or spaces, and does not start with -"
#: Names the command line gives another meaning: ``solve`` is bench's and sweep's name of
#: the default solve path (:data:`qsudoku.experiments.bench.SOLVE`).
RESERVED = ("solve",)
#: A ``"module:attribute"`` reference.
_TARGET = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def check_name(name: Any) -> str:
    """``name`` if the command line can use it (:data:`NAME_RULE`, not :data:`RESERVED`).

    Raises:
        TypeError: Not a ``str``.
        ConfigError: Empty, with a comma, a space or a newline, or reserved.
    """
    need_type("sampler name", name, str, "a str")
    if not (name.isprintable() and name[:1] not in ("", "-")
            and not any(ch.isspace() or ch == "," for ch in name)):
        raise ConfigError(f"sampler name {name!r} cannot be used on the command line: "
                          f"{NAME_RULE}")
    if name in RESERVED:
        raise ConfigError(f"sampler name {name!r} is reserved: bench and sweep read "
                          f"--sampler {name} as the default solve path")
    return name


def check_factory(name: str, factory: Any) -> Callable:
    """``factory`` if it is callable (``factory(**options)`` makes the sampler)."""
    if not callable(factory):
        raise TypeError(f"register({name!r}) needs a callable factory (a class or a function "
                        f"returning a dimod.Sampler), not {describe(factory)}")
    return factory


def check_target(what: str, value: Any, *, resolve: bool = False) -> str | None:
    """``value`` if it is ``None`` or a ``"module:attribute"`` string; with ``resolve``,
    the module is imported and the attribute must be a callable of it.

    >>> check_target("checks", "no.such:fn", resolve=True)
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: checks = 'no.such:fn': cannot import no.such (No module named 'no')

    Raises:
        TypeError: Neither ``None`` nor a ``str``.
        ConfigError: Not of the form ``module:attribute``, or (``resolve``) not importable
            or not a callable.
    """
    if value is None:
        return None
    need_type(what, value, str, "a 'module:attribute' str or None")
    if not _TARGET.fullmatch(value):
        raise ConfigError(f"{what} = {value!r} must be 'module:attribute', e.g. "
                          "'mypackage.checks:check_mine'")
    if resolve:
        module, _, attr = value.partition(":")
        try:
            found = getattr(importlib.import_module(module), attr, None)
        except ImportError as e:
            raise ConfigError(f"{what} = {value!r}: cannot import {module} ({e})") from None
        if not callable(found):
            raise ConfigError(f"{what} = {value!r}: {module} has no callable {attr}")
    return value


def check_mapping(what: str, value: Any) -> dict:
    """``value`` as a ``dict`` if it is ``None`` or a mapping of ``str`` keys."""
    if value is None:
        return {}
    need_type(what, value, Mapping, "a mapping (a dict) or None")
    bad = [k for k in value if not isinstance(k, str)]
    if bad:
        raise TypeError(f"{what} keys must be parameter names (str), not {describe(bad[0])}")
    return dict(value)


def check_extra(extra: Any) -> str | None:
    """``extra`` if it is ``None`` or the name of a pip extra (``pip install 'pkg[extra]'``)."""
    if extra is None:
        return None
    need_type("extra", extra, str, "a str or None")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", extra):
        raise ConfigError(f"extra = {extra!r} is not the name of a pip extra")
    return extra


def check_weight_kinds(value: Any, kinds: tuple[str, ...]) -> tuple[str, ...]:
    """``value`` as a tuple if every item is one of the weight ``kinds``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, frozenset, set)):
        raise TypeError(f"ignores_weights must be a tuple of weight kinds, not "
                        f"{describe(value)}")
    for kind in value:
        if kind not in kinds:
            raise ConfigError(f"ignores_weights: {kind!r} is not a weight kind; choose from "
                              f"{', '.join(kinds)}")
    return tuple(value)


def check_round_cost(value: Any) -> float | None:
    """``value`` as seconds if it is ``None`` or a finite number in ``(0, MAX_SECONDS]``."""
    try:
        return need_real("round_cost", value, low=0, high=MAX_SECONDS, allow_none=True)
    except ValueError as e:
        raise ConfigError(str(e)) from None
