"""Name -> factory registry of samplers.

A backend module registers its factories with :func:`register`; the factory
imports its library only when called, so ``import qsudoku`` stays light and a
missing optional extra surfaces as :class:`~qsudoku.errors.BackendUnavailableError`
only when that sampler is asked for.

Structure-aware samplers (classical exact solvers, move-preserving annealers)
list ``groups`` in their ``parameters``; the pipeline then passes the model's
labelled one-hot groups as ``groups=[(kind, [labels...]), ...]``.
"""

from __future__ import annotations

import importlib
import numbers
from dataclasses import dataclass, field
from typing import Callable, Mapping

from qsudoku.errors import BackendUnavailableError, ConfigError

__all__ = ["SamplerSpec", "register", "get_spec", "get_sampler", "names", "check_params",
           "check_values", "default_params", "BACKEND_MODULES"]

#: Modules that register samplers when imported (missing ones are skipped); the default
#: sampler's first, so that a default run imports no other backend module.
BACKEND_MODULES = (
    "qsudoku.samplers.aco",
    "qsudoku.samplers.classical",
    "qsudoku.samplers.swap",
    "qsudoku.samplers.swap_tabu",
    "qsudoku.samplers.dwave",
    "qsudoku.samplers.hybrid",
    "qsudoku.samplers.decompose",
    "qsudoku.samplers.kerberos",
    "qsudoku.samplers.exact",
)


@dataclass(frozen=True)
class SamplerSpec:
    """A registered sampler.

    Attributes:
        name: Registry key (``--sampler NAME``).
        factory: ``factory(**options) -> dimod.Sampler``.
        summary: One line for ``qsudoku samplers``.
        defaults: Sampling parameters used when the config gives none for this sampler.
        extra: The pip extra that provides it (``None`` = core dependency).
        offline: False for backends that need a network and a token.
    """

    name: str
    factory: Callable
    summary: str = ""
    defaults: Mapping = field(default_factory=dict)
    extra: str | None = None
    offline: bool = True


_REGISTRY: dict[str, SamplerSpec] = {}
_loaded = False


def register(name: str, *, summary: str = "", defaults: Mapping | None = None,
             extra: str | None = None, offline: bool = True):
    """Decorator registering ``factory`` under ``name``."""
    def deco(factory):
        _REGISTRY[name] = SamplerSpec(name, factory, summary, dict(defaults or {}), extra, offline)
        return factory
    return deco


def _load(name: str | None = None) -> None:
    """Import the backend modules in order, stopping once ``name`` is registered (all of
    them for ``None``), so that running one sampler imports no other backend's module."""
    global _loaded
    if _loaded or (name is not None and name in _REGISTRY):
        return
    for mod in BACKEND_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
        if name is not None and name in _REGISTRY:
            return
    _loaded = True


def names() -> list[str]:
    """Registered sampler names."""
    _load()
    return sorted(_REGISTRY)


def get_spec(name: str) -> SamplerSpec:
    """The :class:`SamplerSpec` of ``name``; :class:`ConfigError` if unknown."""
    _load(name)
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown sampler {name!r}; choose from {', '.join(names())}") from None


def get_sampler(name: str, **options):
    """Instantiate the sampler registered as ``name``."""
    spec = get_spec(name)
    try:
        return spec.factory(**options)
    except ImportError as e:
        hint = f"pip install 'qsudoku[{spec.extra}]'" if spec.extra else "pip install -e ."
        raise BackendUnavailableError(
            f"sampler {name!r} needs a package that is not installed ({e.name or e}); run: {hint}"
        ) from None
    except TypeError as e:
        raise ConfigError(f"sampler {name!r}: bad option: {e}") from None


def default_params(name: str) -> dict:
    """The registered default sampling parameters of ``name``."""
    return dict(get_spec(name).defaults)


_POSITIVE_INTS = {"num_reads", "num_sweeps", "num_sweeps_per_beta", "timeout",
                  "num_replicas", "max_rounds"}
_NON_NEGATIVE_INTS = {"seed", "num_restarts"}  # tabu: num_restarts = 0 is a plain tabu search
#: Names of choices; dwave-samplers calls ``.lower()`` on some (an int gave AttributeError).
_STRINGS = {"beta_schedule_type", "initial_states_generator", "proposal_acceptance_criteria"}
_POSITIVE_NUMBERS = {"time_limit", "time_budget", "annealing_time", "chain_strength"}
#: Upper bounds beyond which a value is a typo, not a plan (10^11 reads asked numpy for 45 TiB).
_MAXIMA = {"num_reads": 10**7}


def check_values(params: Mapping, source: str = "") -> None:
    """Check the values of well-known sampling parameters, whatever the sampler.

    Needs no sampler instance, so a config can be checked before anything runs.

    >>> check_values({"num_reads": 10, "seed": 0})
    >>> check_values({"num_sweeps": 0}, "my.toml")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: parameter num_sweeps = 0 (in my.toml) must be an integer >= 1

    Raises:
        ConfigError: Naming the parameter (and the config file, if given) for a
            nonsense value (negative reads, zero sweeps, a non-number, ...).
    """
    where = f" (in {source})" if source else ""
    for key, value in params.items():
        if key in _POSITIVE_INTS | _NON_NEGATIVE_INTS:
            low = 0 if key in _NON_NEGATIVE_INTS else 1
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                raise ConfigError(f"parameter {key} = {value!r}{where} must be an integer >= {low}")
        if key in _POSITIVE_NUMBERS and isinstance(value, numbers.Real) and not isinstance(value, bool):
            if not 0 < value < float("inf"):  # non-numbers (a chain_strength callable) pass
                raise ConfigError(f"parameter {key} = {value!r}{where} must be a finite number > 0")
        if key in _STRINGS and not isinstance(value, str):
            raise ConfigError(f"parameter {key} = {value!r}{where} must be a name (a string)")
        if key in _MAXIMA and isinstance(value, numbers.Real) and value > _MAXIMA[key]:
            raise ConfigError(f"parameter {key} = {value!r}{where} is above the limit of "
                              f"{_MAXIMA[key]}")


def check_params(sampler, params: Mapping, name: str = "", source: str = "") -> dict:
    """Check sampling ``params`` against ``sampler.parameters`` and obvious ranges.

    Raises:
        ConfigError: Naming the parameter (and the config file, if given) for an
            unknown parameter or a nonsense value (negative reads, zero sweeps, ...).
    """
    where = f" (in {source})" if source else ""
    accepted = set(getattr(sampler, "parameters", {}) or {})
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise ConfigError(
            f"sampler {name or type(sampler).__name__!r} does not accept parameter(s) "
            f"{', '.join(unknown)}{where}; it accepts: {', '.join(sorted(accepted)) or 'none'}")
    check_values(params, source)
    return dict(params)
