"""Grids of 36x36 to 64x64: read with no flag, printed so that they read back, and an
exact sampler that solves them without building a QUBO.

The puzzles are pattern grids with seeded digit shuffles, a few cells blanked, so
that propagation (or a short exact run) finishes them and the tests stay fast.
"""

from __future__ import annotations

import json
import random

import pytest

from qsudoku import Config, solve
from qsudoku.errors import PuzzleFormatError
from qsudoku.io import Rules, parse_digits, parse_puzzle
from qsudoku.io.text import format_grid
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.qubo import build_model
from qsudoku.model.symbols import MAX_SIZE, default_alphabet

from _cli import one_error, run
from _puzzles import SEED004


def full_grid(n: int, seed: int) -> list[int]:
    """A valid ``n x n`` grid (``n`` a square) with its digits shuffled by ``seed``."""
    b = round(n ** 0.5)
    digits = list(range(1, n + 1))
    random.Random(seed).shuffle(digits)
    return [digits[(b * (r % b) + r // b + c) % n] for r in range(n) for c in range(n)]


def with_blanks(grid: list[int], fraction: float, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [0 if rng.random() < fraction else v for v in grid]


def tuples_text(givens: list[int], n: int) -> str:
    return json.dumps([[i // n + 1, i % n + 1, v] for i, v in enumerate(givens) if v])


def size_line(n: int) -> str:
    """The line that gives a tuple list its size (``qsudoku generate --to tuples``)."""
    return f"# size {n}\n"


def grid_lines(out: str) -> str:
    """The printed grid of ``qsudoku solve``'s text report (between header and notes)."""
    lines = out.splitlines()[1:]
    return "\n".join(lines[:next(k for k, ln in enumerate(lines)
                                 if ln.startswith("propagation:"))]) + "\n"


@pytest.mark.slow
@pytest.mark.parametrize("n", [36, 49])
def test_a_tuple_list_reads_with_its_size_line_and_its_printed_grid_reads_back(tmp_path, capsys,
                                                                               n):
    solution = full_grid(n, seed=n)
    path = tmp_path / f"big{n}.txt"
    path.write_text(size_line(n) + tuples_text(with_blanks(solution, 0.1, seed=1), n) + "\n")
    code, out, _ = run(capsys, "solve", path)
    assert code == 0 and f"sudoku {n}x{n}" in out and "VALID" in out.splitlines()[0]
    printed = grid_lines(out)
    assert len([ln for ln in printed.splitlines() if ln[:1] != "-"]) == n
    again = tmp_path / f"printed{n}.txt"
    again.write_text(printed)
    code, out2, _ = run(capsys, "solve", again, "--json")
    d = json.loads(out2)
    assert code == 0 and d["valid"] and d["size"] == n
    assert parse_puzzle(d["solution"]).givens == tuple(solution)  # the line reads back too


@pytest.mark.slow
def test_a_49x49_number_grid_with_0_blanks_reads_with_no_flag(tmp_path, capsys):
    n = 49
    solution = full_grid(n, seed=7)
    givens = with_blanks(solution, 0.05, seed=2)
    text = "\n".join(" ".join(str(v) for v in givens[r * n:(r + 1) * n]) for r in range(n))
    path = tmp_path / "numbers49.txt"
    path.write_text(text + "\n")
    code, out, _ = run(capsys, "solve", path, "--json")
    d = json.loads(out)
    assert code == 0 and d["valid"]
    assert [default_alphabet(n).index(ch) + 1 for ch in d["solution"]] == solution


def test_big_grids_print_as_numbers_and_small_ones_as_symbols():
    p = Puzzle.standard(with_blanks(full_grid(36, seed=3), 0.5, seed=3))
    text = format_grid(p)
    assert parse_puzzle(text).givens == p.givens
    assert " 36" in text or "36 " in text or 36 not in p.givens
    assert "|" in text and all(ch in "0123456789 .|-+\n" for ch in text)
    assert format_grid(Puzzle.standard(full_grid(16, seed=3))).count("G") == 16


@pytest.mark.slow
def test_a_64x64_reads_propagates_and_builds_with_the_default_alphabet():
    n = MAX_SIZE
    solution = full_grid(n, seed=5)
    givens = with_blanks(solution, 0.02, seed=5)
    p = parse_puzzle(Puzzle.standard(givens).format())  # the one-line form, no --digits
    assert p.givens == tuple(givens) and p.size == 64
    cands = propagate(p, rules=())
    model = build_model(cands)
    assert model.num_variables == sum(bin(cands.masks[c]).count("1")
                                      for c in range(n * n) if not cands.grid[c])
    assert propagate(p).grid == solution


def test_digits_keep_both_cases_and_take_ranges_in_the_library():
    assert len(parse_digits("0-9A-Za-z")) == 62  # no "repeats a symbol"
    assert Rules(digits="0-9A-Z").digits == "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    solution = full_grid(36, seed=9)
    line = "".join("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v - 1] for v in solution)
    assert parse_puzzle(line, Rules(digits="0-9A-Z")).givens == tuple(solution)
    assert parse_puzzle(line.lower(), Rules(digits="0-9a-z")).givens == tuple(solution)
    wide = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"  # 49 symbols, both cases
    line49 = "".join(wide[v - 1] for v in full_grid(49, seed=9))
    # 'a' is 37 and 'A' is 11: read exactly as given
    assert parse_puzzle(line49, Rules(digits="0-9A-Za-m")).givens == tuple(full_grid(49, seed=9))
    with pytest.raises(PuzzleFormatError, match="unknown symbol 'n'"):
        parse_puzzle("n" + line49[1:], Rules(digits="0-9A-Za-m"))


def test_digits_with_both_cases_on_the_command_line(capsys):
    wide = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
    solution = full_grid(49, seed=4)
    line = "".join(wide[v - 1] if v else "." for v in with_blanks(solution, 0.05, seed=4))
    code, out, _ = run(capsys, "solve", line, "--digits", "0-9A-Za-m", "--json")
    d = json.loads(out)
    assert code == 0 and d["valid"] and d["solution"] == "".join(wide[v - 1] for v in solution)


@pytest.mark.parametrize("args, piece", [
    (["[[1, 1, 65]]"], "value 65 is larger than any supported size (at most 64)"),
    (["[[1, 1, 3]]", "--size", "81"], "grid size 81 is not supported (2..64)"),
])
def test_above_64x64_is_one_line(capsys, args, piece):
    code, _, err = run(capsys, "solve", *args)
    assert code == 2 and piece in one_error(err)


def test_an_exact_sampler_solves_the_candidates_without_a_qubo():
    p = parse_puzzle(SEED004)
    r = solve(p, Config().with_overrides(sampler="sat", params={"solver": "minisat22"}, seed=4))
    assert r.valid and r.solved_by == "sat (exact, no QUBO)"
    assert r.info["solver"] == "sat:minisat22"  # the sampler's parameters reach the backend
    assert r.model is None and "build" not in r.timings and r.num_variables > 0


@pytest.mark.slow
def test_a_blank_49x49_runs_the_exact_sampler_and_no_fallback_after_it(capsys):
    code, out, _ = run(capsys, "solve", "[]", "--size", "49", "--sampler", "sat",
                       "--param", "time_limit=0.3", "--no-fallback", "--json")
    d = json.loads(out)
    assert d["num_variables"] == 49 ** 3 and d["num_interactions"] == 0
    assert "build" not in d["timings"] and d["info"]["status"] in ("solved", "time_limit")
    if not d["valid"]:
        assert any("'sat' found no solution within its 0.3 s time limit" in n
                   for n in d["notes"])
    r = solve(Puzzle.standard([0] * 49 ** 2),
              Config().with_overrides(sampler="sat", params={"time_limit": 0.3},
                                      route={"exact_fallback": "sat,csp"}))
    assert r.valid or any("no fallback runs after an exact sampler" in n for n in r.notes)
    assert "fallback" not in r.solved_by and "fallback" not in r.timings


def test_a_file_of_one_tuple_list_a_line_takes_its_size_from_the_directory(tmp_path):
    from qsudoku.io import load_puzzles

    folder = tmp_path / "sudoku49"
    folder.mkdir()
    solution = full_grid(49, seed=6)
    sparse = [v if v <= 20 else 0 for v in with_blanks(solution, 0.9, seed=6)]  # max < 49
    path = folder / "lewis.txt"
    path.write_text("[]\n" + tuples_text(sparse, 49) + "\n# a comment\n"
                    + tuples_text(solution, 49) + "\n")
    puzzles = load_puzzles(str(path))
    assert [p.size for p in puzzles] == [49, 49, 49]
    assert puzzles[0].givens == (0,) * 49 ** 2 and puzzles[1].givens == tuple(sparse)
    assert puzzles[2].is_solution(solution) and puzzles[2].name.endswith(":4")
