"""A sampler's parameters declared once: the signature of ``sample()`` and a table beside it.

In the spirit of scikit-learn's ``_parameter_constraints`` and ``validate_params``: the
signature of a sampler's ``sample()`` holds every parameter with its default; the class's
``_constraints`` table says what values each one takes (an :class:`Int`, :class:`Real`,
:class:`Bool`, ... per name, in the order they are checked); :func:`checked` wraps
``sample()`` so that every call, from any path, checks its arguments against that table
in one place, and :func:`parameters_of` derives dimod's ``parameters`` from the signature.
The messages are those of :mod:`qsudoku.checks` (a :class:`~qsudoku.errors.ParameterError`
naming the sampler and the parameter).

>>> class Demo:
...     _constraints = {"num_reads": Int(1, 10), "seed": Seed()}
...     @checked("demo")
...     def sample(self, bqm, num_reads=1, seed=None, **kwargs):
...         return num_reads, seed
...     parameters = parameters_of(sample)
>>> Demo().sample(None, num_reads=3), sorted(Demo.parameters)
((3, None), ['num_reads', 'seed'])
>>> Demo().sample(None, num_reads=0)
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: demo: num_reads = 0 must be an integer in 1..10
>>> Demo().sample(None, reads=0)
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: demo: unknown parameter(s) reads
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from qsudoku import checks as opt
from qsudoku.errors import ParameterError

__all__ = ["Constraint", "Int", "Real", "Bool", "Seed", "TimeLimit", "Choice", "Name", "OrAuto",
           "Satisfies", "Numbers", "refuse", "is_finite",
           "validate", "checked", "table_check", "parameters_of", "check_values",
           "accepted_params"]


class Constraint:
    """What one parameter takes: called with the sampler's name, the parameter's name
    and a value, it returns the value (converted) or raises
    :class:`~qsudoku.errors.ParameterError`."""

    def __call__(self, sampler: str, name: str, value: Any) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class Int(Constraint):
    """An integer in ``low..high`` (``bool`` is not one)."""

    low: int | None = None
    high: int | None = None
    none: bool = False  # whether None (no value) is taken

    def __call__(self, sampler: str, name: str, value: Any) -> Any:
        return opt.need_int(name, value, low=self.low, high=self.high, allow_none=self.none,
                            sampler=sampler)


@dataclass(frozen=True)
class Real(Constraint):
    """A finite number above ``low`` (at least ``low`` when ``closed``), at most ``high``."""

    low: float | None = None
    high: float | None = None
    closed: bool = False
    none: bool = False  # whether None (no value) is taken

    def __call__(self, sampler: str, name: str, value: Any) -> Any:
        return opt.need_real(name, value, low=self.low, high=self.high,
                             low_open=not self.closed, allow_none=self.none, sampler=sampler)


@dataclass(frozen=True)
class Bool(Constraint):
    """``True`` or ``False`` (numpy's too): ``"false"`` is a (true) string, so it is refused."""

    def __call__(self, sampler: str, name: str, value: Any) -> Any:
        if not (isinstance(value, bool) or type(value).__name__ == "bool_"):
            refuse(sampler, name, value, "must be true or false")
        return bool(value)


def Seed() -> Int:
    """``None`` or an integer in ``0 .. 2**63 - 1``."""
    return Int(0, 2**63 - 1, none=True)


def TimeLimit() -> Real:
    """``None`` or seconds in ``(0, MAX_SECONDS]`` (:func:`~qsudoku.checks.need_time_limit`)."""
    return Real(0, opt.MAX_SECONDS, none=True)


@dataclass(frozen=True)
class Choice(Constraint):
    """One of the strings ``choices`` (in any case, if ``fold``)."""

    choices: tuple
    none: bool = False  # whether None (no value) is taken
    fold: bool = False

    def __call__(self, sampler: str, name: str, value: Any) -> Any:
        if (value is None and self.none) or isinstance(value, str) and (value in self.choices or (
                self.fold and value.lower() in (c.lower() for c in self.choices))):
            return value
        raise ParameterError(f"{sampler}: {name} = {value!r}; choose from "
                             f"{', '.join(map(str, self.choices))}")


def refuse(sampler: str, name: str, value: Any, what: str):
    """Raise ``ParameterError("{sampler}: {name} = {value!r} {what}")``."""
    raise ParameterError(f"{sampler}: {name} = {value!r} {what}")


def is_finite(x: Any) -> bool:
    """True if ``x`` is a real number (not a ``bool``) and finite."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(float(x))


@dataclass(frozen=True)
class Satisfies(Constraint):
    """A value ``test`` takes (``None`` passes, if ``none``); else
    ``"{sampler}: {name} = {value!r} {what}"``."""

    test: Callable[[Any], bool]
    what: str
    none: bool = True

    def __call__(self, sampler: str, name: str, value: Any) -> Any:
        if not ((value is None and self.none) or self.test(value)):
            refuse(sampler, name, value, self.what)
        return value


def Name(what: str, none: bool = True) -> Satisfies:
    """A string (or ``None``, if ``none``); else ``"{sampler}: {name} = {value!r} must be
    {what}"``."""
    return Satisfies(lambda v: isinstance(v, str), f"must be {what}", none)


@dataclass(frozen=True)
class Numbers(Constraint):
    """A sequence (list, tuple, 1-D array; not a string or a mapping) of finite numbers,
    returned as a list of ``float`` (``None`` passes, if ``none``)."""

    what: str
    none: bool = True

    def __call__(self, sampler: str, name: str, value: Any) -> Any:
        if value is None and self.none:
            return None
        if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
            refuse(sampler, name, value, self.what)
        items = list(value)
        if not all(is_finite(x) for x in items):
            refuse(sampler, name, value, self.what)
        return [float(x) for x in items]


@dataclass(frozen=True)
class OrAuto(Constraint):
    """The string ``"auto"``, or what ``then`` takes; ``text``, if given, is the message
    of a value that is neither (``"{sampler}: {name} = {value!r} {text}"``)."""

    then: Callable
    text: str | None = None

    def __call__(self, sampler: str, name: str, value: Any) -> Any:
        if isinstance(value, str) and value == "auto":
            return value
        try:
            return self.then(sampler, name, value)
        except ParameterError:
            if self.text is None:
                raise
            raise ParameterError(f"{sampler}: {name} = {value!r} {self.text}") from None


def validate(sampler: str, constraints: Mapping[str, Callable], values: Mapping,
             prefix: str = "") -> dict:
    """``values`` with each one named in ``constraints`` checked (and converted: an
    integer becomes an ``int``), in the table's order; the others as they are.
    ``prefix`` goes before the names in messages (``"qpu_params."``).

    Raises:
        ParameterError: The first value a constraint refuses, naming ``sampler``.
    """
    out = dict(values)
    for name, constraint in constraints.items():
        if name in out:
            out[name] = constraint(sampler, prefix + name, out[name])
    return out


def checked(sampler: str):
    """Decorator of a ``sample(self, bqm, ..., **kwargs)`` method: every call refuses
    leftover keyword arguments and checks the others against the class's
    ``_constraints`` (:func:`validate`) before the body runs; the signature stays the
    wrapped one (:func:`inspect.signature` follows it)."""

    def deco(sample):
        signature = inspect.signature(sample)
        (rest,) = [p.name for p in signature.parameters.values() if p.kind is p.VAR_KEYWORD]

        @functools.wraps(sample)
        def wrapper(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            opt.no_unknown(sampler, arguments.pop(rest))
            arguments = validate(sampler, type(self)._constraints, arguments)
            return sample(**arguments)
        return wrapper
    return deco


def table_check(table) -> Callable[[str, Mapping], None]:
    """``check(name, params)``: :func:`validate` of ``params`` against ``table`` (a class's
    ``_constraints``, given the class), for the registry
    (:attr:`~qsudoku.samplers.entries.SamplerSpec.checks`), which checks a configuration's
    parameters before any model is built."""
    table = getattr(table, "_constraints", table)

    def check(sampler: str, params: Mapping) -> None:
        validate(sampler, table, params)
    return check


def parameters_of(sample) -> dict:
    """dimod's ``parameters`` of a ``sample(self, bqm, ...)``: its keyword parameters.

    >>> parameters_of(lambda self, bqm, groups=None, seed=None, **kw: None)
    {'groups': [], 'seed': []}
    """
    return {name: [] for name, p in list(inspect.signature(sample).parameters.items())[2:]
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def accepted_params(sampler) -> frozenset:
    """The parameters ``sampler.sample`` takes: its ``parameters`` and the named keyword
    parameters of its signature (OpenJij's samplers list only some in ``parameters``).

    >>> import dimod
    >>> sorted(accepted_params(dimod.RandomSampler()))
    ['num_reads', 'seed']
    """
    out = set(getattr(sampler, "parameters", None) or ())
    try:
        sig = inspect.signature(sampler.sample)
    except (TypeError, ValueError, AttributeError):
        return frozenset(out)
    named = [k for k, p in sig.parameters.items()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return frozenset(out | set(named[1:]))  # the first is the model


def _integer(low):
    return (lambda v: not isinstance(v, bool) and isinstance(v, numbers.Integral) and v >= low,
            f"must be an integer >= {low}")


def _at_most(high):
    """Beyond ``high`` a value is a typo, not a plan (10^11 reads would need 45 TiB)."""
    return lambda v: not (isinstance(v, numbers.Real) and v > high), f"is above the limit of {high}"


def _positive(v):
    """A finite number > 0; a non-number (a ``chain_strength`` callable) passes."""
    return isinstance(v, bool) or not isinstance(v, numbers.Real) or 0 < v < math.inf


_POSITIVE = (_positive, "must be a finite number > 0")
#: A choice's name: dwave-samplers calls ``.lower()`` on some.
_NAME = (lambda v: isinstance(v, str), "must be a name (a string)")
#: The tests of :func:`check_values` per well-known parameter, in order, and what each says
#: (tabu's ``num_restarts = 0`` is a plain tabu search).
_RULES: dict[str, tuple] = {
    "num_reads": (_integer(1), _at_most(10**7)), "num_sweeps": (_integer(1), _at_most(10**9)),
    "num_sweeps_per_beta": (_integer(1),), "timeout": (_integer(1), _at_most(10**9)),
    "num_replicas": (_integer(1), _at_most(10**4)), "max_rounds": (_integer(1),),
    "seed": (_integer(0),), "num_restarts": (_integer(0),),
    "time_limit": (_POSITIVE, _at_most(10**7)), "time_budget": (_POSITIVE, _at_most(10**7)),
    "annealing_time": (_POSITIVE,), "chain_strength": (_POSITIVE,),
    "beta_schedule_type": (_NAME,), "initial_states_generator": (_NAME,),
    "proposal_acceptance_criteria": (_NAME,),
    "stop_at_ground": ((lambda v: isinstance(v, bool), "must be true or false"),)}


def check_values(params: Mapping, source: str = "") -> None:
    """Check the values of well-known sampling parameters, whatever the sampler: needs no
    sampler instance, so a config can be checked before anything runs.

    >>> check_values({"num_sweeps": 0}, "my.toml")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: parameter num_sweeps = 0 (in my.toml) must be an integer >= 1

    Raises:
        ParameterError: Naming the parameter (and the config file, if given).
    """
    where = f" (in {source})" if source else ""
    for key, value in params.items():
        for test, what in _RULES.get(key, ()):
            if not test(value):
                raise ParameterError(f"parameter {key} = {value!r}{where} {what}")
