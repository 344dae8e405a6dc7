"""The exact fallback: an exact solver finishes a puzzle the sampling rounds left unsolved.

``route.exact_fallback`` names it: registry names tried in order, a backend whose library
is not installed skipped (and noted).  An exact backend of :data:`qsudoku.exact.backends.
BACKENDS` solves the root candidates' groups directly (no QUBO to build) and counts
building its formulation against the time limit; any other registered sampler samples
the root model once.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = parse_puzzle("1..." "..2." "...." "...4")
>>> notes = []
>>> grid, name = run_fallback(("nonesuch", "csp"), propagate(p), None, notes)
>>> p.is_solution(grid), name, notes
(True, 'csp', ["exact fallback 'nonesuch' unavailable: not registered"])
"""

from __future__ import annotations

import time
from typing import Sequence

from qsudoku.errors import BackendUnavailableError, ContradictionError, TimeLimitError
from qsudoku.exact.backends import BACKENDS
from qsudoku.exact.problem import Problem
from qsudoku.model.propagate import Candidates
from qsudoku.model.qubo import Weights, build_model
from qsudoku.samplers import get_sampler, names
from qsudoku.solving.rounds import sample_round

__all__ = ["run_fallback"]


def run_fallback(chain: Sequence[str], cands: Candidates, time_limit: float | None,
                 notes: list[str], weights: Weights = Weights()):
    """Run the first available backend of ``chain`` on ``cands``.

    Args:
        chain: Registry names, tried in order.
        cands: The root candidates.
        time_limit: Seconds the fallback may take (``None`` = no limit).
        notes: Where a skipped backend or a time limit reached is noted.
        weights: Penalty weights, for a fallback that samples the QUBO.

    Returns:
        ``(grid or None, name)``: ``None`` if it stopped at ``time_limit``.

    Raises:
        ContradictionError: If the backend proves there is no solution.
    """
    for name in chain:
        if name in BACKENDS and BACKENDS[name].available():
            grid, status = _solve_exact(name, cands, time_limit)
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


def _solve_exact(name: str, cands: Candidates, time_limit: float | None):
    """``(grid or None, status)`` of the exact backend ``name`` on ``cands``."""
    backend = BACKENDS[name]
    t0 = time.perf_counter()
    problem = Problem.from_candidates(cands)
    params = dict(backend.params)
    if time_limit:
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0:
            return None, "time_limit"
        params["time_limit"] = left
    outcome = backend.solve(problem, **params)
    if outcome.status == "infeasible":
        raise ContradictionError(f"no solution: {outcome.info.get('solver', name)} proved "
                                 "the reduced model infeasible")
    if outcome.chosen is None:
        return None, outcome.status
    return problem.grid(outcome.chosen), outcome.status


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
    rnd = sample_round(model, sampler, params)
    return (rnd.best.grid if rnd.best.valid else None), rnd.sampleset.info.get("status")
