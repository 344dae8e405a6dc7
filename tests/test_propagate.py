import statistics

import pytest

from qsudoku.errors import ConfigError, ContradictionError
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.model.propagate import RULES, check_rules, propagate

from _shared import DATA, SEEDS, needs_data, puzzle_files, slow_when_big
from _puzzles import ONE_GIVEN4, SEED004, THREE_GIVENS4


def test_seed004_published_figure():
    p = parse_puzzle(SEED004)
    assert propagate(p, ["naked_single"]).num_variables == 152
    assert propagate(p, ["naked_single", "hidden_single"]).num_variables <= 63


def test_more_rules_never_leave_more_variables():
    p = parse_puzzle(SEED004)
    counts = [propagate(p, rules).num_variables
              for rules in ([], ["naked_single"], ["naked_single", "hidden_single"], list(RULES))]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]


def test_fired_counts_reported():
    c = propagate(parse_puzzle(SEED004))
    assert set(c.fired) == {"naked_single", "hidden_single"}
    filled = sum(1 for v in c.grid if v) - sum(1 for v in c.puzzle.givens if v)
    assert c.fired["naked_single"] + c.fired["hidden_single"] == filled > 0


def test_cell_without_candidate():
    # r1c4 sees 1, 2 (row) and 3, 4 (column/box): no candidate left
    p = parse_puzzle("12.." "...." "...3" "...4")
    with pytest.raises(ContradictionError, match="r1c4 has no candidate") as e:
        propagate(p, [])
    assert e.value.cell == (0, 3) and e.value.exit_code == 1


def test_digit_without_place():
    # digit 1 cannot go anywhere in row 1: columns 1..3 hold a 1 below, c4 is taken
    p = parse_puzzle("...2" ".1.." "..1." "1...")
    with pytest.raises(ContradictionError, match="no place") as e:
        propagate(p, ["hidden_single"])
    assert e.value.unit is not None


def test_duplicate_givens_rejected():
    with pytest.raises(ContradictionError, match="given twice"):
        propagate(parse_puzzle("11.." + "." * 12))


def test_unknown_rule():
    with pytest.raises(ConfigError, match="naked_quad"):
        check_rules(["naked_quad"])


@needs_data
@pytest.mark.parametrize("path", slow_when_big(puzzle_files()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_rule_keeps_the_solution(path):
    for p in load_puzzles(str(path))[:4]:
        c = propagate(p, list(RULES))
        for cell, d in enumerate(p.solution):
            assert c.masks[cell] >> (d - 1) & 1, (p.name, cell)
        assert all(v in (0, s) for v, s in zip(c.grid, p.solution))


@needs_data
def test_seeds_jigsaws_solved_by_singles():
    seeds = load_puzzles(str(SEEDS))
    for p in seeds:
        c = propagate(p)
        if p.kind.startswith("jigsaw"):
            assert c.solved and c.grid == list(p.solution)


@pytest.mark.slow
@needs_data
def test_hard_set_medians_shrink_with_rules():
    ps = load_puzzles(str(DATA / "sudoku9" / "magictour_top1465.txt"))[:20]
    med = {name: statistics.median(propagate(p, rules).num_variables for p in ps)
           for name, rules in [("singles", ["naked_single", "hidden_single"]), ("all", list(RULES))]}
    assert med["all"] < med["singles"]


@pytest.mark.slow
def test_continuing_from_singles_reaches_the_fresh_fixpoint(shared_puzzles):
    """``start=`` (how the route tries its stronger rules) changes the work, not the result."""
    from qsudoku.config import DEFAULTS
    STRONG_RULES = tuple(DEFAULTS["propagate"]["finish_rules"])

    checked = stronger = 0
    for key, puzzles in shared_puzzles.items():
        for p in puzzles:
            first = propagate(p, ("naked_single", "hidden_single"))
            fresh = propagate(p, STRONG_RULES)
            cont = propagate(p, STRONG_RULES, start=first)
            assert (cont.grid, cont.masks) == (fresh.grid, fresh.masks), key
            checked += 1
            stronger += cont.masks != first.masks
    assert checked > 60 and stronger > 10  # the stronger rules had work to do


def test_start_must_come_from_the_same_puzzle():
    from qsudoku.model.puzzle import Puzzle, diagonal_units

    a = parse_puzzle(THREE_GIVENS4)
    b = parse_puzzle("2..." "..1." "...." "...4")
    with pytest.raises(ValueError, match="another puzzle"):
        propagate(a, start=propagate(b, ()))
    c = parse_puzzle(ONE_GIVEN4)
    x = Puzzle.standard(c.givens, extra=diagonal_units(4))  # same givens, more units
    with pytest.raises(ValueError, match="another puzzle"):
        propagate(c, start=propagate(x, ()))
    same = parse_puzzle(THREE_GIVENS4)  # an equal puzzle, another object
    assert propagate(a, start=propagate(same, ())).grid == propagate(a).grid
