import io
import random

import pytest

from qsudoku.errors import PuzzleFormatError
from qsudoku.io import Rules, load_puzzles, parse_digits, parse_puzzle, parse_regions
from qsudoku.io.files import iter_puzzles, rules_from_path
from qsudoku.io.text import format_grid

from _shared import DATA, SEEDS, needs_data, puzzle_files, slow_when_big
from _puzzles import SEED004
from qsudoku.commands import generate as generate_cmd
from qsudoku.exact.generate import make_puzzle, pattern_grid, random_regions, region_letters
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.symbols import MAX_SIZE
from _cli import one_error, run
from _io_cases import EASY, HASH_FILE
from _misc_cases import _solve_line, one_line


def test_line_with_dots_and_zeros():
    a = parse_puzzle(SEED004)
    b = parse_puzzle(SEED004.replace(".", "0"))
    assert a.givens == b.givens and a.size == 9 and a.givens[:3] == (2, 0, 5)


def test_grid_with_separators_matches_line():
    p = parse_puzzle(SEED004)
    text = format_grid(p)
    assert "+" in text and "|" in text
    assert parse_puzzle(text).givens == p.givens
    plain = "\n".join(SEED004[i:i + 9] for i in range(0, 81, 9))
    assert parse_puzzle(plain).givens == p.givens
    spaced = "\n".join(" ".join(SEED004[i:i + 9]) for i in range(0, 81, 9))
    assert parse_puzzle(spaced).givens == p.givens


def test_sixteen_with_both_conventions():
    line = "G" + "." * 254 + "1"
    p = parse_puzzle(line)
    assert p.size == 16 and p.givens[0] == 16 and p.givens[-1] == 1
    hexa = parse_puzzle("F" + "." * 254 + "0", Rules(digits=parse_digits("0-9A-F")))
    assert hexa.givens[0] == 16 and hexa.givens[-1] == 1
    assert hexa.format()[0] == "F"  # written back in the input's convention
    with pytest.raises(PuzzleFormatError, match="unknown symbol 'G'"):
        parse_puzzle("G" + "." * 255, Rules(digits=parse_digits("0-9A-F")))


def test_decimal_tokens_for_large_grids():
    rows = [" ".join(["12"] + ["."] * 11)] + [" ".join(["."] * 12)] * 11
    p = parse_puzzle("\n".join(rows), Rules(box=(3, 4)))
    assert p.size == 12 and p.givens[0] == 12


def test_tuples_one_indexed():
    p = parse_puzzle("[[1, 3, 8], [1, 6, 1], [9, 9, 5]]", Rules(size=9))
    assert p.size == 9 and p.givens[2] == 8 and p.givens[5] == 1 and p.givens[80] == 5
    with pytest.raises(PuzzleFormatError, match="1-indexed"):
        parse_puzzle("[[0, 3, 8]]")


@pytest.mark.parametrize("text", ["[[1, 3, 8], [1, 6, 1], [9, 9, 5]]", "[[2, 1, 5], [8, 3, 7]]",
                                  "[]"])
def test_a_tuple_list_without_a_size_is_refused_not_guessed(text):
    """Its largest entry is no size: a 9x9 of four givens may hold no 9 (read as 8x8)."""
    with pytest.raises(PuzzleFormatError, match=r"carries no grid size.*pass --size N, or begin "
                                                 r"the file with a line '# size N'"):
        parse_puzzle(text)


def test_a_size_line_box_or_region_map_gives_a_tuple_list_its_size():
    assert parse_puzzle("# size 9\n[[2, 1, 5], [8, 3, 7]]").size == 9
    assert parse_puzzle("# Size: 16x16\n\n[[1, 1, 2]]").size == 16
    assert parse_puzzle("[[1, 1, 2]]", Rules(box=(2, 3))).size == 6
    assert parse_puzzle("[[1, 1, 2]]", Rules(regions=parse_regions("aabb/aabb/ccdd/ccdd"))).size == 4
    with pytest.raises(PuzzleFormatError, match=r"says '# size 9' but the size is 16"):
        parse_puzzle("# size 9\n[[1, 1, 2]]", Rules(size=16))
    with pytest.raises(PuzzleFormatError, match=r"<string>:3:.*outside a 4x4 grid"):
        parse_puzzle("# size 4\n\n[[1, 1, 5]]")  # the list's own line is named


