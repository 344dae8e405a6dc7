"""The annealing route: sampling rounds interleaved with propagation, with an optional exact fallback.

Every digit beyond propagation comes from samples of a sampler on the puzzle's QUBO or on
a sub-QUBO; no tree is searched.  A round builds the reduced QUBO of the current
candidates, samples it with a structured sampler (by default ``aco``: ant colonies that fill
cells one by one with propagation over the one-hot groups after each choice; or ``swap-tabu``:
short tabu walks with digit swaps inside boxes; or ``swap``: replica-exchange annealing with
the same moves), reads stopping at the first ground state, and decodes the reads.  A valid read
finishes the route.  Otherwise (with ``max_depth > 0``) the round *decimates*: it fixes a few
cells to the digits the low-energy reads agree on most, propagates, and samples the smaller
sub-QUBO next round.  A contradiction,
or a dive that reaches ``max_depth``, abandons the fixed digits and restarts from the root
candidates (a large-neighbourhood restart); the digits tried and refuted are not kept.

When the time budget runs out, ``fallback`` (a callable, or sampler names such as
``("sat", "csp")``) may finish the puzzle; the result then says so in ``solved_by``.

>>> from qsudoku.io import parse_puzzle
>>> r = anneal_route(parse_puzzle("1..." "..2." "...." "...4"), seed=3)
>>> r.valid, r.solved_by, r.rounds
(True, 'aco (1 round)', 1)
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from qsudoku.checks import describe, need_int, need_real, need_type
from qsudoku.config import ROUTE_SAMPLER
from qsudoku.errors import BackendUnavailableError, ContradictionError, TimeLimitError
from qsudoku.model.propagate import Candidates, propagate
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.qubo import Weights, build_model
from qsudoku.model.result import Result
from qsudoku.solving.rounds import Tally, sample_round

__all__ = ["anneal_route", "ROUTE_RULES", "STRONG_RULES", "ROUTE_PARAMS", "route_label",
           "rounds_text"]

#: Propagation at the root and after each decimation.  Singles only: stronger rules remove
#: candidates without filling cells, which disconnects the swap moves and made the
#: annealer slower (top95, first 20: 12/20 solved within 2 s with every rule vs 18/20).
ROUTE_RULES = ("naked_single", "hidden_single")

#: Every rule: tried once at the root, only to finish a puzzle outright (krazydad 16x16
#: "tough" puzzles need them); the QUBO that is annealed keeps the :data:`ROUTE_RULES` one.
STRONG_RULES = ("naked_single", "hidden_single", "locked_candidates", "naked_pair", "hidden_pair",
                "naked_triple", "hidden_triple")

#: What a round's sampler call may cost beyond its time limit, in builds of the model:
#: the structured samplers check the BQM against the groups before their first read and
#: score their reads after the last (measured on blank 16x16 to 49x49 grids, aco and
#: swap-tabu: 1.2 to 2.8 builds).  A round is skipped when the budget left is below it,
#: and a build's worth of the budget is kept for the scoring, so that a big grid's budget
#: holds (see docs/performance.md).
SAMPLE_OVERHEAD = 2.5

#: The samplers the route can use, with their parameters in the route: reads (tabu walks,
#: annealing runs, ant colonies) restarted until the round's time limit (the measured best
#: settings; see docs/performance.md).
#: The default is :data:`qsudoku.config.ROUTE_SAMPLER`.
ROUTE_PARAMS = {
    "swap-tabu": {"num_reads": 1_000_000, "tenure": 4, "stall": 500, "bump": 1.0},
    "swap": {"num_reads": 1_000_000, "num_sweeps": 300, "num_replicas": 16,
             "beta_range": (0.5, 4.0), "focus": 3},
    "aco": {"num_reads": 1_000_000, "num_ants": 10, "stall": 150, "max_iters": 1_000_000_000},
}


def route_label(sampler) -> str:
    """The registry name of a route sampler object (``"sampler"`` if it is not one).

    >>> from qsudoku.samplers import get_sampler
    >>> [route_label(get_sampler(n)) for n in ("aco", "swap", "swap-tabu")]
    ['aco', 'swap', 'swap-tabu']
    """
    accepts = set(getattr(sampler, "parameters", {}))
    for name, params in ROUTE_PARAMS.items():
        if set(params) <= accepts:
            return name
    return "sampler"


def _with_fixed(puzzle: Puzzle, grid: Sequence[int]) -> Puzzle:
    return Puzzle(puzzle.size, tuple(int(x) for x in grid), puzzle.units, kind=puzzle.kind,
                  name=puzzle.name, alphabet=puzzle.alphabet)


def _agreement(model, decoded, sol_mask=None):
    """Per variable, the share of the lowest-energy reads that set it."""
    grids = np.array([d.grid for d in decoded])
    energies = np.array([d.energy for d in decoded])
    low = grids[energies <= energies.min() + 1e-9]
    open_cells = np.flatnonzero(np.asarray(model.fixed) == 0)
    return low[:, open_cells], open_cells


def _choose_fixes(rng, model, decoded, num_fix: int):
    """Pick ``num_fix`` (cell, digit) pairs: cells where the low-energy reads agree most."""
    low, open_cells = _agreement(model, decoded)
    n = model.puzzle.size
    share = np.zeros(len(open_cells))
    major = np.zeros(len(open_cells), np.int64)
    for j in range(len(open_cells)):
        counts = np.bincount(low[:, j], minlength=n + 1)
        counts[0] = 0
        major[j] = counts.argmax()
        share[j] = counts[major[j]] / max(1, len(low))
    ok = major > 0
    if not ok.any():
        return []
    weight = np.where(ok, share ** 4 + 1e-12, 0.0)
    k = min(num_fix, int(ok.sum()))
    pick = rng.choice(len(open_cells), size=k, replace=False, p=weight / weight.sum())
    return [(int(open_cells[j]), int(major[j])) for j in pick]


def rounds_text(n: int) -> str:
    """``"1 round"``, ``"3 rounds"``."""
    return f"{n} round" + ("" if n == 1 else "s")


def _call_fallback(fallback, puzzle: Puzzle, cands: Candidates, weights: Weights,
                   time_limit: float | None, notes: list[str]):
    """Run the exact fallback; returns ``(grid or None, name)``.

    ``fallback`` is a callable, a registry name or a sequence of names tried in order:
    a backend whose library is missing is skipped (and noted); the first one that runs
    gives the answer, which is ``None`` if it stopped at ``time_limit``.  An exact backend
    solves the candidates' groups directly (no QUBO to build) and counts building its
    formulation against ``time_limit``.
    """
    if callable(fallback):
        return fallback(puzzle, cands), getattr(fallback, "__name__", "fallback")
    from qsudoku.samplers import get_sampler, names

    chain = [fallback] if isinstance(fallback, str) else list(fallback)
    for name in chain:
        try:
            if name not in names():
                raise BackendUnavailableError(f"not registered; have {', '.join(names())}")
            sampler = get_sampler(name)
        except BackendUnavailableError as e:
            notes.append(f"exact fallback {name!r} unavailable: {e}")
            continue
        backend = getattr(sampler, "backend", None)
        if backend is not None:  # an exact backend: its own formulation of the groups
            grid, status = _solve_exact(sampler, cands, time_limit)
        else:
            grid, status = _sample_fallback(sampler, cands, weights, time_limit)
        if grid is None and status == "time_limit":
            notes.append(f"the exact fallback {name!r} stopped at its {time_limit:g} s time "
                         "limit without a solution")
        return grid, name
    return None, ", ".join(chain)


def _sample_fallback(sampler, cands: Candidates, weights: Weights,
                     time_limit: float | None):
    """``(grid or None, status)`` of a QUBO sampler on ``cands``' model; building the
    model counts against ``time_limit``."""
    deadline = time.perf_counter() + time_limit if time_limit else None
    try:
        model = build_model(cands, weights, deadline=deadline)
    except TimeLimitError:
        return None, "time_limit"
    params = {}
    if deadline is not None and "time_limit" in getattr(sampler, "parameters", {}):
        params["time_limit"] = max(1e-3, deadline - time.perf_counter())
    rnd = sample_round(model, sampler, params)
    return (rnd.best.grid if rnd.best.valid else None), rnd.sampleset.info.get("status")


def _solve_exact(sampler, cands: Candidates, time_limit: float | None):
    """``(grid or None, status)`` of an exact sampler's backend on ``cands``.

    Raises:
        ContradictionError: If the backend proves there is no solution.
    """
    from qsudoku.exact.problem import Problem

    t0 = time.perf_counter()
    problem = Problem.from_candidates(cands)
    params = dict(sampler.defaults)
    if time_limit:
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0:
            return None, "time_limit"
        params["time_limit"] = left
    outcome = sampler.backend.solve(problem, **params)
    if outcome.status == "infeasible":
        raise ContradictionError(f"no solution: {outcome.info.get('solver', sampler.name)} "
                                 "proved the reduced model infeasible")
    if outcome.chosen is None:
        return None, outcome.status
    return problem.grid(outcome.chosen), outcome.status


def anneal_route(puzzle: Puzzle, *, rules: Sequence[str] = ROUTE_RULES,
                 weights: Weights = Weights(), time_budget: float = 0.8,
                 round_time: float | None = None, sample_params: dict | None = None,
                 max_depth: int = 0, num_fix: int = 1, max_rounds: int | None = None,
                 seed: int | None = None, sampler: Any = None,
                 fallback: str | Sequence[str] | Callable | None = None,
                 fallback_time_limit: float | None = None,
                 finish_rules: Sequence[str] | None = STRONG_RULES) -> Result:
    """Solve ``puzzle`` by annealing rounds interleaved with propagation.

    Args:
        puzzle: The puzzle.
        rules: Propagation rules run at the root and after every decimation.
        weights: QUBO penalty weights.
        time_budget: Seconds for the whole annealing route (the fallback comes after).
        round_time: Time limit of one sampler call (``None`` = the whole remaining budget).
        sample_params: Parameters of the sampler (default: its entry in :data:`ROUTE_PARAMS`).
        max_depth: Decimation steps in one dive before restarting from the root.
        num_fix: Cells fixed per decimation step.
        max_rounds: Stop after this many sampler calls (``None`` = time only; 0 = no
            sampling, straight to the fallback).
        seed: Seed of the route's choices and of the sampler.
        sampler: A route sampler to reuse, or the registry name of one (a key of
            :data:`ROUTE_PARAMS`; default :data:`~qsudoku.config.ROUTE_SAMPLER`).
        fallback: ``None``, a registry name (e.g. ``"csp"``), a sequence of names tried in
            order (skipping backends that are not installed), or ``f(puzzle, candidates) ->
            grid | None``; run on the root candidates when the budget runs out unsolved.
        fallback_time_limit: Seconds the exact fallback may take (``None`` = no limit).
        finish_rules: Rules tried once at the root when ``rules`` leave cells open; if they
            solve the puzzle no annealing is needed (``None`` = skip).

    Returns:
        A :class:`~qsudoku.model.result.Result`: ``solved_by`` is ``"propagation"``, ``"<sampler>
        (N rounds)"``, ``"<fallback> fallback after <sampler> (N rounds)"`` or ``"none"``;
        ``rounds`` counts sampler calls and ``restarts`` the returns to the root; the
        statistics (``num_reads``, ``success_rate``, ...) are over every round; ``model``,
        ``sampleset`` and ``decoded`` are those of the last round on the root QUBO.

    Raises:
        ContradictionError: If propagation proves the puzzle has no solution.
    """
    from qsudoku.samplers import get_sampler

    _check_args(puzzle, weights, time_budget, round_time, max_depth, num_fix, max_rounds,
                seed, fallback_time_limit, sampler, fallback)
    t0 = time.perf_counter()
    deadline = t0 + time_budget
    timings = {"propagate": 0.0, "build": 0.0, "sample": 0.0, "decode": 0.0, "fallback": 0.0}
    rng = np.random.default_rng(seed)
    t = time.perf_counter()
    root = propagate(puzzle, rules)
    timings["propagate"] += time.perf_counter() - t
    if not root.solved and finish_rules and set(finish_rules) - set(rules):
        t = time.perf_counter()
        strong = propagate(puzzle, finish_rules, start=root)
        timings["propagate"] += time.perf_counter() - t
        if strong.solved:
            root = strong
    result = Result(puzzle=puzzle, grid=list(root.grid), valid=False, solved_by="none",
                    energy=None, fired=dict(root.fired), timings=timings)
    if root.solved:
        result.valid = puzzle.is_solution(root.grid)
        result.solved_by = "propagation"
        result.energy = 0.0
        timings["total"] = time.perf_counter() - t0
        return result
    compile_time = 0.0
    if sampler is None or isinstance(sampler, str):
        t = time.perf_counter()
        sampler = get_sampler(sampler or ROUTE_SAMPLER)
        compile_time = time.perf_counter() - t  # importing the backends: setup, not sampling
    label = route_label(sampler)
    params = dict(ROUTE_PARAMS.get(label, {}) if sample_params is None else sample_params)
    warm = getattr(sampler, "warm_up", None)
    compile_time += warm(params) if warm is not None else 0.0
    if compile_time:  # a JIT compile (first call in a process) is not annealing time
        timings["compile"] = compile_time
        deadline += compile_time
    cands, depth = root, 0
    tally = Tally()
    built = 0.0  # seconds the last build took: the next one (same or fewer cells) costs no more
    while time.perf_counter() < deadline and (max_rounds is None or tally.rounds < max_rounds):
        t = time.perf_counter()
        if deadline - t < built:
            break
        try:
            model = build_model(cands, weights, deadline=deadline)
        except TimeLimitError as err:  # the budget ended while building: no round, not decided
            timings["build"] += time.perf_counter() - t
            if tally.rounds == 0:
                result.num_variables = err.num_variables or 0
            result.notes.append(f"building the QUBO stopped at the end of the {time_budget:g} s "
                                "time budget")
            break
        if tally.rounds == 0:
            result.num_variables = model.num_variables
            result.num_interactions = model.num_interactions
            result.model = model
        built = time.perf_counter() - t
        timings["build"] += built
        t = time.perf_counter()
        if deadline - t < SAMPLE_OVERHEAD * built:
            if not tally.rounds:  # the sampler's own work around its limit would overrun
                result.notes.append(f"no sampling round: one costs about "
                                    f"{SAMPLE_OVERHEAD * built:.2g} s on this model, more than "
                                    f"the {max(0.0, deadline - t):.2g} s left of the budget")
            break
        left = deadline - t - built  # a build's worth kept for the reads' scoring
        limit = max(1e-3, left if round_time is None else min(round_time, left))
        rnd = sample_round(model, sampler, {"time_limit": limit, "stop_at_ground": True,
                                            "seed": int(rng.integers(2**31)), **params})
        timings["sample"] += rnd.t_sample
        timings["decode"] += rnd.t_decode
        tally.add(rnd)
        if cands is root:
            result.sampleset, result.decoded = rnd.sampleset, rnd.decoded
        if rnd.best.valid and puzzle.is_solution(rnd.best.grid):
            result.grid, result.valid = list(rnd.best.grid), True
            result.solved_by = f"{label} ({rounds_text(tally.rounds)})"
            break
        fixes = _choose_fixes(rng, model, rnd.decoded, num_fix) if depth < max_depth else []
        if not fixes:
            cands, depth = root, 0
            result.restarts += 1
            continue
        grid = list(cands.grid)
        for cell, digit in fixes:
            grid[cell] = digit
        t = time.perf_counter()
        try:
            nxt = propagate(_with_fixed(puzzle, grid), rules)
        except ContradictionError:
            nxt = None
        timings["propagate"] += time.perf_counter() - t
        if nxt is None:
            cands, depth = root, 0
            result.restarts += 1
            continue
        if nxt.solved:
            result.grid = list(nxt.grid)
            result.valid = puzzle.is_solution(nxt.grid)
            if result.valid:
                result.solved_by = f"{label} ({rounds_text(tally.rounds)})"
                break
            cands, depth = root, 0
            result.restarts += 1
            continue
        cands, depth = nxt, depth + 1
    _add_tally(result, tally)
    if not result.valid and fallback is not None:
        t = time.perf_counter()
        grid, name = _call_fallback(fallback, puzzle, root, weights, fallback_time_limit,
                                    result.notes)
        timings["fallback"] = time.perf_counter() - t
        if grid is not None and puzzle.is_solution(grid):
            result.grid, result.valid, result.broken = list(grid), True, []
            result.solved_by = f"{name} fallback after {label} ({rounds_text(tally.rounds)})"
            result.notes.append(f"the annealing route ran out of budget after "
                                f"{rounds_text(tally.rounds)}; the exact fallback {name!r} "
                                "finished the puzzle")
    timings["total"] = time.perf_counter() - t0
    return result


def _check_args(puzzle, weights, time_budget, round_time, max_depth, num_fix, max_rounds, seed,
                fallback_time_limit, sampler, fallback) -> None:
    """TypeError/ValueError naming the first bad argument of :func:`anneal_route`."""
    if not (sampler is None or isinstance(sampler, str)
            or callable(getattr(sampler, "sample", None))):
        raise TypeError(f"sampler must be a sampler, its registry name or None, not "
                        f"{describe(sampler)}")
    names = [fallback] if isinstance(fallback, str) else fallback
    if not (fallback is None or callable(fallback) or (
            isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names))):
        raise TypeError(f"fallback must be a sampler name, a list of names, a function or "
                        f"None, not {describe(fallback)}")
    need_type("puzzle", puzzle, Puzzle)
    need_type("weights", weights, Weights)
    need_real("time_budget", time_budget, low=0)
    need_real("round_time", round_time, low=0, allow_none=True)
    need_real("fallback_time_limit", fallback_time_limit, low=0, allow_none=True)
    need_int("max_depth", max_depth, low=0)
    need_int("num_fix", num_fix, low=1)
    need_int("max_rounds", max_rounds, low=0, allow_none=True)
    need_int("seed", seed, low=0, allow_none=True)


def _add_tally(result: Result, tally: Tally) -> None:
    """The statistics of every round; an unsolved route keeps the best read of any round."""
    from qsudoku.model.puzzle import UNIT_KINDS

    result.rounds = tally.rounds
    result.num_reads, result.num_valid = tally.num_reads, tally.num_valid
    result.success_rate = tally.success_rate
    result.mean_energy = tally.mean_energy
    result.chain_break_fraction = tally.chain_break_fraction
    if tally.rounds:
        result.broken_per_read = tally.broken_per_read(("cell",) + UNIT_KINDS)
        result.energy = 0.0 if result.valid else tally.best.energy
    if not result.valid and tally.best is not None:
        result.grid, result.broken = list(tally.best.grid), tally.best_round.broken_names()
