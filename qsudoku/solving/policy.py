"""The one solve path: propagate once, build once, sample in rounds, fall back, report.

:func:`solve` runs every sampler, registered or passed in, under one round policy
(``[route]`` in the configuration):

1. propagate with the configured ``rules`` (and ``finish_rules`` once, only to finish the
   puzzle outright); a puzzle they solve is never sampled;
2. an exact sampler solves the candidates directly (:mod:`.fallback`); any other has the
   reduced QUBO built once (:func:`~.loop.build_root`);
3. plan the budget (:mod:`.budget`): the one set, or the default derived from the build;
4. sample in rounds (:mod:`.loop`) until a read is a valid grid or the budget is spent.
   Each round gets its own seed, drawn from the configured one; a sampler with a time
   parameter gets the time left; one without takes batches of its ``num_reads`` that fit
   the time left, the first measured on :data:`~.loop.PROBE_READS` read.  One round for a
   sampler that takes no seed, and with ``route.enabled = false`` (``--no-route``);
5. if no round found a valid grid, run the exact fallback (:mod:`.fallback`);
6. make the result from the stages' values (:mod:`.report`).

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
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.qubo import QuboModel, build_model
from qsudoku.model.result import Result
from qsudoku.solving import report
from qsudoku.solving.budget import MAX_BUILD, derive_budget, first_budget, long_build
from qsudoku.solving.loop import (PROBE_READS, SAMPLE_OVERHEAD, Sampling,
                                  build_root, rounds_text, sample_rounds)
from qsudoku.solving.plan import Plan, make_plan, offline_plan
from qsudoku.solving.report import Rescue, Run, Times
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
    t1 = time.perf_counter()
    return _run(plan.seeded(), puzzle, budget, t1, False, setup)


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
    return _run(plan.seeded(), puzzle, budget, t0, fixed_sample)  # the seed that runs is known


def _run(plan: Plan, puzzle: Puzzle, given: float | None, t0: float, fixed: bool,
         setup: float = 0.0) -> Result:
    """The stages: propagate, then an exact sampler's answer or build, budget, rounds and
    the fallback; the result made from their values (:mod:`.report`)."""
    first = first_budget(plan.config.route.time_budget, given)
    t = time.perf_counter()
    root = root_candidates(puzzle, plan.config)
    times = Times(propagate=time.perf_counter() - t)
    run = Run(plan, puzzle, root, first, first, fixed, t0, setup)
    if root.solved:
        return report.propagated(run, times)
    if _is_exact(plan.sampler):  # it reads the candidates: no QUBO to build
        from qsudoku.solving.fallback import run_exact_sampler  # the exact layer, if needed

        if first.auto:  # the time limit of an exact solve, the fallback's (budget.py)
            run = run._replace(budget=derive_budget(plan, root.num_variables, 0.0,
                                                    time.perf_counter() - t0, exact=True))
        return report.exact(run, times, run_exact_sampler(plan, root, t0 + run.budget.seconds))
    compile_time = plan.warm_up(root.num_variables)  # the kernels of this model's size
    times = times._replace(compile=compile_time)  # a JIT compile is not sampling time
    auto = first.auto and not fixed
    deadline = t0 + first.seconds + compile_time
    if auto and long_build(plan.label, root.num_variables):
        deadline = max(deadline, time.perf_counter() + MAX_BUILD)
    cfg = plan.config
    built = build_root(root, cfg.qubo.weights, cfg.qubo.encoding, None if fixed else deadline)
    times = times._replace(build=built.seconds)
    sampling = Sampling(Tally(), None, None, [])
    if built.model is not None:
        if auto:
            elapsed = time.perf_counter() - compile_time - t0
            run = run._replace(budget=derive_budget(plan, built.num_variables, built.seconds,
                                                    elapsed))
        try:
            sampling = sample_rounds(plan, built, t0 + run.budget.seconds + compile_time,
                                     run.budget.seconds, fixed)
        except BackendUnavailableError as e:  # an online sampler that could not connect
            return _run(offline_plan(plan, e).seeded(), puzzle, given, t0, fixed, setup)
    times = times._replace(sample=sampling.tally.t_sample, decode=sampling.tally.t_decode)
    rescue = None
    if sampling.grid is None and cfg.route.fallback_names and not fixed:
        rescue = _rescue(plan, root)
    return report.sampled(run, times, built, sampling, rescue)


def _rescue(plan: Plan, root: Candidates) -> Rescue:
    """The exact fallback (not the sampler that has just run) on the root candidates."""
    from qsudoku.solving.fallback import run_fallback

    rc, t = plan.config.route, time.perf_counter()
    notes: list[str] = []
    grid, name = run_fallback(rc.fallback_names, root, rc.fallback_time_limit or None,
                              notes, plan.config.qubo.weights, skip=plan.label)
    return Rescue(None if grid is None else list(grid), name, notes, time.perf_counter() - t)


def _is_exact(sampler) -> bool:
    """Whether ``sampler`` is one of qsudoku's exact backends (read off its properties,
    so that the default route does not import the exact layer)."""
    props = getattr(sampler, "properties", None)
    if not (isinstance(props, Mapping) and props.get("exact")):
        return False
    from qsudoku.solving.fallback import exact_backend

    return exact_backend(sampler) is not None
