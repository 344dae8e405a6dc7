"""The one place where the stages are chained: propagate -> build -> sample -> decode.

>>> from qsudoku.io import parse_puzzle
>>> r = solve(parse_puzzle("1..." "..2." ".3.." "...4"))
>>> r.valid, r.solved_by, r.solution
(True, 'propagation', '1243342143122134')

With the default configuration a puzzle that propagation leaves open goes through the
annealing route (``aco`` sampler, see :mod:`qsudoku.solving.route`); any other sampler samples the
reduced QUBO once:

>>> from qsudoku import Config
>>> r = solve(parse_puzzle("1..." "..2." "...." "...4"), Config().with_overrides(seed=3))
>>> r.valid, r.solved_by
(True, 'aco (1 round)')
>>> r = solve(parse_puzzle("1..." "..2." "...." "...4"), Config().with_overrides(sampler="sa", seed=3))
>>> r.valid, r.solved_by, r.num_reads
(True, 'sa', 50)

Any other :class:`dimod.Sampler` plugs in: it gets the configured parameters it accepts
(the others are left out, with one note) and the result names its class:

>>> import dimod
>>> r = solve(parse_puzzle("1..." "..2." "...." "...4"), Config().with_overrides(reads=5, seed=3),
...           sampler=dimod.RandomSampler())
>>> r.solved_by, r.sampler["params"], r.num_reads
('RandomSampler', {'num_reads': 5}, 5)
>>> r.notes
['RandomSampler does not accept parameter(s) seed of the configured sampler aco; left out']
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Mapping

from qsudoku.config import Config
from qsudoku.checks import describe, need_real, need_type
from qsudoku.errors import BackendUnavailableError, ConfigError, ParameterError
from qsudoku.model.propagate import Candidates, propagate
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.qubo import QuboModel, build_model
from qsudoku.model.result import Result
from qsudoku.solving.rounds import Tally, sample_round
from qsudoku.samplers import check_params, default_params, get_sampler
from qsudoku.samplers.registry import check_values

__all__ = ["Result", "solve", "sample_model", "sample_rounds", "build", "sampler_factory",
           "sampler_params", "fallback_config", "uses_route", "result_of", "TIME_PARAMS",
           "is_configured", "sampler_label"]

#: Sampling parameters that take a time limit in seconds (a budget is passed through them).
TIME_PARAMS = ("time_limit", "time_budget")


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


def is_configured(sampler, config: Config) -> bool:
    """True if ``sampler`` is ``None`` or was built by :func:`sampler_factory` for ``config``'s
    sampler name; any other sampler is *foreign*: it takes the configured parameters it
    accepts, never the registered defaults of another sampler."""
    return sampler is None or getattr(sampler, "qsudoku_name", None) == config.sampler.name


def sampler_label(sampler, config: Config) -> str:
    """The name a result gives the sampler: the configured name, else the class name."""
    return config.sampler.name if is_configured(sampler, config) else type(sampler).__name__


def _accepted(sampler, params: dict, config: Config, notes: list | None) -> dict:
    """``params`` restricted to what a foreign ``sampler`` accepts; one note for the rest."""
    accepted = set(getattr(sampler, "parameters", None) or {})
    dropped = sorted(set(params) - accepted)
    kept = {k: v for k, v in params.items() if k in accepted}
    check_values(kept, config.source)
    if dropped and notes is not None:
        notes.append(f"{type(sampler).__name__} does not accept parameter(s) {', '.join(dropped)} "
                     f"of the configured sampler {config.sampler.name}; left out")
    return kept


def sampler_params(sampler, config: Config, notes: list | None = None) -> dict:
    """The checked sampling parameters for ``config`` (registered defaults if none given).

    A foreign sampler (see :func:`is_configured`) gets the config's own parameters that
    its ``parameters`` accept; the others are left out with a note added to ``notes``.
    """
    if not is_configured(sampler, config):
        return _accepted(sampler, dict(config.sampler.params), config, notes)
    name = config.sampler.name
    params = dict(default_params(name))
    params.update(config.sampler.params)
    return check_params(sampler, params, name, config.source)


def uses_route(config: Config, sampler=None) -> bool:
    """True if ``config`` (with ``sampler``, if given) runs the annealing route rather than one
    sampling: a foreign sampler runs it only if it accepts a route's parameters."""
    from qsudoku.solving.route import ROUTE_PARAMS, route_label

    if not config.route.enabled:
        return False
    if is_configured(sampler, config):
        return config.sampler.name in ROUTE_PARAMS
    return route_label(sampler) in ROUTE_PARAMS


