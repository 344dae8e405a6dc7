"""The exact-cover structure and qsudoku's own search (the ``csp`` route)."""

import itertools
import random

import pytest

from qsudoku.errors import ConfigError
from qsudoku.exact.alldiff import prune_alldiff, strong_components, unit_graph
from qsudoku.exact.problem import Problem
from qsudoku.exact.search import solve_cover
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, diagonal_units
from qsudoku.model.qubo import build_model

from _shared import DATA, EVERY_KIND, SEEDS, needs_data
from _puzzles import IMPOSSIBLE9, SEED004

#: A few puzzles of every kind and size up to 16x16 (the search needs minutes on 25x25).
SAMPLE = [(rel, 3 if rel.startswith(("sudoku9/", "jigsaw9/", "jigsawx6/")) else 2)
          for rel in EVERY_KIND]


def sample_puzzles():
    out = []
    for rel, k in SAMPLE:
        ps = load_puzzles(str(DATA / rel))
        out += random.Random(rel).sample(ps, min(k, len(ps)))
    return out + load_puzzles(str(SEEDS))


@pytest.mark.slow
@needs_data
def test_groups_match_the_qubo_model_exactly():
    for p in sample_puzzles()[::4]:
        for rules in ((), ("naked_single",)):
            c = propagate(p, rules)
            ours = Problem.from_candidates(c)
            theirs = build_model(c).groups()
            assert [(g.kind, [ours.labels[v] for v in g.members]) for g in ours.groups] == theirs


@pytest.mark.slow
@needs_data
@pytest.mark.parametrize("hall", [False, True])
def test_search_finds_the_listed_solution_of_every_kind(hall):
    for p in sample_puzzles():
        problem = Problem.from_candidates(propagate(p, rules=()))
        res = solve_cover(problem, hall=hall)
        assert res.status == "limit" and len(res.solutions) == 1, p.name
        assert problem.check(res.solutions[0])
        assert problem.grid(res.solutions[0]) == list(p.solution), p.name


@pytest.mark.slow
@needs_data
def test_search_from_sampler_groups_recovers_units_and_solves():
    """The csp route sees only (kind, labels) groups; units come back as shared-cell components."""
    for p in sample_puzzles()[::3]:
        c = propagate(p, rules=())
        m = build_model(c)
        problem = Problem.from_groups(m.groups(), labels=list(m.bqm.variables))
        grid = list(c.grid)
        for v in solve_cover(problem, hall=True).solutions[0]:
            r, col, d = problem.labels[v]
            grid[r * p.size + col] = d
        assert grid == list(p.solution), p.name


def test_crossing_diagonals_are_not_merged_into_one_alldifferent():
    """Main and anti-diagonal share the open centre: their groups must not become one unit."""
    p = Puzzle.standard([0] * 81, extra=diagonal_units(9))
    m = build_model(propagate(p, rules=()))
    problem = Problem.from_groups(m.groups())
    kinds = [{problem.groups[g].kind for g in u} for u in problem.units]
    assert all(len(k) == 1 for k in kinds)
    assert not any("extra" in k for k in kinds)  # the merged diagonals repeat digits: dropped
    assert sum(1 for k in kinds if k == {"row"}) == 9
    sol = solve_cover(problem).solutions[0]
    grid = [0] * 81
    for v in sol:
        r, c, d = problem.labels[v]
        grid[r * 9 + c] = d
    assert p.is_solution(grid)


def test_counts_every_solution_of_the_empty_4x4():
    problem = Problem.from_candidates(propagate(Puzzle.standard([0] * 16), rules=()))
    res = solve_cover(problem, limit=1000)
    assert res.status == "solved" and res.complete
    assert len(res.solutions) == 288  # the number of 4x4 Sudoku grids
    assert len(set(res.solutions)) == 288
    assert all(problem.check(s) for s in res.solutions[:: 17])


