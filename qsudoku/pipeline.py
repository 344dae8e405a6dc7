"""The one place where the stages are chained: propagate -> build -> sample -> decode.

>>> from qsudoku.io import parse_puzzle
>>> r = solve(parse_puzzle("1..." "..2." ".3.." "...4"))
>>> r.valid, r.solved_by, r.solution
(True, 'propagation', '1243342143122134')

With the default configuration a puzzle that propagation leaves open goes through the
annealing route (``swap-tabu`` sampler, see :mod:`qsudoku.route`); any other sampler samples the
reduced QUBO once:

>>> from qsudoku import Config
>>> r = solve(parse_puzzle("1..." "..2." "...." "...4"), Config().with_overrides(seed=3))
>>> r.valid, r.solved_by
(True, 'swap-tabu (1 round)')
>>> r = solve(parse_puzzle("1..." "..2." "...." "...4"), Config().with_overrides(sampler="sa", seed=3))
>>> r.valid, r.solved_by, r.num_reads
(True, 'sa', 50)
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .config import Config
from .decode import Decoded, decode, success_rate
from .errors import BackendUnavailableError, ConfigError
from .propagate import Candidates, propagate
from .puzzle import Puzzle
from .qubo import QuboModel, build_model
from .samplers import check_params, default_params, get_sampler

__all__ = ["Result", "solve", "sample_model", "build", "sampler_factory", "sampler_params",
           "fallback_config", "uses_route"]


@dataclass
class Result:
    """What one solve produced.

    Attributes:
        puzzle: The input puzzle.
        grid: The best grid found (0 = cell left undecided by the best sample).
        valid: True iff ``grid`` is a full valid solution keeping the givens.
        solved_by: ``"propagation"`` if nothing was left to sample; the sampler's name after
            one sampling; ``"swap-tabu (N rounds)"`` (the route's sampler) from the annealing
            route, or ``"sat fallback after swap-tabu (N rounds)"`` when its exact fallback
            finished.
        energy: Energy of the best sample (``0.0`` for propagation-only solves).
        success_rate: Fraction of reads that were valid (``None`` without sampling).
        num_reads: Reads taken.
        num_variables: Variables of the reduced QUBO.
        num_interactions: Its quadratic terms.
        fired: How often each propagation rule acted.
        timings: Seconds per stage (``propagate``, ``build``, ``sample``, ``decode``, ``total``).
        broken: Readable names of the constraints the best sample breaks.
        sampler: Sampler name and the parameters it was called with.
        info: The sample set's ``info`` (timings of the backend and the like).
        model: The :class:`~qsudoku.qubo.QuboModel` (``None`` if propagation solved it).
        sampleset: The raw :class:`dimod.SampleSet` (``None`` if propagation solved it).
        decoded: Every decoded sample.
        notes: Things the user should know (e.g. a fallback sampler ran instead).
    """

    puzzle: Puzzle
    grid: list[int]
    valid: bool
    solved_by: str
    energy: float | None = 0.0
    success_rate: float | None = None
    num_reads: int = 0
    num_variables: int = 0
    num_interactions: int = 0
    fired: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    sampler: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    model: QuboModel | None = field(default=None, repr=False)
    sampleset: Any = field(default=None, repr=False)
    decoded: list[Decoded] = field(default_factory=list, repr=False)
    notes: list[str] = field(default_factory=list)

    @property
    def solution(self) -> str:
        """Row-major string of ``grid`` in the puzzle's digit convention (``.`` = undecided)."""
        return self.puzzle.format(self.grid)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no raw samples, no credentials)."""
        p = self.puzzle
        out = {
            "name": p.name,
            "puzzle": p.format(),
            "size": p.size,
            "kind": p.kind,
            "valid": self.valid,
            "solution": self.solution,
            "energy": self.energy,
            "num_variables": self.num_variables,
            "num_interactions": self.num_interactions,
            "solved_by": self.solved_by,
            "success_rate": self.success_rate,
            "num_reads": self.num_reads,
            "propagation": dict(self.fired),
            "broken": list(self.broken),
            "sampler": _jsonable(self.sampler),
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "info": _jsonable({k: v for k, v in self.info.items() if not _is_timing(k)}),
            "backend_timing": _jsonable({k: v for k, v in self.info.items() if _is_timing(k)}),
            "notes": list(self.notes),
        }
        if p.solution is not None:
            out["matches_known_solution"] = list(self.grid) == list(p.solution)
        return out


def build(puzzle: Puzzle, config: Config = Config()) -> tuple[Candidates, QuboModel | None, dict]:
    """Propagate and build the model; returns ``(candidates, model or None, timings)``."""
    timings: dict[str, float] = {}
    t = time.perf_counter()
    cands = propagate(puzzle, config.propagate.rules)
    timings["propagate"] = time.perf_counter() - t
    if cands.solved:
        return cands, None, timings
    t = time.perf_counter()
    model = build_model(cands, config.qubo.weights)
    timings["build"] = time.perf_counter() - t
    return cands, model, timings


def sampler_params(sampler, config: Config) -> dict:
    """The checked sampling parameters for ``config`` (registered defaults if none given)."""
    name = config.sampler.name
    params = dict(default_params(name))
    params.update(config.sampler.params)
    return check_params(sampler, params, name, config.source)


def uses_route(config: Config) -> bool:
    """True if ``config`` runs the annealing route rather than one sampling."""
    from .route import ROUTE_PARAMS

    return config.route.enabled and config.sampler.name in ROUTE_PARAMS


def route_params(sampler, config: Config) -> tuple[dict, int | None]:
    """The route's parameters of the configured sampler with the config's applied, and the seed."""
    from .route import ROUTE_PARAMS

    params = dict(config.sampler.params)
    seed = params.pop("seed", None)
    merged = {**ROUTE_PARAMS[config.sampler.name], **params}
    check_params(sampler, merged, config.sampler.name, config.source)
    return merged, seed


def sampler_factory(config: Config):
    """Instantiate the configured sampler (reuse it across puzzles)."""
    return get_sampler(config.sampler.name, **config.sampler.options)


def fallback_config(config: Config, error: BackendUnavailableError) -> tuple[Config, str]:
    """The config to run instead when the sampler is unavailable, and the note saying so.

    Raises ``error`` again when no fallback is configured.
    """
    fb = config.sampler.fallback
    if not fb or fb == config.sampler.name:
        raise error
    note = (f"sampler {config.sampler.name!r} unavailable ({error}); "
            f"ran the offline fallback {fb!r} instead")
    return config.with_overrides(sampler=fb, fallback=""), note


def sample_model(model: QuboModel, config: Config = Config(), sampler=None):
    """Sample ``model`` with the configured sampler; returns ``(sampleset, params)``."""
    sampler = sampler or sampler_factory(config)
    params = sampler_params(sampler, config)
    call = dict(params)
    if "groups" in getattr(sampler, "parameters", {}):
        call["groups"] = model.groups()
    with _rejected_params(config, params):
        sampleset = sampler.sample(model.bqm, **call)
        sampleset.resolve()
    return sampleset, params


@contextmanager
def _rejected_params(config: Config, params: dict):
    """Errors a sampler raises on bad parameter values become a ConfigError naming them."""
    try:
        yield
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError,
            MemoryError) as e:
        where = f"{config.source}: " if config.source else ""
        raise ConfigError(f"{where}sampler {config.sampler.name!r} rejected its parameters "
                          f"(sampler.params / sampler.options) {params}: "
                          f"{type(e).__name__}: {e}") from None


def _solve_route(puzzle: Puzzle, config: Config, sampler, t0: float) -> Result:
    from .route import anneal_route, rounds_text

    sampler = sampler or sampler_factory(config)
    params, seed = route_params(sampler, config)
    rc = config.route
    with _rejected_params(config, params):
        rr = anneal_route(puzzle, rules=config.propagate.rules, weights=config.qubo.weights,
                          time_budget=rc.time_budget, sample_params=params,
                          max_depth=rc.max_depth, seed=seed, sampler=sampler,
                          fallback=rc.fallback_names or None,
                          fallback_time_limit=rc.fallback_time_limit or None)
    timings = {k: v for k, v in rr.timings.items() if v or k in ("propagate", "total")}
    timings["total"] = time.perf_counter() - t0
    notes = list(rr.notes)
    if not rr.valid and rr.rounds:
        notes.append(f"the annealing route found no valid grid in its {rc.time_budget:g} s budget "
                     f"({rounds_text(rr.rounds)})" + ("" if rc.exact_fallback else
                                                "; the exact fallback is off"))
    info = {"rounds": rr.rounds, "restarts": rr.restarts}
    sampler_info = {"name": config.sampler.name, "params": {**params, "seed": seed},
                    "route": {"time_budget": rc.time_budget, "max_depth": rc.max_depth,
                              "exact_fallback": rc.exact_fallback,
                              "fallback_time_limit": rc.fallback_time_limit}}
    return Result(puzzle, list(rr.grid), rr.valid, rr.solved_by, rr.energy, rr.success_rate,
                  rr.reads, rr.num_variables, rr.num_interactions, dict(rr.fired), timings,
                  list(rr.broken), sampler_info, info if rr.rounds else {}, rr.model,
                  rr.sampleset, list(rr.decoded), notes)


def solve(puzzle: Puzzle, config: Config = Config(), *, sampler=None) -> Result:
    """Solve one puzzle through every stage and validate the answer.

    Args:
        puzzle: The puzzle.
        config: Rules, weights, sampler and route (defaults: singles, weights 1, the
            annealing route with the ``swap`` sampler and the ``sat``/``csp`` exact fallback).
        sampler: An already-built sampler to reuse across puzzles (optional).

    Raises:
        ContradictionError: If propagation proves the puzzle has no solution.
        ConfigError: Bad sampler name or parameters.
        BackendUnavailableError: The sampler cannot run here.
    """
    t0 = time.perf_counter()
    if uses_route(config):
        return _solve_route(puzzle, config, sampler, t0)
    cands, model, timings = build(puzzle, config)
    fired = dict(cands.fired)
    if model is None:
        timings["total"] = time.perf_counter() - t0
        return Result(puzzle, list(cands.grid), puzzle.is_solution(cands.grid), "propagation",
                      0.0, None, 0, 0, 0, fired, timings)
    notes = []
    t = time.perf_counter()
    try:
        sampleset, params = sample_model(model, config, sampler)
    except BackendUnavailableError as e:
        config, note = fallback_config(config, e)
        notes.append(note)
        sampleset, params = sample_model(model, config)
    timings["sample"] = time.perf_counter() - t
    t = time.perf_counter()
    decoded = decode(model, sampleset)
    best = min(decoded, key=lambda d: (not d.valid, d.energy))
    timings["decode"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - t0
    broken = [c.describe(puzzle) for c in model.constraints if c.label in set(best.broken)]
    return Result(
        puzzle, best.grid, best.valid, config.sampler.name, best.energy, success_rate(decoded),
        sum(d.num_occurrences for d in decoded), model.num_variables, model.num_interactions,
        fired, timings, broken, {"name": config.sampler.name, "params": params},
        dict(sampleset.info), model, sampleset, decoded, notes)


def _is_timing(key) -> bool:
    """Sample-set info keys that hold wall or QPU times (they differ between runs)."""
    key = str(key)
    return key in ("timing", "timings") or key.endswith(("_time", "_seconds"))


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    try:
        return x.item()
    except AttributeError:
        return repr(x)