def route_params(sampler, config: Config, notes: list | None = None) -> tuple[dict, int | None]:
    """The route's parameters of the sampler with the config's applied, and the seed."""
    from qsudoku.solving.route import ROUTE_PARAMS, route_label

    params = dict(config.sampler.params)
    seed = params.pop("seed", None)
    if not is_configured(sampler, config):
        return _accepted(sampler, {**ROUTE_PARAMS[route_label(sampler)], **params}, config,
                         notes), seed
    merged = {**ROUTE_PARAMS[config.sampler.name], **params}
    check_params(sampler, merged, config.sampler.name, config.source)
    return merged, seed


def sampler_factory(config: Config):
    """Instantiate the configured sampler (reuse it across puzzles)."""
    sampler = get_sampler(config.sampler.name, **config.sampler.options)
    try:
        sampler.qsudoku_name = config.sampler.name
    except AttributeError:  # a sampler with __slots__: treated as foreign (lenient parameters)
        pass
    return sampler


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
    """Sample ``model`` once with the configured sampler; returns ``(sampleset, params)``."""
    need_type("model", model, QuboModel)
    need_type("config", config, Config)
    sampler = sampler or sampler_factory(config)
    params = sampler_params(sampler, config)
    with _rejected_params(config, params, sampler):
        rnd = sample_round(model, sampler, params)
    return rnd.sampleset, rnd.params


def sample_rounds(model: QuboModel, sampler, params: Mapping, *, budget: float | None = None,
                  clock_start: float | None = None) -> Tally:
    """Sample ``model`` once, or again and again until ``budget`` seconds are used.

    With a ``budget`` each call gets another seed (``seed + 104729 * k`` for call ``k``);
    samplers with a time-limit parameter (:data:`TIME_PARAMS`) get what is left as
    its value; samplers with ``num_reads`` start with a one-read probe, then take
    batches (at most the configured ``num_reads``) sized to what is left, and stop
    when one more read would not fit.  Sampling also stops once every read so far
    was valid.

    Args:
        model: The reduced QUBO.
        sampler: The sampler.
        params: Checked sampling parameters.
        budget: Wall seconds from ``clock_start`` (default: now); ``None`` = one call.
        clock_start: ``time.perf_counter()`` value the budget counts from.

    Returns:
        The :class:`~qsudoku.solving.rounds.Tally` of the calls.
    """
    tally = Tally()
    if budget is None:
        tally.add(sample_round(model, sampler, params))
        return tally
    t0 = time.perf_counter() if clock_start is None else clock_start
    accepted = getattr(sampler, "parameters", {}) or {}
    timed = [k for k in TIME_PARAMS if k in accepted]
    batched = "num_reads" in accepted
    max_reads = max(1, int(params.get("num_reads", 1) or 1))
    seed = params.get("seed")
    n_next = 1
    while True:
        left = budget - (time.perf_counter() - t0)
        call = dict(params)
        if seed is not None:
            call["seed"] = (int(seed) + 104729 * tally.rounds) % (2 ** 31)
        for k in timed:
            call[k] = max(left, 1e-3)
        if batched:
            call["num_reads"] = n_next
        tally.add(sample_round(model, sampler, call))
        if tally.num_valid == tally.num_reads:
            break
        left = budget - (time.perf_counter() - t0)
        if batched:
            per_read = tally.t_sample / tally.num_reads
            n_next = min(max_reads, int(left / per_read)) if per_read > 0 else max_reads
            if n_next < 1:
                break
        elif left <= 0:
            break
    return tally