@pytest.mark.parametrize("hall", [False, True])
def test_infeasible_puzzle_is_proved_infeasible(hall):
    problem = Problem.from_candidates(propagate(parse_puzzle(IMPOSSIBLE9)))
    assert problem.num_variables == 356
    res = solve_cover(problem, hall=hall)
    assert res.status == "infeasible" and res.solutions == [] and res.complete


def test_complete_grid_is_the_fallback_api():
    from qsudoku.errors import ContradictionError
    from qsudoku.exact.search import complete_grid

    p = parse_puzzle(SEED004)
    assert p.is_solution(complete_grid(propagate(p)))
    with pytest.raises(ContradictionError, match="no solution: csp"):
        complete_grid(propagate(parse_puzzle(IMPOSSIBLE9)))
    if DATA.is_dir():  # a hard 25x25: not solved in 0.2 s, so None (not an error)
        hard = load_puzzles(str(DATA / "sudoku25/gecode.txt"))[0]
        assert complete_grid(propagate(hard), time_limit=0.2) is None


def test_time_limit_stops_the_search():
    p = load_puzzles(str(DATA / "sudoku25/gecode.txt"))[0] if DATA.is_dir() else \
        Puzzle.standard([0] * 625)
    problem = Problem.from_candidates(propagate(p, rules=()))
    res = solve_cover(problem, time_limit=0.3, restarts=False, hall=True)
    assert res.status in ("time_limit", "limit")
    assert res.stats["seconds"] < 3.0


def test_from_groups_rejects_unusable_input():
    with pytest.raises(ConfigError, match="one-hot groups"):
        Problem.from_groups([])
    with pytest.raises(ConfigError, match=r"\(row, col, digit\)"):
        Problem.from_groups([("cell", ["a", "b"])])
    with pytest.raises(ConfigError, match="not a variable of the model"):
        Problem.from_groups([("cell", [(0, 0, 1)])], labels=[(0, 0, 2)])


@pytest.mark.slow
@needs_data
def test_a_node_limit_stops_the_search_at_the_same_node_every_time():
    puzzles = load_puzzles(str(DATA / "sudoku9" / "forum_hardest_1106.txt"))[:5]
    for p in puzzles:
        problem = Problem.from_candidates(propagate(p))
        full = solve_cover(problem)
        cut = [solve_cover(problem, node_limit=64) for _ in range(2)]
        assert cut[0].stats["nodes"] == cut[1].stats["nodes"]
        if full.stats["nodes"] < 64:
            assert cut[0].status == "limit" and cut[0].solutions == full.solutions
        else:
            assert cut[0].status == "node_limit" and cut[0].solutions == []
            assert cut[0].stats["nodes"] == 64


def test_alldiff_pruning_keeps_exactly_the_edges_of_some_perfect_matching():
    """Against every assignment of digits to cells, on random units of 1 to 5 cells."""
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 5)
        live = {g: {c * n + g for c in range(n) if rng.random() < 0.55}
                for g in range(n)}
        adj, open_groups = unit_graph(range(n), live, [v // n for v in range(n * n)])
        perms = [q for q in itertools.permutations(range(n))  # q[c]: the digit of cell c
                 if all(c * n + q[c] in live[q[c]] for c in range(n))]
        drop = prune_alldiff(adj, len(open_groups))
        if not perms:
            assert drop is None
        else:
            kept = {c * n + q[c] for q in perms for c in range(n)}
            assert sorted(drop) == sorted(set().union(*live.values()) - kept)


def test_strong_components_are_the_mutually_reachable_nodes():
    rng = random.Random(3)
    for _ in range(100):
        nodes = range(rng.randint(1, 8))
        succ = {a: [b for b in nodes if rng.random() < 0.25] for a in nodes}
        reach = {a: {a} for a in nodes}
        for _ in nodes:
            for a in nodes:
                reach[a] |= {c for b in reach[a] for c in succ[b]}
        comp = strong_components(succ)
        assert all((comp[a] == comp[b]) == (b in reach[a] and a in reach[b])
                   for a in nodes for b in nodes)
