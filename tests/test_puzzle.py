import pytest

from qsudoku.errors import ContradictionError, PuzzleFormatError
from qsudoku.model.puzzle import Puzzle, box_units, default_box, diagonal_units, region_units

SOL4 = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]


@pytest.mark.parametrize("n,box", [(4, (2, 2)), (6, (2, 3)), (8, (2, 4)), (9, (3, 3)),
                                   (12, (3, 4)), (16, (4, 4)), (25, (5, 5))])
def test_standard_units_for_every_box_shape(n, box):
    assert default_box(n) == box
    p = Puzzle.standard([0] * (n * n))
    assert len(p.units) == 3 * n
    for u in p.units:
        assert len(set(u.cells)) == n
    # every cell is in exactly one row, one column and one box
    assert all(len(ks) == 3 for ks in p.cell_units)
    boxes = [u for u in p.units if u.kind == "box"]
    rows = {c // n for c in boxes[0].cells}
    cols = {c % n for c in boxes[0].cells}
    assert (len(rows), len(cols)) == box


def test_transposed_box_shape():
    p = Puzzle.standard([0] * 36, box=(3, 2))
    first = [u for u in p.units if u.kind == "box"][0]
    assert sorted(first.cells) == [0, 1, 6, 7, 12, 13]


def test_boxes_must_tile():
    with pytest.raises(PuzzleFormatError, match="do not tile"):
        box_units(6, 2, 2)


def test_prime_size_needs_regions():
    with pytest.raises(PuzzleFormatError, match="region map"):
        Puzzle.standard([0] * 25)


def test_jigsaw_regions_and_diagonals():
    regions = [0, 0, 1, 1] * 2 + [2, 2, 3, 3] * 2
    p = Puzzle.jigsaw([0] * 16, regions, extra=diagonal_units(4))
    kinds = [u.kind for u in p.units]
    assert kinds.count("region") == 4 and kinds.count("extra") == 2 and "box" not in kinds
    assert p.kind == "jigsaw 4x4 + diagonals"
    assert len(p.units_of(0)) == 4  # row, column, region, main diagonal


def test_region_map_errors_name_the_problem():
    with pytest.raises(PuzzleFormatError, match="3 regions"):
        region_units([0] * 6 + [1] * 5 + [2] * 5, 4)
    with pytest.raises(PuzzleFormatError, match="region 1 has 5 cells"):
        region_units([0] * 5 + [1] * 3 + [2] * 4 + [3] * 4, 4)


def test_duplicate_givens_name_cells_and_unit():
    givens = [1, 0, 0, 1] + [0] * 12
    with pytest.raises(ContradictionError) as e:
        Puzzle.standard(givens).check_givens()
    assert "row 1" in str(e.value) and "r1c1" in str(e.value) and "r1c4" in str(e.value)
    assert e.value.exit_code == 2


def test_broken_units_and_is_solution():
    p = Puzzle.standard([1] + [0] * 15)
    assert p.is_solution(SOL4)
    bad = list(SOL4)
    bad[0], bad[1] = bad[1], bad[0]
    assert not p.is_solution(bad)  # breaks the given
    broken = Puzzle.standard([0] * 16).broken_units(bad)
    assert {(u.label, d) for u, d in broken} >= {("column 1", 2), ("column 1", 1)}


def test_format_uses_alphabet():
    p = Puzzle.standard([10, 0] + [0] * 254)
    assert p.format().startswith("A.")



#: The shared puzzles of tests/_puzzles.py: solutions (3: three or more), variables left by
#: propagation with no rules and with the default rules (0: the singles solve it).
SHARED = [("EASY4", 1, 7, 0), ("SOLVED4", 1, 0, 0), ("ONE_GIVEN4", 3, 53, 53),
          ("TWO_GIVENS4", 3, 42, 32), ("THREE_GIVENS4", 3, 31, 15), ("FOUR_GIVENS4", 1, 20, 0),
          ("BOX_GIVEN4", 3, 32, 32), ("TWO_SOLUTIONS4", 2, 14, 8), ("OPEN_RECTANGLE4", 2, 8, 8),
          ("MANY_SOLUTIONS4", 3, 42, 32), ("SEED004", 1, 189, 63), ("SEED001", 1, 196, 192),
          ("SEED003", 1, 307, 212), ("HARD9", 1, 248, 242), ("EASY9", 1, 153, 0),
          ("IMPOSSIBLE9", 0, 356, 356)]


@pytest.mark.parametrize("name, solutions, bare, singles", SHARED)
def test_the_shared_puzzles_are_what_their_names_say(name, solutions, bare, singles):
    import _puzzles
    from qsudoku import Config, parse_puzzle
    from qsudoku.exact.count import count_solutions
    from qsudoku.model.propagate import propagate

    p = parse_puzzle(getattr(_puzzles, name))
    count = count_solutions(p, 3)
    assert min(count.count, 3) == solutions
    assert propagate(p, []).num_variables == bare
    assert propagate(p, Config().propagate.rules).num_variables == singles
    solution = getattr(_puzzles, name + "_SOLUTION", None)
    if solution is not None:
        assert count.solutions[0] == [int(c) for c in solution]
    assert not set(vars(_puzzles)) - {n for n, *_ in SHARED} - {"EASY4_SET"} - \
        {n + "_SOLUTION" for n, *_ in SHARED} - {n for n in vars(_puzzles) if n.startswith("_")}


def test_the_shared_easy_set_is_solved_by_the_singles():
    from _puzzles import EASY4_SET, SOLVED4
    from qsudoku import Config, parse_puzzle
    from qsudoku.model.propagate import propagate

    for text in EASY4_SET:
        cands = propagate(parse_puzzle(text), Config().propagate.rules)
        assert cands.num_variables == 0 and "".join(map(str, cands.grid)) == SOLVED4
