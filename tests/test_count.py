"""Counting solutions: the library function and ``qsudoku count``."""

import json
import random

import pytest

from qsudoku.cli import main
from qsudoku.errors import ConfigError, ContradictionError
from qsudoku.exact import count_solutions
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.model.puzzle import Puzzle

from _shared import DATA, SEEDS, data_sets, needs_data
from _puzzles import FOUR_GIVENS4, IMPOSSIBLE9, TWO_SOLUTIONS4


def test_unique_none_and_several():
    one = count_solutions(parse_puzzle(FOUR_GIVENS4))
    assert (one.count, one.at_least, one.unique, one.describe()) == (1, False, True, "unique")
    none = count_solutions(parse_puzzle(IMPOSSIBLE9))
    assert (none.count, none.at_least, none.describe()) == (0, False, "no solution")
    two = count_solutions(parse_puzzle(TWO_SOLUTIONS4), limit=10)
    assert (two.count, two.at_least, two.describe()) == (2, False, "2 solutions")
    p = parse_puzzle(TWO_SOLUTIONS4)
    assert all(p.is_solution(g) for g in two.solutions) and two.solutions[0] != two.solutions[1]


@pytest.mark.parametrize("method", ["search", "sat"])
def test_both_methods_agree(method):
    assert count_solutions(Puzzle.standard([0] * 16), limit=1000, method=method).count == 288
    two = count_solutions(parse_puzzle(TWO_SOLUTIONS4), limit=5, method=method)
    assert (two.count, two.at_least) == (2, False) and len(two.solutions) == 2
    assert count_solutions(parse_puzzle(IMPOSSIBLE9), method=method).count == 0
    solved = count_solutions(parse_puzzle(FOUR_GIVENS4), method=method)
    assert solved.unique and solved.solutions[0] == [1, 2, 4, 3, 3, 4, 2, 1, 4, 3, 1, 2, 2, 1, 3, 4]
    with pytest.raises(ConfigError, match="method"):
        count_solutions(parse_puzzle(TWO_SOLUTIONS4), method="guess")


def test_limit_gives_a_lower_bound():
    empty = Puzzle.standard([0] * 16)
    c = count_solutions(empty, limit=5)
    assert (c.count, c.at_least, c.complete) == (5, True, True)
    assert len(c.solutions) == 2 and c.describe() == "at least 5 solutions"
    assert count_solutions(empty, limit=1000).count == 288


def test_contradictory_propagation_is_zero_but_clashing_givens_are_bad_input():
    # Singles find this one contradictory (r1 needs a 4 that column 4 already has, ...).
    c = count_solutions(parse_puzzle("123." "...4" "...." "...."))
    assert c.count == 0 and not c.at_least
    with pytest.raises(ContradictionError) as e:
        count_solutions(parse_puzzle("11.." "...." "...." "...."))
    assert e.value.exit_code == 2
    with pytest.raises(ConfigError, match="limit"):
        count_solutions(parse_puzzle(TWO_SOLUTIONS4), limit=0)


def test_time_limit_marks_the_count_incomplete():
    c = count_solutions(Puzzle.standard([0] * 256), limit=10**9, time_limit=0.2)
    assert not c.complete and c.at_least and c.count >= 1
    assert "at least" in c.describe()


@pytest.mark.slow
@needs_data
def test_data_puzzles_are_unique():
    """A sample of every kind: the data promises exactly one solution each."""
    files = [f for f in data_sets() if "sudoku25" not in str(f)]
    rng = random.Random(4)
    for f in files:
        ps = load_puzzles(str(f))
        for p in rng.sample(ps, min(2, len(ps))):
            c = count_solutions(p)
            assert c.unique, (p.name, c.describe())
            assert c.solutions[0] == list(p.solution)
    for p in load_puzzles(str(SEEDS)):
        assert count_solutions(p).unique


def test_cli_exit_codes_and_output(capsys):
    assert main(["count", FOUR_GIVENS4]) == 0
    assert "unique" in capsys.readouterr().out
    assert main(["count", TWO_SOLUTIONS4]) == 1
    out = capsys.readouterr().out
    assert "at least 2 solutions" in out and "solution 2:" in out and "differ in " in out
    assert main(["count", IMPOSSIBLE9]) == 1
    assert "no solution" in capsys.readouterr().out
    assert main(["count", "11.." "...." "...." "...."]) == 2
    assert main(["count", TWO_SOLUTIONS4, "--max-solutions", "0"]) == 2
    assert main(["count", FOUR_GIVENS4, "--method", "sat"]) == 0


def test_cli_json(capsys):
    assert main(["count", TWO_SOLUTIONS4, "--max-solutions", "5", "--json"]) == 1
    rec = json.loads(capsys.readouterr().out)
    assert rec["count"] == 2 and rec["at_least"] is False and rec["unique"] is False
    assert len(rec["solutions"]) == 2 and all(len(s) == 16 for s in rec["solutions"])


@needs_data
def test_cli_counts_a_file(capsys):
    assert main(["count", str(DATA / "jigsawx6/smilingwayne.txt")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 10 and all(line.endswith("unique") for line in lines)
