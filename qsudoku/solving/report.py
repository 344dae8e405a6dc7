"""The one place a solve's :class:`~qsudoku.model.result.Result` is made: from the values
the stages of :mod:`.policy` returned, once, at the end.

Each route to an answer has its function: :func:`propagated` (nothing left to sample),
:func:`exact` (an exact sampler solved the candidates) and :func:`sampled` (rounds of a
QUBO sampler, then perhaps the exact fallback).  They share :class:`Run`, what every route
knows, and :class:`Times`, the seconds of its stages.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from qsudoku.model.propagate import Candidates
from qsudoku.model.puzzle import UNIT_KINDS, Puzzle
from qsudoku.model.result import By, Outcome, Result
from qsudoku.solving.budget import Budget
from qsudoku.solving.loop import Built, Sampling, rounds_text
from qsudoku.solving.plan import TIME_PARAMS, Plan
from qsudoku.solving.rounds import Tally

if TYPE_CHECKING:  # the exact layer is imported only when an exact sampler runs
    from qsudoku.solving.fallback import ExactAnswer

__all__ = ["Run", "Times", "Rescue", "propagated", "exact", "sampled"]


class Run(NamedTuple):
    """What every route of a solve knows.

    Attributes:
        plan: The plan that ran (seeded).
        puzzle: The puzzle.
        root: Its propagated candidates.
        first: The budget before the model was built.
        budget: The budget that ran (``first``, or the default derived from the model).
        fixed: A fixed sample.
        started: ``time.perf_counter()`` value the budget and the total count from.
        setup: Seconds spent making the plan before ``started`` (counted as compile).
    """

    plan: Plan
    puzzle: Puzzle
    root: Candidates
    first: Budget
    budget: Budget
    fixed: bool
    started: float
    setup: float = 0.0


class Times(NamedTuple):
    """Seconds of a solve's stages (a JIT ``compile`` is not sampling time)."""

    propagate: float = 0.0
    build: float = 0.0
    sample: float = 0.0
    decode: float = 0.0
    fallback: float = 0.0
    compile: float = 0.0


class Rescue(NamedTuple):
    """The exact fallback's run: its grid (``None``: none), name, notes and seconds."""

    grid: list[int] | None
    name: str
    notes: list[str]
    seconds: float


def propagated(run: Run, times: Times) -> Result:
    """The result of a puzzle propagation solved."""
    grid = list(run.root.grid)
    return _result(run, times, grid=grid, valid=run.puzzle.is_solution(grid),
                   outcome=Outcome(By.PROPAGATION), energy=0.0)


def exact(run: Run, times: Times, answer: ExactAnswer) -> Result:
    """The result of an exact sampler's :class:`~.fallback.ExactAnswer`."""
    label, notes = run.plan.label, []
    valid = answer.grid is not None and run.puzzle.is_solution(answer.grid)
    outcome = Outcome(By.EXACT, label) if valid else Outcome()
    if not valid and answer.info.get("status") == "time_limit":
        outcome = Outcome(By.NONE, label, limit=answer.limit)
        notes.append(f"the exact sampler {label!r} found no solution within its "
                     f"{answer.limit:.3g} s time limit (no fallback runs after an exact "
                     "sampler; --time-budget S gives it S seconds)")
    return _result(run, times._replace(sample=answer.seconds),
                   grid=list(answer.grid) if valid and answer.grid else list(run.root.grid),
                   valid=valid, outcome=outcome, energy=0.0 if valid else None,
                   rounds=1, num_reads=1, num_valid=int(valid),
                   success_rate=1.0 if valid else None,
                   num_variables=answer.info.get("num_variables", 0),
                   info={**answer.info, "rounds": 1, "qubo": "not built (exact sampler)"},
                   notes=notes)


