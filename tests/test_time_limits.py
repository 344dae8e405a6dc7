"""Time limits hold on big grids: every stage of the route and of the exact fallback counts.

No assertion on seconds: the limits here are far below what the work needs, so a stage
that ignored its limit would report an answer (or a loaded formulation) it cannot have
reached in time.
"""

from __future__ import annotations

import pytest

from qsudoku.exact.problem import Problem
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle
from _shared import route as anneal_route
from qsudoku.config import DEFAULTS
from _backend_cases import HARD, qsudoku
ROUTE_RULES = tuple(DEFAULTS["propagate"]["rules"])

pysat = pytest.importorskip("pysat")


def blank(n: int) -> Puzzle:
    return Puzzle.standard([0] * (n * n))


def test_sat_counts_loading_its_clauses_against_the_time_limit():
    from qsudoku.exact.cnf import solve_sat

    problem = Problem.from_candidates(propagate(blank(25), ()))  # ~750,000 clauses
    out = solve_sat(problem, solver="glucose4", time_limit=0.01)
    assert out.status == "time_limit" and out.chosen is None
    assert out.info["num_clauses"] is None  # stopped while loading, not after


@pytest.mark.slow
def test_cadical_with_a_time_limit_goes_on_in_a_child_that_is_stopped_at_the_limit(monkeypatch):
    from qsudoku.exact import cnf
    from qsudoku.exact.cnf import DEFAULT_SOLVER, FIRST_CONFLICTS, solve_sat
    from qsudoku.io import load_puzzles

    from _shared import DATA

    assert DEFAULT_SOLVER == "cadical195"  # it answers no interrupt
    puzzle = blank(16)  # decided within the first conflicts: no child
    out = solve_sat(Problem.from_candidates(propagate(puzzle, ())), time_limit=60)
    assert out.status == "solved" and "isolated" not in out.info
    hard = load_puzzles(str(DATA / "sudoku25/gecode.txt"))  # 2,800-32,000 conflicts
    problem = Problem.from_candidates(propagate(hard[1]))
    out = solve_sat(problem, time_limit=60)
    assert out.status == "solved" and out.info["isolated"]
    assert out.info["stats"]["conflicts"] > FIRST_CONFLICTS  # the child's count
    assert out.info["solver"] == "sat:cadical195" and "num_clauses" in out.info
    assert hard[1].is_solution(problem.grid(out.chosen))
    # straight to the child, so that a busy host cannot spend the 0.3 s before it starts
    monkeypatch.setattr(cnf, "BIG_FROM_PAIRS", 0)
    out = solve_sat(Problem.from_candidates(propagate(hard[0])), time_limit=0.3)
    assert out.status == "time_limit" and out.chosen is None and out.info["isolated"]


@pytest.mark.slow
def test_cadical_starts_in_the_child_when_the_clauses_are_many(monkeypatch):
    from qsudoku.exact import cnf

    problem = Problem.from_candidates(propagate(blank(16), ()))
    pairs = cnf.num_pairs(problem)
    assert pairs == 4 * 256 * 120  # 4 kinds of 256 groups (16 cells x 16 digits), C(16, 2)
    monkeypatch.setattr(cnf, "BIG_FROM_PAIRS", pairs)
    out = cnf.solve_sat(problem, time_limit=60)
    assert out.status == "solved" and out.info["isolated"]
    assert out.info["stats"]["conflicts"] <= cnf.FIRST_CONFLICTS  # (decided here otherwise)
    assert blank(16).is_solution(problem.grid(out.chosen))
    monkeypatch.setattr(cnf, "BIG_FROM_PAIRS", pairs + 1)
    assert "isolated" not in cnf.solve_sat(problem, time_limit=60).info


def test_sat_count_stops_while_loading_too():
    from qsudoku.exact.cnf import count_sat

    problem = Problem.from_candidates(propagate(blank(25), ()))
    res = count_sat(problem, limit=2, time_limit=0.01)
    assert res.status == "time_limit" and not res.solutions


@pytest.mark.slow
def test_a_blank_25x25_on_tiny_limits_says_not_decided():
    r = anneal_route(blank(25), time_budget=0.05, fallback=("sat", "csp"),
                     fallback_time_limit=0.05, seed=1)
    assert not r.valid and r.solved_by == "none"
    assert any("stopped at its 0.05 s time limit" in n for n in r.notes), r.notes


@pytest.mark.slow
def test_the_fallback_still_solves_when_its_limit_allows():
    r = anneal_route(blank(16), time_budget=0.01, max_rounds=0, fallback=("sat", "csp"),
                     fallback_time_limit=60, seed=1)
    assert r.valid and r.solved_by.startswith("sat fallback")
    assert r.puzzle.is_solution(r.grid)


@pytest.mark.slow
def test_the_route_skips_a_round_it_cannot_pay_for():
    # The budget ends long before the 25x25 model is even built: no sampler call.
    r = anneal_route(blank(25), time_budget=1e-4, seed=1)
    assert r.rounds == 0 and not r.valid and r.timings.get("sample", 0.0) == 0.0


@pytest.mark.slow  # a kernel the default solve does not compile (conftest.py)
def test_one_round_builds_within_the_budget_too():
    # --no-route (one round) keeps the budget for building the model as the rounds do.
    r = anneal_route(blank(25), time_budget=1e-4, max_rounds=1, seed=1)
    assert r.rounds == 0 and not r.valid
    assert any("building the QUBO stopped" in n for n in r.notes), r.notes


