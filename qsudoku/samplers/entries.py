"""A registry entry: :class:`SamplerSpec`, its defaults, and the checks of the fields a
user registers (:func:`~.registry.register`).

An entry is read much later, by the command line (``--sampler NAME``, ``qsudoku
samplers``) and by every solve, so each field is checked when it is given.  A wrong type
is a ``TypeError``, a wrong value a :class:`~qsudoku.errors.ConfigError` (a
``ValueError``); either names the field and quotes the value.

>>> check_name("my-sa")
'my-sa'
>>> check_name("a,b")
Traceback (most recent call last):
...
qsudoku.errors.ConfigError: sampler name 'a,b' cannot be used on the command line: a name is printable, without commas or spaces, and does not start with -
>>> check_target("checks", "qsudoku.samplers.classical:check_sa", resolve=True)
'qsudoku.samplers.classical:check_sa'
>>> check_target("checks", "no.such:fn", resolve=True)
Traceback (most recent call last):
...
qsudoku.errors.ConfigError: checks = 'no.such:fn': cannot import no.such (No module named 'no')
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

from qsudoku.checks import MAX_SECONDS, describe, need_real, need_type
from qsudoku.errors import ConfigError

__all__ = ["SamplerSpec", "ClassDefaults", "sample_defaults", "check_name", "check_factory",
           "check_target", "check_mapping", "check_extra", "check_weight_kinds",
           "check_round_cost", "RESERVED", "NAME_RULE"]

#: What a name ``--sampler NAME`` (and a comma-separated list of names, as bench, sweep and
#: ``[route] exact_fallback`` take) reads back unchanged has.
NAME_RULE = "a name is printable, without commas or spaces, and does not start with -"
#: Names the command line gives another meaning: ``solve`` is bench's and sweep's name of
#: the default solve path (:data:`qsudoku.experiments.bench.SOLVE`).
RESERVED = ("solve",)
#: A ``"module:attribute"`` reference.
_TARGET = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
#: ``sample()`` parameters that are not defaults to list: the model's groups, and what
#: the solve path sets for each round (its seed, the time left, stop at a ground state).
_PER_CALL = ("groups", "seed", "time_limit", "stop_at_ground")


def sample_defaults(cls) -> dict:
    """The defaults of ``cls.sample()``'s keyword parameters, less :data:`_PER_CALL` and
    those whose default is ``None`` (no value: the sampler decides).

    >>> class S:
    ...     def sample(self, bqm, groups=None, num_reads=10, seed=None, **kw): ...
    >>> sample_defaults(S)
    {'num_reads': 10}
    """
    return {k: p.default for k, p in inspect.signature(cls.sample).parameters.items()
            if p.default is not p.empty and p.default is not None and k not in _PER_CALL}


class ClassDefaults(Mapping):
    """The :func:`sample_defaults` of the class ``"module:Class"``, read when first used
    (so that the registry imports no sampler module until then)."""

    def __init__(self, target: str):
        self.target = target
        self._values: dict | None = None

    def _load(self) -> dict:
        if self._values is None:
            module, _, attr = self.target.partition(":")
            self._values = sample_defaults(getattr(importlib.import_module(module), attr))
        return self._values

    def __getitem__(self, key):
        return self._load()[key]

    def __iter__(self) -> Iterator:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __repr__(self) -> str:
        return f"ClassDefaults({self.target!r})"


@dataclass(frozen=True)
class SamplerSpec:
    """A registered sampler.

    Attributes:
        name: Registry key (``--sampler NAME``).
        target: ``"module:Class"`` (or ``"module:factory"``): called with the options,
            it returns the :class:`dimod.Sampler`; a callable is called directly.
        summary: One line for ``qsudoku samplers``.
        defaults: The parameters every solve round passes to ``sample()``: for a class of
            qsudoku's, the defaults of its ``sample()`` signature (:class:`ClassDefaults`).
        extra: The pip extra that provides it (``None`` = core dependency).
        offline: False for backends that need a network and a token.
        checks: ``"module:function"`` of the checks of its ``sample()`` parameters, for a
            sampler whose class is not qsudoku's, whose ``sample`` a solve may skip (the
            exact backends) or that passes parameters on to another library (they are
            checked before any model is built): ``function(name, params)`` raises
            :class:`~qsudoku.errors.ParameterError` naming the sampler and the parameter;
            ``None`` = the sampler checks its own.
        product: ``"module:Class"`` of the objects a factory ``target`` returns (``None``
            for a class target, which is its own product): how an object passed to
            :func:`qsudoku.solve` is recognised as this entry.  Entries sharing a class
            are told apart by the object's ``name`` attribute (:meth:`matches`).
        round: What every solve round passes on top of ``defaults`` (reads that the round
            stops at its time limit or a ground state).
        ignores_weights: The ``[qubo.weights]`` kinds that do not change what it does
            (a structure-aware sampler reads the one-hot groups, not their weights).
        round_cost: Seconds one solve round of its work costs, when that is more than the
            default time budget gives (``decompose``); the default budget is then at
            least this.  ``None``: no more than any sampler's.
    """

    name: str
    target: str | Callable
    summary: str = ""
    defaults: Mapping = field(default_factory=dict)
    extra: str | None = None
    offline: bool = True
    checks: str | None = None
    product: str | None = None
    round: Mapping = field(default_factory=dict)
    ignores_weights: tuple[str, ...] = ()
    round_cost: float | None = None

    @property
    def made(self) -> str:
        """``"module:Class"`` of the objects this entry builds (:attr:`product`, else the
        target; a callable target names nothing)."""
        return self.product or (self.target if isinstance(self.target, str) else "")

    def matches(self, sampler) -> bool:
        """True if ``sampler`` is an instance of exactly the class this entry builds, that
        class's module is already imported (nothing is imported to find out), and the
        object's ``name`` attribute, if it has one, is this entry's name.

        >>> from qsudoku.samplers.registry import get_spec
        >>> get_spec("tabu").matches(object()), get_spec("qpu").matches(object())
        (False, False)
        """
        module, _, attr = self.made.partition(":")
        cls = getattr(sys.modules.get(module), attr, None)
        if not (isinstance(cls, type) and type(sampler) is cls):
            return False
        name = getattr(sampler, "name", None)
        return not isinstance(name, str) or name == self.name

    @property
    def module(self) -> str | None:
        """The module :func:`~.registry.get_sampler` imports (``None`` for a callable)."""
        return self.target.partition(":")[0] if isinstance(self.target, str) else None

    def factory(self, **options):
        """Import the target and call it with ``options``."""
        if callable(self.target):
            return self.target(**options)
        module, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(module), attr)(**options)


def check_name(name: Any) -> str:
    """``name`` if it is a ``str`` (else a ``TypeError``) the command line can use
    (:data:`NAME_RULE`, not :data:`RESERVED`; else a ``ConfigError``)."""
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
    """``value`` if it is ``None`` or a ``"module:attribute"`` string (else a ``TypeError``
    or ``ConfigError``); with ``resolve``, the module is imported and the attribute must
    be a callable of it."""
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
    need_type(what, {} if value is None else value, Mapping, "a mapping (a dict) or None")
    bad = [k for k in value or {} if not isinstance(k, str)]
    if bad:
        raise TypeError(f"{what} keys must be parameter names (str), not {describe(bad[0])}")
    return dict(value or {})


def check_extra(extra: Any) -> str | None:
    """``extra`` if it is ``None`` or the name of a pip extra (``pip install 'pkg[extra]'``)."""
    need_type("extra", extra, (str, type(None)), "a str or None")
    if extra is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", extra):
        raise ConfigError(f"extra = {extra!r} is not the name of a pip extra")
    return extra


def check_weight_kinds(value: Any, kinds: tuple[str, ...]) -> tuple[str, ...]:
    """``value`` as a tuple if every item is one of the weight ``kinds``."""
    need_type("ignores_weights", value, (tuple, list, frozenset, set), "a tuple of weight kinds")
    bad = [k for k in value if k not in kinds]
    if bad:
        raise ConfigError(f"ignores_weights: {bad[0]!r} is not a weight kind; choose from "
                          f"{', '.join(kinds)}")
    return tuple(value)


def check_round_cost(value: Any) -> float | None:
    """``value`` as seconds if it is ``None`` or a finite number in ``(0, MAX_SECONDS]``."""
    try:
        return need_real("round_cost", value, low=0, high=MAX_SECONDS, allow_none=True)
    except ValueError as e:
        raise ConfigError(str(e)) from None
