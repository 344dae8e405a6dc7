"""The annealing route: rounds of the aco / swap-tabu / swap samplers interleaved with
propagation, and its fallback."""

import pytest

from qsudoku.errors import ContradictionError
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.result import Result
from _shared import route as anneal_route
from qsudoku.samplers import names
from qsudoku.samplers.kernels import HAVE_NUMBA

from _shared import DATA, needs_data
from _puzzles import FOUR_GIVENS4, HARD9, HARD9_SOLUTION

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed (kernels run as Python)")

# krazydad insane #1: needs sampling after singles, but anneals in milliseconds.
INSANE = "..3.6..24.5.8..........75...2.7..6.1..1.2.9..7.5..1.4...69..........3.9.58..7.1.."


def test_propagation_alone_needs_no_round():
    r = anneal_route(parse_puzzle(FOUR_GIVENS4))
    assert isinstance(r, Result)
    assert (r.valid, r.solved_by, r.rounds) == (True, "propagation", 0)


@needs_numba
def test_anneal_solves_a_9x9_and_counts_rounds_and_reads():
    p = parse_puzzle(INSANE)
    r = anneal_route(p, seed=1, time_budget=20.0)
    assert r.valid and p.is_solution(r.grid)
    assert r.solved_by == f"aco ({r.rounds} round{'s' * (r.rounds != 1)})" and r.rounds >= 1
    assert r.num_reads >= 1 and 0 < r.success_rate <= 1 and r.num_variables > 0
    assert r.timings["sample"] > 0 and r.timings["total"] >= r.timings["sample"]


@needs_numba
@pytest.mark.parametrize("name", ["swap-tabu", "swap"])
def test_either_route_sampler_solves_a_hardest_9x9(name):
    p = parse_puzzle(HARD9)
    r = anneal_route(p, seed=7, time_budget=30.0, sampler=name)
    assert r.valid and "".join(map(str, r.grid)) == HARD9_SOLUTION
    assert r.solved_by == f"{name} ({r.rounds} round{'s' * (r.rounds != 1)})"
    assert r.sampleset.info["feasible"] and r.num_reads >= 1


def test_out_of_budget_without_fallback_is_unsolved_and_says_none():
    tiny = {"num_reads": 1, "max_iters": 1}
    r = anneal_route(parse_puzzle(HARD9), seed=3, max_rounds=1, sample_params=tiny)
    assert (r.valid, r.solved_by, r.rounds) == (False, "none", 1)
    assert r.energy > 0


def test_fallback_finishes_and_the_result_says_so():
    tiny = {"num_reads": 1, "max_iters": 1}
    r = anneal_route(parse_puzzle(HARD9), seed=3, max_rounds=1, sample_params=tiny, fallback="csp")
    assert r.valid and "".join(map(str, r.grid)) == HARD9_SOLUTION
    assert r.solved_by == "csp fallback after aco (1 round)"
    assert any("fallback" in n for n in r.notes)


def test_registry_fallback_is_used_and_a_missing_one_is_skipped_and_noted():
    tiny = {"num_reads": 1, "max_iters": 1}
    r = anneal_route(parse_puzzle(HARD9), seed=3, max_rounds=1, sample_params=tiny, fallback="csp")
    assert r.valid and r.solved_by == "csp fallback after aco (1 round)"
    assert "".join(map(str, r.grid)) == HARD9_SOLUTION
    from qsudoku.errors import ConfigError
    from qsudoku.solving.fallback import run_fallback
    from qsudoku.model.propagate import propagate

    r = anneal_route(parse_puzzle(HARD9), seed=3, max_rounds=1, sample_params=tiny,
                     fallback=("csp",))
    assert r.valid and r.solved_by == "csp fallback after aco (1 round)"
    with pytest.raises(ConfigError, match="no-such-solver"):  # the config names only real ones
        anneal_route(parse_puzzle(HARD9), fallback=("no-such-solver", "csp"))
    notes = []
    grid, name = run_fallback(("no-such-solver", "csp"), propagate(parse_puzzle(HARD9)), None, notes)
    assert name == "csp" and "".join(map(str, grid)) == HARD9_SOLUTION
    assert any("'no-such-solver' unavailable" in n for n in notes)
    assert run_fallback(("no-such-solver",), propagate(parse_puzzle(HARD9)), None, []) == \
        (None, "no-such-solver")


@pytest.mark.slow
@needs_data
def test_fallback_time_limit_stops_a_hopeless_exact_search():
    """qsudoku's own search cannot finish this 25x25 in a second; the route must not hang."""
    p = load_puzzles(str(DATA / "sudoku25" / "gecode.txt"))[0]
    r = anneal_route(p, seed=3, max_rounds=1, sample_params={"num_reads": 1, "max_iters": 1},
                     fallback="csp", fallback_time_limit=0.5)
    assert not r.valid and r.solved_by == "none"
    assert 0.5 <= r.timings["fallback"] < 10
    assert any("stopped at its 0.5 s time limit" in n for n in r.notes)


@pytest.mark.slow
@needs_data
@pytest.mark.skipif("sat" not in names(), reason="python-sat not installed")
def test_default_solve_finishes_a_25x25_with_the_sat_fallback():
    from qsudoku.config import Config
    from qsudoku.solving import solve

    p = load_puzzles(str(DATA / "sudoku25" / "gecode.txt"))[2]
    solution = (DATA / "sudoku25" / "gecode.solutions.txt").read_text().split()[2]
    # seeded, and one greedy ant per colony, so that sampling reliably stops short (the
    # default colonies sometimes finish this puzzle within the budget)
    cfg = Config().with_overrides(seed=1, params={"max_iters": 1, "num_ants": 1},
                                  route={"time_budget": 0.5})
    r = solve(p, cfg)
    assert r.valid and r.solved_by.startswith("sat fallback after aco")
    assert p.format(r.grid) == solution


@needs_numba
def test_jigsaw_and_sudoku_x_take_the_route_too():
    from qsudoku.model.puzzle import diagonal_units

    jig = Puzzle.jigsaw([4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0,
                         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
                        ["abcdef".index(c) for c in "aaabbbaabbbcadddccddcccedfffeefffeee"])
    r = anneal_route(jig, seed=4, time_budget=20.0)
    assert r.valid and jig.is_solution(r.grid) and r.rounds >= 1
    x = Puzzle.standard([0] * 81, extra=diagonal_units(9))
    r = anneal_route(x, seed=5, time_budget=20.0)
    assert r.valid and x.is_solution(r.grid)


def test_contradiction_is_raised():
    with pytest.raises(ContradictionError):
        anneal_route(parse_puzzle("11.." "...." "...." "...."))
