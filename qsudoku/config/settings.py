"""The configuration's tables: frozen dataclasses, their defaults and their checks.

Keys match Python keyword names; an unknown key or a value of the wrong type is
a :class:`~qsudoku.errors.ConfigError` naming the key and the file (the checks of raw
data are in :mod:`~qsudoku.config.validate`).  API tokens never belong here: D-Wave
credentials are read only by D-Wave's own config loader (``DWAVE_API_TOKEN`` or ``dwave
config create``).

>>> cfg = Config.from_dict({"sampler": {"name": "tabu", "params": {"num_reads": 3}}})
>>> cfg.sampler.name, cfg.sampler.params["num_reads"]
('tabu', 3)
>>> Config.from_dict({"sampler": {"nmae": "sa"}}, source="my.toml")
Traceback (most recent call last):
...
qsudoku.errors.ConfigError: my.toml: unknown key 'sampler.nmae'; known keys: name, options, params, fallback
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Mapping

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: the same parser, packaged as tomli
    import tomli as tomllib

from qsudoku.checks import MAX_SECONDS, need_type
from qsudoku.config.validate import (WEIGHT_KEYS, check_finite, check_known, check_no_secrets,
                                     check_overrides, check_sampler_name, need_table,
                                     weight_overrides)
from qsudoku.errors import ConfigError
from qsudoku.model.propagate import check_rules
from qsudoku.model.encodings import get_encoding
from qsudoku.model.qubo import Weights

__all__ = ["Config", "PropagateConfig", "QuboConfig", "SamplerConfig", "RouteConfig", "ClusterConfig",
           "DEFAULT_CONFIG_PATH", "DEFAULTS", "WEIGHT_KEYS", "weight_overrides",
           "MIN_WORKER_MEMORY", "need_worker_memory"]

#: The one home of every configuration default, shipped inside the package.
DEFAULT_CONFIG_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                   "defaults.toml")


def _read_defaults() -> dict:
    with open(DEFAULT_CONFIG_PATH, "rb") as f:
        return tomllib.load(f)


#: :data:`DEFAULT_CONFIG_PATH`, parsed: the dataclasses below take their defaults from it.
DEFAULTS = MappingProxyType(_read_defaults())
_P, _S, _R = DEFAULTS["propagate"], DEFAULTS["sampler"], DEFAULTS["route"]


@dataclass(frozen=True)
class PropagateConfig:
    """``[propagate]``: which rules run before the QUBO is built.

    ``rules`` make the model that is sampled; ``finish_rules`` are tried once more only
    to finish a puzzle outright (nothing is sampled if they solve it).  Rules given
    without ``finish_rules`` are the rules used, as ``--rules`` on the command line: the
    default finishing rules go with the default ``rules`` only.

    >>> PropagateConfig(rules=()).finish_rules, PropagateConfig().finish_rules[:1]
    ((), ('naked_single',))
    """

    rules: tuple[str, ...] = tuple(_P["rules"])
    finish_rules: tuple[str, ...] | None = None

    def __post_init__(self):
        object.__setattr__(self, "rules", check_rules(self.rules))
        finish = self.finish_rules
        if finish is None:
            finish = _P["finish_rules"] if self.rules == check_rules(_P["rules"]) else ()
        object.__setattr__(self, "finish_rules", check_rules(finish))


@dataclass(frozen=True)
class QuboConfig:
    """``[qubo]``: the encoding and the penalty weights per constraint kind
    (``[qubo.weights]``)."""

    weights: Weights = Weights(**DEFAULTS["qubo"]["weights"])
    encoding: str = DEFAULTS["qubo"]["encoding"]

    def __post_init__(self):
        get_encoding(self.encoding)


@dataclass(frozen=True)
class SamplerConfig:
    """``[sampler]``: the registry name, constructor options and sampling parameters.

    ``params`` left empty means "the sampler's registered defaults".  ``fallback``
    names an offline sampler to run instead when this one is unavailable (no
    token, no network, missing extra); the result then says so.
    """

    name: str = _S["name"]
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    fallback: str | None = None

    def __post_init__(self):
        need_type("sampler", self.name, str, "a sampler name (str)")
        need_type("fallback", self.fallback, (str, type(None)), "a sampler name or None")
        for key in ("options", "params"):
            need_type(key, getattr(self, key), Mapping, "a mapping (dict)")
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def checked(self) -> "SamplerConfig":
        """This table, its values checked as the sampler takes them
        (:func:`~qsudoku.samplers.registry.check_sampler_values`) and for non-finite
        numbers: run where a configuration is read, so that nonsense fails even if nothing
        gets sampled; the constructor checks only the fields' types.

        >>> SamplerConfig("sa", params={"num_reads": 0}).checked()
        Traceback (most recent call last):
        ...
        qsudoku.errors.ParameterError: sa: num_reads = 0 must be an integer in 1..10000000
        """
        from qsudoku.samplers.registry import check_sampler_values

        check_sampler_values(self.name, self.params)
        for kind in ("params", "options"):
            for key, value in getattr(self, kind).items():
                check_finite(f"sampler.{kind}.{key}", value)
        return self

    def __reduce__(self):  # read-only mappings do not pickle; experiment tasks travel pickled
        return (SamplerConfig, (self.name, dict(self.options), dict(self.params), self.fallback))


@dataclass(frozen=True)
class RouteConfig:
    """``[route]``: the round policy of every sampler (see :mod:`qsudoku.solving.solve`).

    The reduced QUBO is sampled in rounds for at most ``time_budget`` seconds (``"auto"``:
    a default that fits the model and the sampler, see :mod:`qsudoku.solving.budget`), until
    a read is valid (``enabled = false``: one round).  If the rounds end unsolved, an exact solver finishes the
    puzzle and the result says so.  ``exact_fallback`` names it: a registry name such as
    ``"csp"``, or a comma-separated list tried in order, skipping backends whose library
    is not installed; ``""`` = none.  The fallback stops after ``fallback_time_limit``
    seconds (``0`` = no limit) and then reports the puzzle unsolved.

    >>> RouteConfig(exact_fallback="sat, csp").fallback_names
    ('sat', 'csp')
    """

    enabled: bool = _R["enabled"]
    time_budget: float | str = _R["time_budget"]
    exact_fallback: str = _R["exact_fallback"]
    fallback_time_limit: float = _R["fallback_time_limit"]

    @property
    def fallback_names(self) -> tuple[str, ...]:
        """The exact backends of ``exact_fallback``, in the order they are tried."""
        return tuple(n.strip() for n in self.exact_fallback.split(",") if n.strip())

    def __post_init__(self):
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"route.enabled = {self.enabled!r} must be true or false")
        if self.time_budget != "auto" and (
                isinstance(self.time_budget, bool) or not isinstance(self.time_budget, (int, float))
                or not 0 < self.time_budget <= MAX_SECONDS):
            raise ConfigError(f"route.time_budget = {self.time_budget!r} must be a positive "
                              f"number of seconds, at most {MAX_SECONDS:g}, or \"auto\"")
        if not isinstance(self.exact_fallback, str):
            raise ConfigError(f"route.exact_fallback = {self.exact_fallback!r} must be a sampler "
                              "name, a comma-separated list of them, or \"\"")
        tl = self.fallback_time_limit
        if isinstance(tl, bool) or not isinstance(tl, (int, float)) or not 0 <= tl <= MAX_SECONDS:
            raise ConfigError(f"route.fallback_time_limit = {tl!r} must be a number of seconds "
                              f">= 0 (0 = no limit), at most {MAX_SECONDS:g}")


#: The least memory limit of a local Dask worker: one that has loaded qsudoku and solved a
#: 9x9 peaks at about 180 MB, and Dask restarts a worker past 95% of its limit.
MIN_WORKER_MEMORY = 256 * 2**20


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*", re.I)


def need_worker_memory(name: str, value: Any) -> str | int:
    """A worker memory limit: ``"auto"``, 0 (no limit), or at least
    :data:`MIN_WORKER_MEMORY` bytes as an int or text with a unit (``"2GiB"``, ``"500 MB"``).
    Returns ``"auto"`` or the number of bytes.

    >>> need_worker_memory("--worker-memory", "1MiB")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: --worker-memory = '1MiB' is below the 256 MiB a Dask worker needs to run qsudoku (about 180 MB after a 9x9 solve); give at least 256MiB, or 0 for no limit
    """
    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto"
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        size = value
    elif isinstance(value, str) and (m := _SIZE.fullmatch(value)):
        size = int(float(m.group(1)) * _UNITS[(m.group(2) or "").lower()])
    else:
        raise ConfigError(f"{name} = {value!r} must be \"auto\" or a size such as \"2GiB\", "
                          "\"500MB\" or a number of bytes (0 = no limit)")
    if 0 < size < MIN_WORKER_MEMORY:
        raise ConfigError(f"{name} = {value!r} is below the {MIN_WORKER_MEMORY >> 20} MiB a Dask "
                          "worker needs to run qsudoku (about 180 MB after a 9x9 solve); give at "
                          f"least {MIN_WORKER_MEMORY >> 20}MiB, or 0 for no limit")
    return size


@dataclass(frozen=True)
class ClusterConfig:
    """``[cluster]``: where ``bench`` and ``sweep`` run their tasks.

    ``scheduler`` is the address of an existing Dask scheduler (``tcp://host:8786``);
    ``""`` = none: ``--jobs`` decides (in-process, or a local cluster).  The
    ``--scheduler`` flag wins over ``QSUDOKU_SCHEDULER``, which wins over this key.
    ``worker_memory`` is each local worker's memory limit (``"auto"``: the machine's memory
    shared equally; ``"2GiB"``; 0 = none); ``--worker-memory`` wins over it.
    """

    scheduler: str = DEFAULTS["cluster"]["scheduler"]
    worker_memory: str | int = DEFAULTS["cluster"]["worker_memory"]

    def __post_init__(self):
        need_worker_memory("cluster.worker_memory", self.worker_memory)
        if not isinstance(self.scheduler, str):
            raise ConfigError(f"cluster.scheduler = {self.scheduler!r} must be an address "
                              "string such as \"tcp://host:8786\"")


@dataclass(frozen=True)
class Config:
    """The whole configuration of a run."""

    propagate: PropagateConfig = PropagateConfig()
    qubo: QuboConfig = QuboConfig()
    sampler: SamplerConfig = SamplerConfig()
    route: RouteConfig = RouteConfig()
    cluster: ClusterConfig = ClusterConfig()
    source: str = field(default="", compare=False)

    def __post_init__(self):
        for f in fields(self):
            need_type(f.name, getattr(self, f.name), f.default.__class__)

    @classmethod
    def from_dict(cls, data: Mapping, source: str = "") -> "Config":
        """Build from a parsed TOML mapping; unknown keys are errors."""
        pre = f"{source}: " if source else ""
        check_no_secrets(data, pre)
        check_known(data, [f.name for f in fields(cls) if f.name != "source"], "", pre)
        t = {}
        for key in ("propagate", "qubo", "sampler", "cluster", "route"):
            t[key] = need_table(data, key, "", pre)  # its keys: its dataclass's fields
            check_known(t[key], [f.name for f in fields(getattr(cls, key))], f"{key}.", pre)
            if key == "qubo":
                w = weight_overrides(need_table(t[key], "weights", "qubo.", pre), pre)
        prop, qubo, samp, cluster, route = t.values()
        try:
            rules = prop.get("rules", _P["rules"])
            # rules set without finish_rules are the rules used (as --rules)
            finish = prop.get("finish_rules", () if "rules" in prop else None)
            for key, value in (("rules", rules), ("finish_rules", finish)):
                if value is not None and (not isinstance(value, (list, tuple)) or not all(
                        isinstance(r, str) for r in value)):
                    raise ConfigError(f"propagate.{key} must be a list of rule names")
            name = samp.get("name", _S["name"])
            if not isinstance(name, str):
                raise ConfigError(f"sampler.name = {name!r} must be a string")
            fallback = samp.get("fallback")
            if fallback is not None and not isinstance(fallback, str):
                raise ConfigError(f"sampler.fallback = {fallback!r} must be a sampler name")
            for key in ("options", "params"):
                if not isinstance(samp.get(key, {}), Mapping):
                    raise ConfigError(f"sampler.{key} must be a table")
            check_sampler_name("sampler.name", name)
            if fallback is not None:
                check_sampler_name("sampler.fallback", fallback)
            _check_fallback_names(route)
            tables = (PropagateConfig(tuple(rules), None if finish is None else tuple(finish)),
                      QuboConfig(replace(QuboConfig().weights, **w),
                                 qubo.get("encoding", QuboConfig.encoding)),
                      SamplerConfig(name, samp.get("options", {}), samp.get("params", {}),
                                    fallback).checked())
            return cls(*tables, RouteConfig(**route), ClusterConfig(**cluster), source=source)
        except ConfigError as e:
            raise ConfigError(f"{pre}{e}") from None

    def with_overrides(self, *, sampler: str | None = None, reads: int | None = None,
                       seed: int | None = None, params: Mapping | None = None,
                       rules=None, weights: Mapping | None = None,
                       fallback: str | None = None, options: Mapping | None = None,
                       route: Mapping | None = None, encoding: str | None = None) -> "Config":
        """A copy with CLI overrides applied.

        ``options`` are merged into the sampler's constructor options and ``route`` into
        the ``[route]`` table (e.g. ``{"exact_fallback": ""}`` for ``--no-fallback``).
        ``rules`` replace the propagation rules and turn ``finish_rules`` off;
        ``encoding`` names the QUBO's encoding (``one-hot``, ``domain-wall``).

        Choosing a different sampler drops the config's sampling parameters (they
        belonged to the other sampler) in favour of the new sampler's defaults; the seed
        is the run's, not the sampler's, so it is kept.

        >>> dict(Config().with_overrides(seed=7).with_overrides(sampler="sa").sampler.params)
        {'seed': 7}
        """
        check_overrides(sampler, reads, seed, params, rules, weights, fallback, options, route)
        s = self.sampler
        if sampler is not None and sampler != s.name:
            kept = {"seed": s.params["seed"]} if "seed" in s.params else {}
            s = SamplerConfig(sampler, params=kept, fallback=s.fallback).checked()
        if fallback is not None:
            s = replace(s, fallback=fallback or None)
        p = dict(s.params)
        if params:
            p.update(params)
        if reads is not None:
            p["num_reads"] = reads
        if options:
            s = replace(s, options={**s.options, **options}).checked()
        if seed is not None:
            p["seed"] = seed
        cfg = replace(self, sampler=replace(s, params=p).checked())
        if rules is not None:  # the rules given are the rules used: no finishing rules
            cfg = replace(cfg, propagate=PropagateConfig(tuple(rules), ()))
        if route:
            try:
                cfg = replace(cfg, route=replace(cfg.route, **route))
                _check_fallback_names(route)
            except TypeError as e:
                raise ConfigError(f"unknown route setting: {e}") from None
        if weights:
            cfg = replace(cfg, qubo=replace(cfg.qubo, weights=replace(
                cfg.qubo.weights, **weight_overrides(weights))))
        if encoding is not None:
            cfg = replace(cfg, qubo=replace(cfg.qubo, encoding=encoding))
        return cfg


def _check_fallback_names(route: Mapping) -> None:
    """ConfigError if a name of ``route["exact_fallback"]`` is not a registered sampler."""
    names = route.get("exact_fallback")
    if isinstance(names, str):
        for name in RouteConfig(exact_fallback=names).fallback_names:
            check_sampler_name("route.exact_fallback", name)