def test_a_fixed_sample_builds_and_runs_every_read_past_its_budget():
    # bench's and sweep's sampler rows: exactly num_reads reads, whatever the budget. The
    # build once stopped at the budget (0.8 s by default, counted from the row's start),
    # so a slow first plan left a row of 0 reads and 0 interactions under load.
    import time

    from qsudoku.config import Config
    from qsudoku.solving import make_plan, run_plan

    plan = make_plan(Config().with_overrides(rules=[], sampler="sa", reads=3, seed=1))
    past = time.perf_counter() - 10  # the budget ended before the model was built
    for budget in (None, 0.01):
        r = run_plan(plan, blank(4), budget=budget, clock_start=past, fixed_sample=True)
        assert r.model is not None and r.num_interactions > 0, r.notes
        assert r.rounds == 1 and r.num_reads == 3
        assert not any("building the QUBO stopped" in n for n in r.notes), r.notes


def test_the_route_rules_leave_a_blank_grid_open():  # (what the tests above rely on)
    assert not propagate(blank(16), ROUTE_RULES).solved


def test_a_build_stops_at_its_deadline_and_says_so():
    import time

    from qsudoku.errors import TimeLimitError, exit_code_for
    from qsudoku.model.qubo import build_model

    cands = propagate(blank(25), ())  # 750,000 couplers: far more than 1 ms of work
    with pytest.raises(TimeLimitError, match="deadline") as e:
        build_model(cands, deadline=time.perf_counter() + 1e-3)
    assert exit_code_for(e.value) == 1  # not decided, like an unsolved puzzle
    with pytest.raises(ValueError, match="deadline"):
        build_model(propagate(blank(4), ()), deadline=float("nan"))


@pytest.mark.slow  # a 16x16: aco compiles its refuting ants (conftest.py)
def test_the_route_stops_a_build_at_its_budget_and_says_not_decided(monkeypatch):
    import time

    import qsudoku.solving.loop as route

    real = route.build_model  # the budget ends while building, whatever the machine's speed
    monkeypatch.setattr(route, "build_model", lambda c, w, deadline, **kw: real(
        c, w, deadline=min(deadline, time.perf_counter() - 1), **kw))
    r = anneal_route(blank(16), time_budget=30, seed=1)
    assert r.rounds == 0 and not r.valid and r.solved_by == "none"
    assert r.model is None and r.timings["build"] > 0
    assert any("building the QUBO stopped" in n for n in r.notes), r.notes
    # the report still says how big the model was, and that it was not built
    assert r.num_variables == 16 ** 3 and r.num_interactions == 0
    from qsudoku.commands.solve import render

    assert "4096 variables, the QUBO not built within the time budget" in render(r)


def test_the_route_skips_a_round_whose_overhead_exceeds_what_is_left(monkeypatch):
    import qsudoku.solving.loop as route

    monkeypatch.setattr(route, "SAMPLE_OVERHEAD", 1e12)  # any build is then too slow
    r = anneal_route(blank(9), time_budget=30, seed=1)
    assert r.rounds == 0 and not r.valid and r.model is not None
    assert any(n.startswith("no sampling round") for n in r.notes), r.notes


@pytest.mark.slow  # a 25x25: aco compiles its refuting ants (conftest.py)
def test_a_qubo_sampler_fallback_counts_its_build_against_its_limit():
    r = anneal_route(blank(25), rules=(), time_budget=1e-4, fallback="sa",
                     fallback_time_limit=1e-3, seed=1)
    assert not r.valid and r.solved_by == "none"
    assert any("'sa' stopped at its 0.001 s time limit" in n for n in r.notes), r.notes


def test_tabu_timeout_is_capped_by_the_time_left():
    from qsudoku import Config
    from qsudoku.solving.plan import make_plan

    plan = make_plan(Config().with_overrides(sampler="tabu", params={"timeout": 20000}))
    assert plan.round_params(1, 2.0)["timeout"] == 200  # 2 s over its 10 reads
    assert plan.round_params(1, 2.0, num_reads=1)["timeout"] == 2000
    assert plan.round_params(1, 100.0)["timeout"] == 10000  # what fits, at most the asked
    assert plan.round_params(1, None)["timeout"] == 20000  # no budget: as asked
    assert plan.round_params(1, 2.0, fixed_sample=True)["timeout"] == 20000


@pytest.mark.parametrize("sampler, param", [("tabu", "timeout=20000"),
                                            ("rotor", "num_sweeps=2000000"),
                                            ("pt", "num_sweeps=200000"),
                                            ("pt", "max_iter=100000")])
@pytest.mark.slow
def test_the_time_budget_bounds_work_per_read_the_user_set(sampler, param):
    """Each used to run past 130 s; now the rounds end near the 1 s budget (the guard is
    far above it: the first read at the registered work, on a busy host, is the rest)."""
    import json

    code, out, err = qsudoku("solve", HARD, "--sampler", sampler, "--param", param, "--seed", "1",
                             "--time-budget", "1", "--no-fallback", "--json")
    assert code in (0, 1) and "error" not in err
    result = json.loads(out)
    assert result["timings"]["sample"] < 30
    if sampler != "tabu" and not result["valid"]:
        assert any("per read cannot fit the 1 s budget" in n for n in result["notes"])
