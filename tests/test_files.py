"""Bad puzzles (``qsudoku.io.files``) through the CLI: one readable error line naming file,
line and cell; exit 2.

Also: ``--keep-going`` solves the good puzzles of a file and reports each bad
line, a contradiction found by propagation is "no solution" (exit 1) with the
cell or unit where it broke, and duplicate givens are bad input (exit 2).
Driven in-process through :func:`qsudoku.cli.main`.
"""

from __future__ import annotations

import io
import json

import pytest
from qsudoku.cli import main
from qsudoku.io import Rules, files as io_files, load_puzzles, parse_digits, parse_puzzle

from _cli import one_error, run
from _input_cases import BAD_FILES, FAST, NO_CANDIDATE, NO_PLACE, write
from _puzzles import EASY4_SET, SEED004, SOLVED4


def test_easy_puzzles_are_valid():
    for s in EASY4_SET:
        p = parse_puzzle(s)
        assert p.is_solution([int(ch) for ch in SOLVED4]), s


@pytest.mark.parametrize("name,content,pieces", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_puzzle_file_is_one_error_line_exit_2(tmp_path, capsys, name, content, pieces):
    path = write(tmp_path, name, content)
    code, out, err = run(capsys, "solve", path, *FAST)
    line = one_error(err)
    assert code == 2
    for piece in pieces:
        assert piece in line, (piece, line)
    if name != "mixed.txt":  # mixed.txt solves its first (9x9) puzzle before the bad line
        assert out == ""


def test_debug_shows_the_traceback_and_keeps_the_exit_code(tmp_path, capsys):
    path = write(tmp_path, "char.txt", "x" + SEED004[1:])
    assert main(["--debug", "solve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and "PuzzleFormatError: " in err
    assert f"{path}:1:1: " in err and "(cell r1c1)" in err
    path = write(tmp_path, "dup.txt", "11" + "." * 14)
    assert main(["--debug", "solve", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "ContradictionError: " in err and "r1c2" in err


def test_large_tuple_list_is_refused_and_line_files_stream(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(io_files, "MAX_FILE_BYTES", 1000)
    triples = [[r + 1, c + 1, int(d)] for r in range(4) for c, d in enumerate(EASY4_SET[0][4 * r:][:4])
               if d != "."]
    path = write(tmp_path, "tuples.txt", "[" + ",\n".join(map(str, triples * 40)) + "]")
    code, out, err = run(capsys, "solve", path, *FAST)
    assert code == 2 and "tuples.txt" in one_error(err) and "refused" in err
    # one tuple list a line is read as a stream, like one puzzle a line
    path = write(tmp_path, "lists.txt", "# size 4\n" + "\n".join([str(triples)] * 40))
    code, out, err = run(capsys, "solve", path, "--json", *FAST)
    assert code == 0 and len(out.splitlines()) == 40 and err == ""
    # one puzzle a line is read as a stream: no size limit
    path = write(tmp_path, "big.txt", (EASY4_SET[0] + "\n") * 80)
    code, out, err = run(capsys, "solve", path, "--json", *FAST)
    assert code == 0 and len(out.splitlines()) == 80 and err == ""


@pytest.mark.parametrize("spec,piece", [
    ("/no/such/dir/puzzles.txt", "no such file"),
    (".", "is a directory"),
    ("1" * 80, "<argument>:1: a puzzle line has n*n symbols"),
    ("[[0, 1, 1]]", "1-indexed"),
    ("[]", "a tuple list carries no grid size: pass --size N"),
])
def test_bad_puzzle_arguments(capsys, spec, piece):
    code, out, err = run(capsys, "solve", spec)
    assert code == 2 and piece in one_error(err)


def test_bad_stdin(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("1...\n..x.\n....\n....\n"))
    code, out, err = run(capsys, "solve", "-")
    assert code == 2 and "<stdin>:2:3: unknown symbol 'x'" in one_error(err)


def test_wrong_convention_is_readable_with_digits(tmp_path):
    """The hex file refused above reads fine once its convention is given."""
    path = write(tmp_path, "hex.txt", "0F" + "." * 254)
    p = load_puzzles(str(path), Rules(digits=parse_digits("0-9A-F")))[0]
    assert p.givens[:2] == (1, 16) and p.format().startswith("0F")
    q = load_puzzles(str(path), Rules(digits=parse_digits("1-9A-G")))[0]
    assert q.givens[:2] == (0, 15)  # the other reading: 0 is a blank, F is 15


def test_keep_going_reports_bad_lines_and_solves_the_rest(tmp_path, capsys):
    lines = [EASY4_SET[0], "1" * 15, EASY4_SET[1], "12.5" + "." * 12, "11" + "." * 14, EASY4_SET[2],
             "1." * 8 + " aaaabbbb", ""]
    path = write(tmp_path, "many.txt", "\n".join(lines))
    code, out, err = run(capsys, "solve", path, "--keep-going", "--json")
    results = [json.loads(x) for x in out.splitlines()]
    assert [r["name"] for r in results] == ["many.txt:1", "many.txt:3", "many.txt:6"]
    assert all(r["valid"] and r["solution"] == SOLVED4 for r in results)
    errors = err.strip().splitlines()
    assert [e.split(": ")[2].split(":")[1] for e in errors] == ["2", "4", "5", "7"], errors
    assert all(e.startswith("qsudoku: error: ") for e in errors)
    assert code == 2
    # without --keep-going the first bad line stops the run after the good first puzzle
    code, out, err = run(capsys, "solve", path, "--json")
    assert code == 2 and len(out.splitlines()) == 1 and "many.txt:2" in one_error(err)


def test_keep_going_over_several_files(tmp_path, capsys):
    good = write(tmp_path, "good.txt", EASY4_SET[0])
    bad = write(tmp_path, "bad.txt", b"\x00\x01")
    code, out, err = run(capsys, "solve", bad, "/no/such.txt", good, "--keep-going", "--json")
    assert code == 2 and len(out.splitlines()) == 1
    assert "bad.txt" in err and "no such file" in err and len(err.strip().splitlines()) == 2


# -- 2. unsolvable and ambiguous puzzles -------------------------------------------------
def test_contradiction_is_no_solution_exit_1_with_where(capsys):
    puzzle = NO_CANDIDATE
    code, out, err = run(capsys, "solve", puzzle)
    assert code == 1 and "NO SOLUTION" in out and "r1c3 has no candidate" in out
    code, out, err = run(capsys, "solve", puzzle, "--json")
    r = json.loads(out)
    assert code == 1 and r["valid"] is False and r["solution"] is None and "r1c3" in r["error"]


def test_digit_without_place_names_the_unit(capsys):
    code, out, err = run(capsys, "solve", NO_PLACE, "--json")
    r = json.loads(out)
    assert code == 1 and not r["valid"] and "digit 1 has no place left in row 1" in r["error"]


def test_no_solution_among_good_puzzles_is_exit_1(tmp_path, capsys):
    path = write(tmp_path, "set.txt", "\n".join([EASY4_SET[0], NO_CANDIDATE, EASY4_SET[1]]))
    code, out, err = run(capsys, "solve", path, "--json")
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and [r["valid"] for r in rows] == [True, False, True] and err == ""


def test_duplicate_givens_are_bad_input_not_no_solution(tmp_path, capsys):
    path = write(tmp_path, "dup.txt", "1.1." + "." * 12)
    code, out, err = run(capsys, "solve", path, "--json")
    assert code == 2 and out == ""
    assert "dup.txt:1: digit 1 given twice in row 1 (r1c1 and r1c3)" in one_error(err)


def test_duplicate_givens_in_a_tsv_name_the_file(tmp_path, capsys):
    path = write(tmp_path, "seeds.tsv", "twin\t11" + "." * 14 + "\t-\t\n")
    code, out, err = run(capsys, "solve", path)
    assert code == 2 and "seeds.tsv (twin): digit 1 given twice" in one_error(err)


def test_ambiguous_puzzle_gets_a_valid_grid_and_says_if_it_differs(tmp_path, capsys):
    """An empty 4x4 has 288 solutions: any valid grid is a right answer, and a listed
    solution that differs is reported, never silently."""
    path = write(tmp_path, "amb.tsv", f"empty\t{'.' * 16}\t-\t{SOLVED4}\n")
    code, out, err = run(capsys, "solve", path, "--json", "--seed", "1")
    r = json.loads(out)
    assert code == 0 and r["valid"] and parse_puzzle("." * 16).is_solution(
        [int(ch) for ch in r["solution"]])
    assert r["matches_known_solution"] == (r["solution"] == SOLVED4)
    code, out, err = run(capsys, "solve", path, "--seed", "1")
    assert code == 0 and ("differs from the solution" in out) == (not r["matches_known_solution"])


def test_invalid_sample_is_reported_not_hidden(capsys):
    code, out, err = run(capsys, "solve", SEED004, "--json", *FAST, "--seed", "0")
    r = json.loads(out)
    assert code == 1 and not r["valid"] and r["broken"] and r["energy"] > 0


@pytest.mark.parametrize("argv, pieces", [
    (["[[1.5,1,4],[2,2.9,3]]", "--size", "4"], ["<argument>:1:2:", "triple 1 [1.5, 1, 4]",
                                                 "1.5 is not an integer"]),
    (["[[1,1,4],[2,2,True]]", "--size", "4"], ["triple 2 [2, 2, True]", "(cell r2c2)"]),
    ([SOLVED4, "--digits", "1123"], ["digits '1123' repeat a symbol", "positions 1 and 2"]),
])
def test_input_is_read_exactly(capsys, argv, pieces):
    code, out, err = run(capsys, "solve", *argv)
    line = one_error(err)
    assert code == 2 and out == ""
    for piece in pieces:
        assert piece in line, (piece, line)


def test_input_rules_refuse_an_alphabet_with_a_repeated_symbol():
    from qsudoku.errors import PuzzleFormatError

    with pytest.raises(PuzzleFormatError, match="repeat a symbol"):
        Rules(digits="1123")
    with pytest.raises(PuzzleFormatError, match="repeat a symbol"):
        Rules(digits="abcAa")  # needs both cases, so read exactly: 'a' is there twice
    assert Rules(digits="abcA").digits == "abcA"  # 'a' and 'A' are two symbols