def result_of(puzzle: Puzzle, model: QuboModel, tally: Tally, **fields) -> Result:
    """The :class:`~qsudoku.model.result.Result` of sampling ``model``: the best read of
    ``tally`` and its statistics, plus ``fields`` (``solved_by``, ``timings``, ...)."""
    from qsudoku.model.puzzle import UNIT_KINDS

    best, rnd = tally.best, tally.best_round
    return Result(puzzle=puzzle, grid=list(best.grid), valid=best.valid, energy=best.energy,
                  success_rate=tally.success_rate, num_reads=tally.num_reads,
                  num_valid=tally.num_valid, mean_energy=tally.mean_energy,
                  broken_per_read=tally.broken_per_read(("cell",) + UNIT_KINDS),
                  chain_break_fraction=tally.chain_break_fraction, rounds=tally.rounds,
                  num_variables=model.num_variables, num_interactions=model.num_interactions,
                  broken=rnd.broken_names(), model=model, sampleset=rnd.sampleset,
                  decoded=rnd.decoded, **fields)


@contextmanager
def _rejected_params(config: Config, params: dict, sampler):
    """A sampler's own refusal of a parameter value becomes a ConfigError naming it.

    Only the sampler's parameter checks count: a :class:`~qsudoku.errors.ParameterError`
    (qsudoku's samplers raise it), or a ``ValueError``/``TypeError`` raised by the
    parameter checks at the top of another library's ``sample`` method (the innermost
    frame is that method of a sampler object from outside qsudoku).  Anything else is a
    bug and propagates unchanged, to be reported as an internal error.
    """
    try:
        yield
    except ConfigError as e:
        if not isinstance(e, ParameterError):
            raise
        raise _config_error(config, params, e) from None
    except (ValueError, TypeError) as e:
        if not _raised_by_foreign_sample(e):
            raise
        raise _config_error(config, params, e) from None


def _config_error(config: Config, params: dict, e: Exception) -> ConfigError:
    where = f"{config.source}: " if config.source else ""
    return ConfigError(f"{where}sampler {config.sampler.name!r} rejected its parameters "
                       f"(sampler.params / sampler.options) {params}: {e}")


def _raised_by_foreign_sample(error: BaseException) -> bool:
    """True if ``error`` was raised in the body of the ``sample*`` method of a sampler
    that is not qsudoku's own (that is where dimod samplers check their parameters)."""
    import dimod

    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame = tb.tb_frame
    owner = frame.f_locals.get("self")
    return (frame.f_code.co_name.startswith("sample")
            and isinstance(owner, (dimod.Sampler, dimod.Composite))
            and not type(owner).__module__.startswith("qsudoku"))


def _sample(model: QuboModel, config: Config, sampler, budget, t0,
            notes: list | None = None) -> tuple[Tally, dict]:
    sampler = sampler or sampler_factory(config)
    params = sampler_params(sampler, config, notes)
    with _rejected_params(config, params, sampler):
        return sample_rounds(model, sampler, params, budget=budget, clock_start=t0), params


