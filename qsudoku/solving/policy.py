"""The one solve path: propagate once, build once, sample in rounds, fall back, report.

:func:`solve` runs every sampler, registered or passed in, under one round policy
(``[route]`` in the configuration):

1. propagate with the configured ``rules`` (and ``finish_rules`` once, only to finish the
   puzzle outright); a puzzle they solve is never sampled;
2. build the reduced QUBO once;
3. sample it in rounds (:mod:`.loop`) until a read is a valid grid or ``route.time_budget``
   is spent.  Each round gets its own seed, drawn from the configured one; a sampler with a
   time parameter gets the time left; one without takes its configured ``num_reads`` in the
   first round, then batches of at most that many that fit the time left.  The first
   round starts with a call of :data:`~.loop.PROBE_READS` read, whose time sets how many
   of the rest of its reads fit: the budget bounds the first round too
   (``--reads 10000000 --time-budget 1`` answers within seconds, and ``sa`` on a blank
   36x36 within its budget and one read), and a note says when reads were cut.  A QPU (``annealing_time``, real or
   mock) is not measured so: its reads are checked against the solver's access-time limit
   before anything is submitted.  A sampler that takes no seed runs one round (its answer
   would not change), and so does every sampler with ``route.enabled = false``
   (``--no-route``);
4. if no round found a valid grid, run the exact fallback (:mod:`.fallback`).

>>> from qsudoku import Config
>>> from qsudoku.io import parse_puzzle
>>> r = solve(parse_puzzle("1..." "..2." ".3.." "...4"))
>>> r.valid, r.solved_by, r.solution
(True, 'propagation', '1243342143122134')
>>> r = solve(parse_puzzle("1..." "..2." "...." "...4"), Config().with_overrides(seed=3))
>>> r.valid, r.solved_by
(True, 'aco (1 round)')
>>> r = solve(parse_puzzle("1..." "..2." "...." "...4"), Config().with_overrides(sampler="sa", seed=3))
>>> r.valid, r.solved_by, r.num_reads  # its first call, of one read, found the grid
(True, 'sa (1 round)', 1)

Any other :class:`dimod.Sampler` plugs in the same way (here with a budget that decodes
all 32768 states the exact solver returns; a short one keeps those of lowest energy):

>>> import dimod
>>> r = solve(parse_puzzle("1..." "..2." "...." "...4"), Config().with_overrides(reads=5, seed=3),
...           sampler=dimod.ExactSolver(), budget=120)
>>> r.valid, r.solved_by
(True, 'ExactSolver (1 round)')
>>> for note in r.notes: print(note)
ExactSolver does not accept parameter(s) num_reads of the configured sampler aco; left out
sampler 'ExactSolver' takes no seed; seed 3 has no effect on it

A *fixed sample* (``run_plan(..., fixed_sample=True)``, what ``bench`` and ``sweep`` ask
for) is one round of exactly the configured ``num_reads`` (if not configured, the registered
one up to :data:`~qsudoku.solving.plan.FIXED_SAMPLE_READS`), every read counted: no time
parameter passed, ``stop_at_ground`` off, no decimation and no fallback, so that
``num_valid / num_reads`` is an unbiased estimate of the success probability per read.

>>> from qsudoku.solving.plan import make_plan
>>> plan = make_plan(Config().with_overrides(sampler="sa", reads=7, seed=1))
>>> r = run_plan(plan, parse_puzzle("1..." "..2." "...." "...4"), fixed_sample=True)
>>> r.rounds, r.num_reads, r.solved_by
(1, 7, 'sa (1 round)')
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from qsudoku.checks import MAX_SECONDS, need_real, need_type
from qsudoku.config import Config
from qsudoku.errors import BackendUnavailableError
from qsudoku.model.propagate import Candidates, propagate
from qsudoku.model.puzzle import UNIT_KINDS, Puzzle
from qsudoku.model.qubo import QuboModel, build_model
from qsudoku.model.result import Result
from qsudoku.solving.loop import PROBE_READS, SAMPLE_OVERHEAD, RoundLoop, rounds_text
from qsudoku.solving.budget import BASE_BUDGET, auto_budget, is_auto, set_budget
from qsudoku.solving.plan import Plan, make_plan, offline_plan
from qsudoku.solving.rounds import Tally

__all__ = ["solve", "run_plan", "build", "root_candidates", "rounds_text", "SAMPLE_OVERHEAD",
           "PROBE_READS"]


def root_candidates(puzzle: Puzzle, config: Config) -> Candidates:
    """Propagate with ``config.propagate.rules``; if cells stay open, try the
    ``finish_rules`` once and keep their result only if they solve the puzzle.

    Raises:
        ContradictionError: If propagation proves the puzzle has no solution.
    """
    rules, finish = config.propagate.rules, config.propagate.finish_rules
    root = propagate(puzzle, rules)
    if not root.solved and finish and set(finish) - set(rules):
        strong = propagate(puzzle, finish, start=root)
        if strong.solved:
            return strong
    return root


def build(puzzle: Puzzle, config: Config = Config()) -> tuple[Candidates, QuboModel | None, dict]:
    """Propagate and build the model :func:`solve` samples: ``(candidates, model or None
    if propagation solved the puzzle, timings)``."""
    need_type("puzzle", puzzle, Puzzle)
    need_type("config", config, Config)
    t = time.perf_counter()
    cands = root_candidates(puzzle, config)
    timings = {"propagate": time.perf_counter() - t}
    if cands.solved:
        return cands, None, timings
    t = time.perf_counter()
    model = build_model(cands, config.qubo.weights, encoding=config.qubo.encoding)
    timings["build"] = time.perf_counter() - t
    return cands, model, timings


def solve(puzzle: Puzzle, config: Config = Config(), *, sampler=None,
          budget: float | None = None) -> Result:
    """Solve one puzzle through every stage and validate the answer.

    Args:
        puzzle: The puzzle.
        config: Rules, weights, sampler and round policy (defaults: ``qsudoku/defaults.toml``).
        sampler: A sampler object to use (optional): any :class:`dimod.Sampler`; see
            :func:`~qsudoku.solving.plan.make_plan` for the parameters it gets.
        budget: Seconds of sampling rounds (default ``route.time_budget``).

    Raises:
        TypeError, ValueError: A wrong argument (the message names it).
        ContradictionError: If propagation (or an exact sampler) proves the puzzle has no
            solution.
        ConfigError: Bad sampler name or parameters.
        BackendUnavailableError: The sampler cannot run here.
    """
    t0 = time.perf_counter()
    need_type("puzzle", puzzle, Puzzle)
    need_type("config", config, Config)
    need_real("budget", budget, low=0, high=MAX_SECONDS, allow_none=True)
    plan = make_plan(config, sampler)
    setup = time.perf_counter() - t0  # building the sampler (imports): not sampling time
    result = run_plan(plan, puzzle, budget=budget)
    if setup > 1e-3:
        result.timings["compile"] = result.timings.get("compile", 0.0) + setup
    result.timings["total"] += setup
    return result


def run_plan(plan: Plan, puzzle: Puzzle, *, budget: float | None = None,
             clock_start: float | None = None, fixed_sample: bool = False) -> Result:
    """:func:`solve` with a plan made beforehand (reuse one plan across puzzles).

    Args:
        plan: From :func:`~qsudoku.solving.plan.make_plan`.
        puzzle: The puzzle.
        budget: Seconds of sampling rounds (default ``route.time_budget``).
        clock_start: ``time.perf_counter()`` value the budget and ``timings["total"]``
            count from (default: now).
        fixed_sample: One round of the configured ``num_reads``, all of them run and
            counted, without time limit, decimation or fallback (see the module doc).
    """
    t0 = time.perf_counter() if clock_start is None else clock_start
    cfg, rc = plan.config, plan.config.route
    plan = plan.seeded()  # the seed that runs is known and reported, drawn if none was given
    auto = budget is None and is_auto(rc.time_budget)
    time_budget = BASE_BUDGET if auto else float(rc.time_budget if budget is None else budget)
    timings = {"propagate": 0.0, "build": 0.0, "sample": 0.0, "decode": 0.0, "fallback": 0.0}
    t = time.perf_counter()
    root = root_candidates(puzzle, cfg)
    timings["propagate"] += time.perf_counter() - t
    result = Result(puzzle=puzzle, grid=list(root.grid), valid=False, solved_by="none",
                    encoding=cfg.qubo.encoding,
                    energy=None, fired=dict(root.fired), timings=timings, notes=list(plan.notes),
                    sampler={"name": plan.label, "seed": plan.seed,
                             "seed_drawn": plan.seed is not None and plan.seed_drawn,
                             "params": plan.round_params(plan.seed, time_budget,
                                                         fixed_sample=fixed_sample),
                             "route": {"time_budget": time_budget,
                                       "budget": "default" if auto else "set",
                                       "one_round": not rc.enabled or fixed_sample,
                                       "fixed_sample": fixed_sample,
                                       "exact_fallback": "" if fixed_sample else
                                       rc.exact_fallback,
                                       "fallback_time_limit": rc.fallback_time_limit}})
    if root.solved:
        result.valid, result.solved_by, result.energy = puzzle.is_solution(root.grid), \
            "propagation", 0.0
        return _finish(result, timings, t0)
    if _is_exact(plan.sampler):  # it reads the candidates: no QUBO to build
        from qsudoku.solving import fallback  # the exact layer, only when needed

        if auto:  # the time limit of an exact solve, the fallback's (budget.py)
            time_budget = set_budget(result, plan, root.num_variables, 0.0, t0,
                                     time.perf_counter(), exact=True)
        fallback.run_exact_sampler(plan, root, result, t0 + time_budget)
        return _finish(result, result.timings, t0)
    compile_time = plan.warm_up(root.num_variables)  # the kernels of this model's size
    if compile_time:  # a JIT compile (first call in a process) is not sampling time
        timings["compile"] = compile_time
    try:
        loop = RoundLoop(plan, puzzle, root, result, t0 + time_budget + compile_time,
                         time_budget, fixed_sample)
        if auto and not fixed_sample:
            auto_budget(loop, plan, root, result, t0, compile_time)
            time_budget = loop.budget
        tally = loop.run()
    except BackendUnavailableError as e:  # an online sampler that could not connect
        return run_plan(offline_plan(plan, e), puzzle, budget=budget, clock_start=t0,
                        fixed_sample=fixed_sample)
    _add_tally(result, tally)
    if not result.valid and tally.rounds and fixed_sample:
        result.notes.append(f"no read of the fixed sample of {tally.num_reads} was valid")
    elif not result.valid and tally.rounds:
        result.notes.append(f"the sampling rounds found no valid grid in the {time_budget:g} s "
                            f"budget ({rounds_text(tally.rounds)})"
                            + ("" if rc.fallback_names else "; the exact fallback is off"))
    return _fall_back(plan, root, result, t0, fixed_sample)


def _is_exact(sampler) -> bool:
    """Whether ``sampler`` is one of qsudoku's exact backends (read off its properties,
    so that the default route does not import the exact layer)."""
    props = getattr(sampler, "properties", None)
    if not (isinstance(props, Mapping) and props.get("exact")):
        return False
    from qsudoku.solving.fallback import exact_backend

    return exact_backend(sampler) is not None


def _fall_back(plan: Plan, root: Candidates, result: Result, t0: float,
               fixed_sample: bool = False) -> Result:
    """Run the exact fallback (not the sampler that has just run) if ``result`` is not
    valid and it is not a fixed sample; then finish the result."""
    rc, timings = plan.config.route, result.timings
    if not result.valid and rc.fallback_names and not fixed_sample:
        from qsudoku.solving.fallback import run_fallback

        t = time.perf_counter()
        grid, name = run_fallback(rc.fallback_names, root, rc.fallback_time_limit or None,
                                  result.notes, plan.config.qubo.weights, skip=plan.label)
        timings["fallback"] = time.perf_counter() - t
        if grid is not None and result.puzzle.is_solution(grid):
            result.grid, result.valid, result.broken = list(grid), True, []
            result.solved_by = (f"{name} fallback after {plan.label} "
                                f"({rounds_text(result.rounds)})")
            result.notes.append(f"the exact fallback {name!r} finished the puzzle")
    return _finish(result, timings, t0)


def _add_tally(result: Result, tally: Tally) -> None:
    """The statistics of every round; an unsolved result keeps the best read of any round."""
    result.rounds = tally.rounds
    result.num_reads, result.num_valid = tally.num_reads, tally.num_valid
    result.success_rate = tally.success_rate
    result.mean_energy = tally.mean_energy
    result.chain_break_fraction = tally.chain_break_fraction
    best_info = dict(tally.best_round.sampleset.info) if tally.rounds else {}
    result.info = {**best_info, **tally.info, "rounds": tally.rounds}
    if "num_reads" in result.info:  # a sampler's count of one round: say what ran
        result.info["num_reads"] = tally.num_reads
    if tally.rounds:
        result.broken_per_read = tally.broken_per_read(("cell",) + UNIT_KINDS)
        result.energy = 0.0 if result.valid else tally.best.energy
    if not result.valid and tally.best is not None:
        result.grid, result.broken = list(tally.best.grid), tally.best_round.broken_names()


def _finish(result: Result, timings: dict, t0: float) -> Result:
    result.timings = {k: v for k, v in timings.items() if v or k == "propagate"}
    result.timings["total"] = time.perf_counter() - t0
    return result