def sampled(run: Run, times: Times, built: Built, sampling: Sampling,
            rescue: Rescue | None) -> Result:
    """The result of the sampling rounds (none if the model was not built) and of the
    exact fallback that may have run after them."""
    label, tally = run.plan.label, sampling.tally
    notes = [] if built.model is not None else [
        f"building the QUBO stopped at the end of the {run.first.seconds:g} s time budget"]
    notes += sampling.notes
    fields: dict = {"grid": list(run.root.grid), "valid": False, "outcome": Outcome(),
                    "energy": None, "model": built.model, "num_variables": built.num_variables,
                    "num_interactions": built.model.num_interactions if built.model else 0,
                    **_tallied(tally)}
    if sampling.last is not None:
        fields.update(sampleset=sampling.last.sampleset, decoded=sampling.last.decoded)
    if sampling.grid is not None:
        fields.update(grid=sampling.grid, valid=True, energy=0.0,
                      outcome=Outcome(By.SAMPLING, label, tally.rounds))
    elif tally.best is not None and tally.best_round is not None:
        fields.update(grid=list(tally.best.grid), energy=tally.best.energy,
                      broken=tally.best_round.broken_names())
    if sampling.grid is None and tally.rounds and run.fixed:
        notes.append(f"no read of the fixed sample of {tally.num_reads} was valid")
    elif sampling.grid is None and tally.rounds:
        notes.append(f"the sampling rounds found no valid grid in the "
                     f"{run.budget.seconds:g} s budget ({rounds_text(tally.rounds)})"
                     + ("" if run.plan.config.route.fallback_names else
                        "; the exact fallback is off"))
    if rescue is not None:
        notes += rescue.notes
        times = times._replace(fallback=rescue.seconds)
        if rescue.grid is not None and run.puzzle.is_solution(rescue.grid):
            fields.update(grid=list(rescue.grid), valid=True, broken=[],
                          outcome=Outcome(By.FALLBACK, label, tally.rounds,
                                          fallback=rescue.name))
            notes.append(f"the exact fallback {rescue.name!r} finished the puzzle")
    return _result(run, times, notes=notes, **fields)


def _tallied(tally: Tally) -> dict:
    """The result's fields of a :class:`~.rounds.Tally` of one or more rounds."""
    best_info = dict(tally.best_round.sampleset.info) if tally.best_round else {}
    info = {**best_info, **tally.info, "rounds": tally.rounds}
    if "num_reads" in info:  # a sampler's count of one round: say what ran
        info["num_reads"] = tally.num_reads
    out = {"rounds": tally.rounds, "num_reads": tally.num_reads, "num_valid": tally.num_valid,
           "success_rate": tally.success_rate, "mean_energy": tally.mean_energy,
           "chain_break_fraction": tally.chain_break_fraction, "info": info}
    if tally.rounds:
        out["broken_per_read"] = tally.broken_per_read(("cell",) + UNIT_KINDS)
    return out


def _result(run: Run, times: Times, *, notes: Sequence[str] = (), **fields) -> Result:
    """The one :class:`Result` of a solve: what every route has, and ``fields``."""
    plan, rc, fixed = run.plan, run.plan.config.route, run.fixed
    params = plan.round_params(plan.seed, run.first.seconds, fixed_sample=fixed)
    if run.budget.derived and any(k in params for k in TIME_PARAMS):
        params = plan.round_params(plan.seed, run.budget.seconds)
    sampler = {"name": plan.label, "seed": plan.seed,
               "seed_drawn": plan.seed is not None and plan.seed_drawn, "params": params,
               "route": {"time_budget": run.budget.shown, "budget": run.budget.why,
                         "one_round": not rc.enabled or fixed, "fixed_sample": fixed,
                         "exact_fallback": "" if fixed else rc.exact_fallback,
                         "fallback_time_limit": rc.fallback_time_limit}}
    return Result(puzzle=run.puzzle, encoding=plan.config.qubo.encoding,
                  fired=dict(run.root.fired), sampler=sampler, timings=_timings(run, times),
                  notes=[*plan.notes, *notes], **fields)


def _timings(run: Run, times: Times) -> dict:
    """Seconds per stage that took any (``propagate`` always), and ``total``."""
    out = {k: v for k, v in times._asdict().items() if v or k == "propagate"}
    out["total"] = time.perf_counter() - run.started
    if run.setup > 1e-3:  # building the sampler (imports): not sampling time
        out["compile"] = out.get("compile", 0.0) + run.setup
    out["total"] += run.setup
    return out
