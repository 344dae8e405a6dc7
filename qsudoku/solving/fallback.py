"""Exact solving of the candidates: the exact fallback, and an exact backend as the sampler.

``route.exact_fallback`` names the fallback: registry names tried in order, a backend
whose library is not installed skipped (and noted), and the sampler that has just run
skipped too (it would only repeat the run that ran out of time).  An exact backend of
:data:`qsudoku.exact.backends.BACKENDS` solves the root candidates' groups directly (no
QUBO to build) and counts building its formulation against the time limit; any other
registered sampler samples the root model once.

An exact backend chosen as *the sampler* (:func:`exact_backend` of it is a name) takes the
same direct path (:func:`run_exact_sampler`): a QUBO it would not read is never built, so
its time limit is spent in the solver.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = parse_puzzle("1..." "..2." "...." "...4")
>>> notes = []
>>> grid, name = run_fallback(("nonesuch", "csp"), propagate(p), None, notes)
>>> p.is_solution(grid), name, notes
(True, 'csp', ["exact fallback 'nonesuch' unavailable: not registered"])
>>> run_fallback(("csp",), propagate(p), None, notes, skip="csp")
(None, 'csp')
>>> notes[-1]
"exact fallback 'csp' skipped: it is the sampler that has just run"
"""

from __future__ import annotations

import time
from typing import Any, Mapping, NamedTuple, Sequence

from qsudoku.errors import BackendUnavailableError, ContradictionError, TimeLimitError
from qsudoku.exact.backends import BACKENDS
from qsudoku.exact.problem import Problem
from qsudoku.model.propagate import Candidates
from qsudoku.model.qubo import Weights, build_model
from qsudoku.samplers import get_sampler, names
from qsudoku.samplers.exact import check_exact
from qsudoku.solving.plan import Plan
from qsudoku.solving.rounds import sample_round

__all__ = ["run_fallback", "exact_backend", "run_exact_sampler", "ExactAnswer"]


def exact_backend(sampler: Any) -> str | None:
    """The :data:`BACKENDS` name of an exact sampler (``properties["backend"]`` of an
    :class:`~qsudoku.samplers.exact.ExactSampler`), ``None`` for any other sampler.

    >>> from qsudoku.samplers import get_sampler
    >>> exact_backend(get_sampler("csp")), exact_backend(get_sampler("sa"))
    ('csp', None)
    """
    props = getattr(sampler, "properties", None)
    name = props.get("backend") if isinstance(props, Mapping) and props.get("exact") else None
    return name if name in BACKENDS else None


class ExactAnswer(NamedTuple):
    """An exact sampler's answer: the grid (``None``: none found), its ``info`` (with
    ``status``), the time limit it had and the seconds it took."""

    grid: list[int] | None
    info: dict
    limit: float
    seconds: float


def run_exact_sampler(plan: Plan, root: Candidates, deadline: float) -> ExactAnswer:
    """The plan's exact sampler solves ``root`` directly: one call within its
    ``time_limit`` parameter, or else the budget left until ``deadline``; no QUBO.
    Its parameters pass :func:`~qsudoku.samplers.exact.check_exact` first, as in its
    ``sample()``.

    Raises:
        ParameterError: A parameter of the wrong type or out of range.
        ContradictionError: If the backend proves there is no solution.
    """
    name = exact_backend(plan.sampler)
    params = check_exact(name, {**getattr(plan.sampler, "defaults", {}), **plan.params})
    if plan.seed is not None:
        params["seed"] = check_exact(name, {"seed": plan.seed})["seed"] % 2**31
    limit = params.get("time_limit")
    limit = max(deadline - time.perf_counter(), 1e-3) if limit is None else limit
    t = time.perf_counter()
    grid, info = _solve_exact(name, root, limit, params)
    return ExactAnswer(None if grid is None else list(grid), info, limit,
                       time.perf_counter() - t)


def run_fallback(chain: Sequence[str], cands: Candidates, time_limit: float | None,
                 notes: list[str], weights: Weights = Weights(), *, skip: str | None = None):
    """Run the first available backend of ``chain`` on ``cands``.

    Args:
        chain: Registry names, tried in order.
        cands: The root candidates.
        time_limit: Seconds the fallback may take (``None`` = no limit).
        notes: Where a skipped backend or a time limit reached is noted.
        weights: Penalty weights, for a fallback that samples the QUBO.
        skip: The sampler that has just run: not run again as the fallback.

    Returns:
        ``(grid or None, name)``: ``None`` if it stopped at ``time_limit``.

    Raises:
        ContradictionError: If the backend proves there is no solution.
    """
    for name in chain:
        if name == skip:
            notes.append(f"exact fallback {name!r} skipped: it is the sampler that has just run")
            continue
        if name in BACKENDS and BACKENDS[name].available():
            grid, info = _solve_exact(name, cands, time_limit)
            status = info["status"]
        else:
            try:
                if name not in names():
                    raise BackendUnavailableError("not registered")
                sampler = get_sampler(name)
            except BackendUnavailableError as e:
                notes.append(f"exact fallback {name!r} unavailable: {e}")
                continue
            grid, status = _sample(sampler, cands, weights, time_limit)
        if grid is None and status == "time_limit":
            notes.append(f"the exact fallback {name!r} stopped at its {time_limit:g} s time "
                         "limit without a solution")
        return grid, name
    return None, ", ".join(chain)


def _solve_exact(name: str, cands: Candidates, time_limit: float | None,
                 given: Mapping = {}):
    """``(grid or None, info with status)`` of the exact backend ``name`` on ``cands``."""
    backend = BACKENDS[name]
    t0 = time.perf_counter()
    problem = Problem.from_candidates(cands)
    params = {**backend.params, **{k: v for k, v in given.items() if k in backend.params}}
    params.pop("time_limit", None)
    info: dict = {"solver": name, "num_variables": problem.num_variables}
    if time_limit:
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0:
            return None, {**info, "status": "time_limit"}
        params["time_limit"] = left
    t1 = time.perf_counter()
    outcome = backend.solve(problem, **params)
    info.update(outcome.info, status=outcome.status)
    info["timing"] = {**outcome.info.get("timing", {}), "groups": t1 - t0,
                      "total": time.perf_counter() - t0}
    if outcome.status == "infeasible":
        raise ContradictionError(f"no solution: {outcome.info.get('solver', name)} proved "
                                 "the reduced model infeasible")
    if outcome.chosen is None:
        return None, info
    return problem.grid(outcome.chosen), info


def _sample(sampler, cands: Candidates, weights: Weights, time_limit: float | None):
    """``(grid or None, status)`` of a QUBO sampler on ``cands``' model; building the
    model counts against ``time_limit``."""
    deadline = time.perf_counter() + time_limit if time_limit else None
    try:
        model = build_model(cands, weights, deadline=deadline)
    except TimeLimitError:
        return None, "time_limit"
    params = {}
    if deadline is not None and "time_limit" in (getattr(sampler, "parameters", None) or {}):
        params["time_limit"] = max(1e-3, deadline - time.perf_counter())
    rnd = sample_round(model, sampler, params, finite=True)  # built from checked weights
    return (rnd.best.grid if rnd.best.valid else None), rnd.sampleset.info.get("status")