def _solve_route(puzzle: Puzzle, config: Config, sampler, t0: float,
                 budget: float | None) -> Result:
    from qsudoku.solving.route import anneal_route, rounds_text

    label = sampler_label(sampler, config)
    sampler = sampler or sampler_factory(config)
    notes: list[str] = []
    params, seed = route_params(sampler, config, notes)
    rc = config.route
    time_budget = rc.time_budget if budget is None else budget
    with _rejected_params(config, params, sampler):
        res = anneal_route(puzzle, rules=config.propagate.rules, weights=config.qubo.weights,
                           time_budget=time_budget, sample_params=params,
                           max_depth=rc.max_depth, seed=seed, sampler=sampler,
                           fallback=rc.fallback_names or None,
                           fallback_time_limit=rc.fallback_time_limit or None)
    res.timings = {k: v for k, v in res.timings.items() if v or k in ("propagate", "total")}
    res.timings["total"] = time.perf_counter() - t0
    res.notes[:0] = notes
    if not res.valid and res.rounds:
        res.notes.append(f"the annealing route found no valid grid in its {time_budget:g} s "
                         f"budget ({rounds_text(res.rounds)})"
                         + ("" if rc.exact_fallback else "; the exact fallback is off"))
    res.sampler = {"name": label, "params": {**params, "seed": seed},
                   "route": {"time_budget": time_budget, "max_depth": rc.max_depth,
                             "exact_fallback": rc.exact_fallback,
                             "fallback_time_limit": rc.fallback_time_limit}}
    return res


def solve(puzzle: Puzzle, config: Config = Config(), *, sampler=None,
          budget: float | None = None) -> Result:
    """Solve one puzzle through every stage and validate the answer.

    Args:
        puzzle: The puzzle.
        config: Rules, weights, sampler and route (defaults: singles, weights 1, the
            annealing route with the ``aco`` sampler and the ``sat``/``csp`` exact
            fallback).
        sampler: An already-built sampler to reuse across puzzles (optional): the
            configured one (from :func:`sampler_factory`), or any :class:`dimod.Sampler`,
            which gets the configured parameters it accepts (see :func:`sampler_params`)
            and runs the route only if it accepts a route's parameters.
        budget: Wall seconds for sampling: the route's time budget (instead of
            ``route.time_budget``), or, for any other sampler, sample again until it is
            used (see :func:`sample_rounds`); ``None``: the route's own budget, or one
            sampler call.

    Raises:
        TypeError, ValueError: A wrong argument (the message names it).
        ContradictionError: If propagation proves the puzzle has no solution.
        ConfigError: Bad sampler name or parameters (a sampler's own parameter check).
        BackendUnavailableError: The sampler cannot run here.

    Any other exception is a bug (in qsudoku or a sampler) and is not disguised as one of
    these: the CLI reports it as an internal error.
    """
    t0 = time.perf_counter()
    need_type("puzzle", puzzle, Puzzle)
    need_type("config", config, Config)
    need_real("budget", budget, low=0, allow_none=True)
    if sampler is not None and not callable(getattr(sampler, "sample", None)):
        raise TypeError(f"sampler must be a dimod sampler object (or None; choose one by name "
                        f"with Config().with_overrides(sampler=...)), not {describe(sampler)}")
    if uses_route(config, sampler):
        return _solve_route(puzzle, config, sampler, t0, budget)
    cands, model, timings = build(puzzle, config)
    fired = dict(cands.fired)
    if model is None:
        timings["total"] = time.perf_counter() - t0
        return Result(puzzle=puzzle, grid=list(cands.grid), valid=puzzle.is_solution(cands.grid),
                      solved_by="propagation", fired=fired, timings=timings)
    notes: list[str] = []
    label = sampler_label(sampler, config)
    try:
        tally, params = _sample(model, config, sampler, budget, t0, notes)
    except BackendUnavailableError as e:
        config, note = fallback_config(config, e)
        notes.append(note)
        label = config.sampler.name
        tally, params = _sample(model, config, None, budget, t0, notes)
    timings["sample"], timings["decode"] = tally.t_sample, tally.t_decode
    timings["total"] = time.perf_counter() - t0
    return result_of(puzzle, model, tally, solved_by=label, fired=fired,
                     timings=timings, sampler={"name": label, "params": params},
                     info=dict(tally.best_round.sampleset.info), notes=notes)