def test_a_file_of_tuple_lists_takes_its_size_line(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("# size 9\n[[2, 1, 5], [8, 3, 7]]\n[]\n")
    assert [p.size for p in load_puzzles(str(path))] == [9, 9]
    assert [p.size for p in load_puzzles(str(path), Rules(size=9))] == [9, 9]
    with pytest.raises(PuzzleFormatError, match=r"t.txt:1: the text says '# size 9' but the "
                                                 r"size is 16"):
        load_puzzles(str(path), Rules(size=16))
    old = tmp_path / "old.txt"  # a file of before the size line: it reads with --size
    old.write_text("[[2, 1, 5], [8, 3, 7]]\n")
    with pytest.raises(PuzzleFormatError, match=r"old.txt:1: a tuple list carries no grid size"):
        load_puzzles(str(old))
    (p,) = load_puzzles(str(old), Rules(size=9))
    assert p.size == 9 and p.givens[9] == 5


def test_a_companion_of_another_size_is_refused(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("1......2........\n")
    (tmp_path / "p.solutions.txt").write_text("1" * 81 + "\n")
    with pytest.raises(PuzzleFormatError, match=r"p.solutions.txt:1: the known solution has 81 "
                                                 r"symbols, a 4x4 puzzle needs 16"):
        load_puzzles(str(path))
    (tmp_path / "p.solutions.txt").write_text("# a note\n")  # a comment: no known solution
    assert load_puzzles(str(path))[0].solution is None
    tuples = tmp_path / "t.txt"
    tuples.write_text("# size 9\n[[1, 1, 1]]\n")
    (tmp_path / "t.solutions.txt").write_text("# size 9\n" + "1234" * 4 + "\n")
    with pytest.raises(PuzzleFormatError, match=r"t.solutions.txt:2: the known solution has 16 "
                                                 r"symbols, a 9x9 puzzle needs 81"):
        load_puzzles(str(tuples))


@needs_data
def test_seed003_as_tuples_matches_line():
    seeds = {p.name: p for p in load_puzzles(str(SEEDS))}
    p = seeds["seed003_integer_programming"]
    triples = [[c // 9 + 1, c % 9 + 1, d] for c, d in enumerate(p.givens) if d]
    assert parse_puzzle(str(triples), Rules(size=9)).givens == p.givens


def test_region_map_letter_grid():
    regions = parse_regions("aaabb/aabbb/ccddd/cccdd/eeeee")
    assert regions[:5] == (0, 0, 0, 1, 1) and len(regions) == 25 and max(regions) == 4
    p = parse_puzzle("." * 25, Rules(regions=regions))
    assert p.kind == "jigsaw 5x5"


def test_errors_name_line_and_column():
    with pytest.raises(PuzzleFormatError) as e:
        load_puzzles("-", stdin=io.StringIO(SEED004 + "\n" + SEED004[:40] + "x" + SEED004[41:]))
    assert e.value.line == 2 and e.value.column == 41 and "'x'" in str(e.value)


def test_stdin_many_puzzles():
    ps = load_puzzles("-", stdin=io.StringIO("# comment\n" + SEED004 + "\n\n" + SEED004 + "\n"))
    assert len(ps) == 2 and ps[1].name == "<stdin>:4"


def test_multiple_grids_in_one_file(tmp_path):
    p = parse_puzzle(SEED004)
    f = tmp_path / "grids.txt"
    f.write_text(format_grid(p) + "\n\n" + format_grid(p) + "\n")
    assert [q.givens for q in load_puzzles(str(f))] == [p.givens, p.givens]


def test_keep_going_yields_errors_as_data():
    items = list(iter_puzzles("-", stdin=io.StringIO(SEED004 + "\n" + "12" + "\n" + SEED004)))
    assert [type(i).__name__ for i in items] == ["Puzzle", "PuzzleFormatError", "Puzzle"]


def test_rules_from_path():
    assert rules_from_path("x/sudoku6/janko_box3x2.txt").box == (3, 2)
    assert rules_from_path("x/sudoku8/janko_box2x4.txt").box == (2, 4)
    assert rules_from_path("x/sudokux9/janko.txt").variant == "x"
    assert rules_from_path("x/jigsaw7/janko.txt").variant == "standard"
    # explicit rules win
    assert rules_from_path("x/sudoku6/janko_box3x2.txt").merged(Rules(box=(2, 3))).box == (2, 3)


@needs_data
@pytest.mark.parametrize("path", slow_when_big(puzzle_files()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_data_file_parses_with_its_solutions(path):
    puzzles = load_puzzles(str(path))
    with open(path) as f:
        assert len(puzzles) == sum(1 for line in f if line.strip())
    for p in puzzles[:50]:
        assert p.solution is not None and p.is_solution(p.solution), p.name


@needs_data
def test_seeds_tsv_names_regions_solutions():
    ps = load_puzzles(str(SEEDS))
    assert [p.name for p in ps][:2] == ["seed004_quantum_annealing", "seed003_integer_programming"]
    assert sum(p.kind.startswith("jigsaw") for p in ps) == 2
    assert all(p.is_solution(p.solution) for p in ps)


@needs_data
def test_data_rules_follow_directory():
    made = DATA / "generated"
    assert load_puzzles(str(made / "sudoku6" / "unique_box3x2.txt"))[0].kind == \
        "sudoku 6x6 (3x2 boxes)"
    assert load_puzzles(str(made / "sudokux9" / "unique.txt"))[0].kind.endswith("+ diagonals")
    assert load_puzzles(str(DATA / "jigsawx6" / "smilingwayne.txt"))[0].kind == \
        "jigsaw 6x6 + diagonals"
    assert load_puzzles(str(made / "sudoku12" / "unique_box3x4.txt"))[0].kind == \
        "sudoku 12x12 (3x4 boxes)"


def test_load_puzzles_refuses_a_fifo_or_device_instead_of_blocking(tmp_path):
    """A FIFO with no writer would block ``load_puzzles`` forever (it reads a file whole);
    the command line reads a stream, and :func:`iter_puzzles` still does."""
    import os
    from pathlib import Path

    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    for spec in (fifo, str(fifo)):
        with pytest.raises(PuzzleFormatError, match=r"p.fifo is a FIFO, not a regular file: "
                                                     r"load_puzzles reads a file whole"):
            load_puzzles(spec)
    with pytest.raises(PuzzleFormatError, match="/dev/null is a character device"):
        load_puzzles(Path("/dev/null"))
    path = tmp_path / "p.txt"
    path.write_text("1......2........\n")
    link = tmp_path / "link.txt"
    link.symlink_to(path)  # a link to a regular file reads
    assert len(load_puzzles(link)) == 1 and len(load_puzzles("1......2........")) == 1


def test_hash_as_a_digit_is_no_comment(capsys, tmp_path):
    path = tmp_path / "h.txt"
    path.write_text(HASH_FILE)
    puzzles = load_puzzles(str(path), Rules(digits="#12345678"))
    assert [p.givens[:2] for p in puzzles] == [(1, 2), (2, 1)]
    code, out, err = run(capsys, "count", path, "--digits", "#12345678")
    assert code == 1 and err == ""  # not unique, but both are counted
    assert [ln.split()[0] for ln in out.splitlines() if ln.startswith("h.txt")] == \
        ["h.txt:1", "h.txt:2"]
    path.write_text(HASH_FILE.splitlines()[0] + "\n")  # by default '#' starts a comment
    with pytest.raises(PuzzleFormatError, match="no puzzle found"):
        load_puzzles(str(path))


def test_hash_as_a_digit_solve_answers_every_puzzle(capsys, tmp_path):
    path = tmp_path / "h.txt"
    path.write_text(HASH_FILE)
    code, out, err = run(capsys, "solve", path, "--digits", "#12345678", "--sampler", "sat")
    assert code == 0
    assert [ln.split()[0] for ln in out.splitlines() if ln.startswith("h.txt:")] == \
        ["h.txt:1", "h.txt:2"]


# -- wrong or lost output ------------------------------------------------------------------------
@pytest.mark.slow
def test_region_maps_of_every_size_read_back():
    rng = random.Random(5)
    for n in range(2, MAX_SIZE + 1):
        regions = random_regions(n, rng, steps=3 * n)
        blank = Rules(regions=regions).make([0] * (n * n))
        line = generate_cmd.render(blank, "line", "x")
        (back,) = load_puzzles(line.strip(), Rules(format="line"))
        assert region_letters(back) == region_letters(blank), n
        assert back.units == blank.units, n


def test_a_64x64_line_with_slash_digits_is_a_puzzle_argument(capsys):
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/"
    grid = pattern_grid(Rules().make([0] * 4096))
    givens = [0 if i % 5 == 0 else d for i, d in enumerate(grid)]
    line = "".join(alphabet[d - 1] if d else "." for d in givens)
    assert "/" in line
    (p,) = load_puzzles(line, Rules(digits="0-9A-Za-z+/"))
    assert list(p.givens) == givens
    code, out, err = run(capsys, "count", line, "--digits", "0-9A-Za-z+/", "--max-solutions", "2")
    assert code == 0 and "unique" in out, err
    code, out, err = run(capsys, "count", "no/such.txt")
    assert code == 2 and one_error(err) == "qsudoku: error: no such file: no/such.txt"


# -- misleading ------------------------------------------------------------------------------------
def test_a_10x10_tuple_list_is_read_as_10x10(capsys, tmp_path):
    p = make_puzzle(Rules().make([0] * 100), 0.5, 1)
    path = tmp_path / "t.txt"
    path.write_text(generate_cmd.render(p, "tuples", "t"))
    (back,) = load_puzzles(str(path))
    assert back.size == 10 and back.givens == p.givens
    code, out, err = run(capsys, "solve", path, "--sampler", "sat")
    assert code == 0 and "sudoku 10x10 (2x5 boxes)  VALID" in out


@pytest.mark.parametrize("text, largest, size", [("[[1,1,26]]", 26, 36), ("[[1,1,3]]", 3, 4)])
def test_a_tuple_list_of_no_given_size_asks_for_size(capsys, text, largest, size):
    code, out, err = run(capsys, "solve", text)
    assert code == 2 and one_error(err) == (
        f"qsudoku: error: <argument>:1: a tuple list carries no grid size (its largest row, "
        f"column or value is {largest}; the grid may be larger): pass --size N, or begin the "
        "file with a line '# size N'")
    (p,) = load_puzzles(text, Rules(size=size))  # with the size it reads
    assert p.size == size and p.givens[0] == largest


# -- internal errors -------------------------------------------------------------------------------
def test_load_puzzles_refuses_a_stdin_that_is_no_stream():
    with pytest.raises(TypeError, match=r"stdin must be None or a readable file object"):
        load_puzzles("-", stdin=object())
    assert len(load_puzzles("-", stdin=io.StringIO(EASY + "\n"))) == 1


def test_a_puzzle_alphabet_of_the_wrong_length_is_refused():
    with pytest.raises(PuzzleFormatError, match="alphabet '12' has 2 symbols, a 4x4 grid needs 4"):
        Puzzle.standard([0] * 16, alphabet="12")


@pytest.mark.parametrize("digits", ["", " "])
def test_empty_digits_are_an_error(capsys, tmp_path, digits):
    code, out = _solve_line(capsys, tmp_path, "--digits", digits)
    line = one_line(out.err)
    assert code == 2 and "name no symbol" in line
