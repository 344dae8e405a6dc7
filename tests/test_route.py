"""The annealing route: rounds of the swap sampler interleaved with propagation, and its fallback."""

import pytest

from qsudoku.errors import ContradictionError
from qsudoku.io import parse_puzzle
from qsudoku.puzzle import Puzzle
from qsudoku.route import RouteResult, anneal_route
from qsudoku.samplers import names
from qsudoku.samplers._swap_kernel import HAVE_NUMBA

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed (kernels run as Python)")

# forum_hardest_1106 #1 (not solved by any propagation rule) and its solution.
HARD = "........2..8.1.9..5....3.4....1.93...6..3..8...37......4......53.1.7.8..2........"
HARD_SOL = "639847512478512963512693748724189356965234187183765294847921635351476829296358471"
# krazydad insane #1: needs sampling after singles, but anneals in milliseconds.
INSANE = "..3.6..24.5.8..........75...2.7..6.1..1.2.9..7.5..1.4...69..........3.9.58..7.1.."


def test_propagation_alone_needs_no_round():
    r = anneal_route(parse_puzzle("1..." "..2." ".3.." "...4"))
    assert isinstance(r, RouteResult)
    assert (r.valid, r.solved_by, r.rounds) == (True, "propagation", 0)


@needs_numba
def test_anneal_solves_a_9x9_and_counts_rounds_and_reads():
    p = parse_puzzle(INSANE)
    r = anneal_route(p, seed=1, time_budget=20.0)
    assert r.valid and p.is_solution(r.grid)
    assert r.solved_by == f"anneal ({r.rounds} rounds)" and r.rounds >= 1
    assert r.reads >= 1 and 0 < r.success_rate <= 1 and r.num_variables > 0
    assert r.timings["sample"] > 0 and r.timings["total"] >= r.timings["sample"]


@needs_numba
def test_decimation_rounds_interleave_propagation():
    p = parse_puzzle(INSANE)
    r = anneal_route(p, seed=2, time_budget=20.0, max_depth=3, round_time=0.02,
                     sample_params={"num_reads": 4, "num_sweeps": 50, "num_replicas": 4,
                                    "beta_range": (0.5, 4.0)})
    assert r.valid and p.is_solution(r.grid) and r.rounds >= 1


def test_out_of_budget_without_fallback_is_unsolved_and_says_none():
    tiny = {"num_reads": 1, "num_sweeps": 1}
    r = anneal_route(parse_puzzle(HARD), seed=3, max_rounds=1, sample_params=tiny)
    assert (r.valid, r.solved_by, r.rounds) == (False, "none", 1)
    assert r.energy > 0


def test_fallback_finishes_and_the_result_says_so():
    tiny = {"num_reads": 1, "num_sweeps": 1}
    calls = []

    def exact(puzzle, candidates):
        calls.append(candidates.num_variables)
        return [int(c) for c in HARD_SOL]

    r = anneal_route(parse_puzzle(HARD), seed=3, max_rounds=2, sample_params=tiny, fallback=exact)
    assert r.valid and calls and calls[0] > 0
    assert r.solved_by == "exact fallback after anneal (2 rounds)"
    assert any("fallback" in n for n in r.notes)


def test_registry_fallback_is_used_when_present_and_reported_when_missing():
    tiny = {"num_reads": 1, "num_sweeps": 1}
    r = anneal_route(parse_puzzle(HARD), seed=3, max_rounds=1, sample_params=tiny, fallback="csp")
    if "csp" in names():
        assert r.valid and r.solved_by == "csp fallback after anneal (1 rounds)"
    else:
        assert not r.valid and any("csp" in n and "unavailable" in n for n in r.notes)


@needs_numba
def test_jigsaw_and_sudoku_x_take_the_route_too():
    from qsudoku.puzzle import diagonal_units

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
