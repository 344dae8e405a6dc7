"""Red-team round 5 (issue 44): outputs, input reading, bounded work and clear errors.

Each case checks the exit code, the one line said and that nothing was lost (an input,
a config or an earlier output keeps its bytes).  Runs that could hang (a FIFO with no
reader, a long generation) go through a subprocess with a timeout, so that a regression
fails instead of hanging; FIFOs are made with ``os.mkfifo`` in ``tmp_path``.  Bounded
work is checked by behaviour (a ``--time-budget`` that stops a run with its message and
writes nothing), not by timing.
"""

from __future__ import annotations

import io
import os
import pty
import random
import subprocess
import sys

import pytest

from qsudoku import Config
from qsudoku.commands import generate as generate_cmd
from qsudoku.errors import ConfigError, PuzzleFormatError
from qsudoku.exact.generate import (make_puzzle, pattern_grid, random_grid, random_regions,
                                    region_letters, symmetries)
from qsudoku.experiments.fairness import fairness
from qsudoku.io import Rules, load_puzzles, parse_puzzle
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.symbols import MAX_SIZE

from _cli import one_error, run

EASY = "12.434.2.1.3..21"  # propagation solves it
TWO = "..343412..434321"  # two solutions
TIMEOUT = 60


def qsudoku(tmp_path, *args, timeout=TIMEOUT, **kw):
    """``python -m qsudoku ARGS`` in ``tmp_path`` (killed after ``timeout`` seconds)."""
    env = dict(os.environ, QSUDOKU_CACHE_DIR=str(tmp_path / "cache"))
    kw.setdefault("capture_output", "stdout" not in kw)
    return subprocess.run([sys.executable, "-m", "qsudoku", *map(str, args)], cwd=tmp_path,
                          env=env, text=True, timeout=timeout, **kw)


def error_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("qsudoku: error: "), proc.stderr
    return lines[-1][len("qsudoku: error: "):]


def snapshot(folder) -> dict:
    """Every regular file of ``folder`` with its bytes (other kinds by name only)."""
    out = {}
    for name in sorted(os.listdir(folder)):
        p = os.path.join(folder, name)
        out[name] = open(p, "rb").read() if os.path.isfile(p) and not os.path.islink(p) \
            else os.path.isdir(p)
    return out


# -- data loss: every output is checked before any is written ---------------------------------
@pytest.mark.parametrize("companion", ["p.solutions.txt", "p.ids.txt"])
def test_generate_a_companion_that_is_a_directory_replaces_nothing(capsys, tmp_path, companion):
    for name in ("p.txt", "p.solutions.txt", "p.ids.txt"):
        (tmp_path / name).write_text(f"old {name}\n")
    (tmp_path / companion).unlink()
    (tmp_path / companion).mkdir()
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "generate", "--seed", "1", "-o", tmp_path / "p.txt")
    assert code == 2 and out == ""
    assert one_error(err) == f"qsudoku: error: cannot write {tmp_path / companion}: it is a directory"
    assert snapshot(tmp_path) == before


def test_bench_input_named_like_the_summary_is_not_overwritten(capsys, tmp_path):
    puzzles = tmp_path / "r.summary.csv"
    puzzles.write_text(EASY + "\n")
    code, out, err = run(capsys, "bench", puzzles, "--sampler", "sa", "--reads", "3",
                         "-o", tmp_path / "r.csv")
    assert code == 2
    assert one_error(err) == (f"qsudoku: error: -o {tmp_path / 'r.csv'}: {puzzles} is also "
                              f"an input of this run ({puzzles}); write the results to "
                              "another file")
    assert puzzles.read_text() == EASY + "\n" and sorted(os.listdir(tmp_path)) == ["r.summary.csv"]


def test_sweep_config_named_like_the_summary_is_not_overwritten(capsys, tmp_path):
    config = tmp_path / "c.summary.json"
    config.write_text('[sampler]\nname = "sa"\n')
    code, out, err = run(capsys, "sweep", EASY, "--config", config, "--grid", "cell=1,2",
                         "-o", tmp_path / "c.csv", "--quiet")
    assert code == 2 and "c.summary.json is also an input of this run" in one_error(err)
    assert config.read_text() == '[sampler]\nname = "sa"\n'
    assert sorted(os.listdir(tmp_path)) == ["c.summary.json"]


# -- a puzzle silently dropped: '#' as a digit ------------------------------------------------
HASH_FILE = ("#12345678" + "." * 72 + "\n" + "1#2345678" + "." * 72 + "\n")


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


# -- hangs: FIFOs among the outputs ------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("fifo", ["p.solutions.txt", "p.ids.txt"])
def test_generate_a_companion_fifo_is_refused_before_writing(tmp_path, fifo):
    os.mkfifo(tmp_path / fifo)
    proc = qsudoku(tmp_path, "generate", "--seed", "1", "-o", "p.txt")
    assert proc.returncode == 2
    assert error_line(proc) == (f"cannot write {fifo}: it is a FIFO, not a regular file "
                                "(qsudoku writes the companions of p.txt only to regular "
                                "files); nothing was written")
    assert set(os.listdir(tmp_path)) - {"cache"} == {fifo}


@pytest.mark.slow
@pytest.mark.parametrize("command", ["bench", "sweep"])
@pytest.mark.parametrize("fifo", ["r.summary.json", "r.summary.csv"])
def test_experiment_a_summary_fifo_is_refused_before_any_row(tmp_path, command, fifo):
    os.mkfifo(tmp_path / fifo)
    extra = ["--sampler", "random", "--reads", "1"] if command == "bench" else \
        ["--grid", "cell=1,2", "--reads", "1"]
    proc = qsudoku(tmp_path, command, EASY, *extra, "-o", "r.csv", "--quiet")
    assert proc.returncode == 2
    assert error_line(proc).startswith(f"cannot write {fifo}: it is a FIFO, not a regular file")
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.slow
def test_an_output_fifo_with_no_reader_is_refused_not_waited_for(tmp_path):
    os.mkfifo(tmp_path / "out.cnf")
    proc = qsudoku(tmp_path, "export", EASY, "-o", "out.cnf")
    assert proc.returncode == 2
    assert error_line(proc) == ("cannot write out.cnf: it is a FIFO with no reader (start the "
                                "reader first, or write to a regular file)")


@pytest.mark.slow
def test_generate_to_standard_output_still_works(tmp_path):
    proc = qsudoku(tmp_path, "generate", "--seed", "1", "--size", "4", "-o", "-")
    assert proc.returncode == 0 and len(proc.stdout.strip()) == 16


# -- unbounded work ------------------------------------------------------------------------------
@pytest.mark.slow
def test_generate_64x64_starts_from_a_pattern_and_reads_back(tmp_path):
    proc = qsudoku(tmp_path, "generate", "--size", "64", "--fraction", "0.9", "--seed", "1",
                   "-o", "p.txt", "--time-budget", "120", timeout=180)
    assert proc.returncode == 0, proc.stderr
    (p,) = load_puzzles(str(tmp_path / "p.txt"))
    assert p.size == 64 and p.is_solution(p.solution)
    assert sum(1 for d in p.givens if d) == round(0.9 * 64 * 64)


def test_pattern_grid_fills_every_box_shape_and_not_a_jigsaw():
    for n, box in ((36, (6, 6)), (40, (5, 8)), (64, (8, 8)), (28, (4, 7))):
        p = Rules(box=box).make([0] * (n * n))
        assert p.is_solution(pattern_grid(p))
    assert pattern_grid(Rules(variant="x").make([0] * 81)) is None


@pytest.mark.slow
def test_generate_unique_36_stops_at_its_time_limit_with_progress(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(generate_cmd, "QUIET_SECONDS", 0.0)
    out = tmp_path / "u.txt"
    code, stdout, err = run(capsys, "generate", "--unique", "--size", "36", "--fraction", "0",
                            "--seed", "1", "--time-budget", "2", "-o", out)
    assert code == 1
    lines = err.strip().splitlines()
    assert lines[-1] == ("qsudoku: error: generate stopped at --time-budget 2 s while making "
                         "puzzle 1 of 1; nothing was written")
    assert lines[0].startswith("qsudoku: generate: puzzle 1 of 1: searching a random sudoku "
                               "36x36 (6x6 boxes) grid, attempt 1 of 8")
    assert os.listdir(tmp_path) == []


def test_unique_removal_reports_its_progress():
    said = []
    p = make_puzzle(Rules(box=(2, 2)).make([0] * 16), 0.0, 1, unique=True, progress=said.append)
    assert said[0] == "searching a random sudoku 4x4 (2x2 boxes) grid, attempt 1 of 8"
    assert "removing givens, 0 of 16 cells tried" in said and p.is_solution(p.solution)


@pytest.mark.slow
def test_generate_a_big_random_jigsaw_says_its_search_and_stops_at_the_limit(tmp_path):
    proc = qsudoku(tmp_path, "generate", "--regions", "random", "--size", "28", "--seed", "1",
                   "--time-budget", "3", "-o", "j.txt", timeout=120)
    assert proc.returncode == 1
    assert "qsudoku: generate: puzzle 1 of 1: making a random 28x28 region map" in proc.stderr
    assert error_line(proc).startswith("generate stopped at --time-budget 3 s")
    assert not (tmp_path / "j.txt").exists()


@pytest.mark.slow
def test_fairness_max_solutions_is_capped_and_timed(capsys):
    code, out, err = run(capsys, "fairness", TWO, "--max-solutions", "100000000")
    assert code == 2 and one_error(err) == ("qsudoku: error: --max-solutions 100000000 must be "
                                            "between 1 and 100,000")
    code, out, err = run(capsys, "fairness", "." * 81, "--max-solutions", "100000",
                         "--time-budget", "1")
    assert code == 2 and out == ""
    assert "the enumeration of the solutions stopped at its time limit (1 s, --time-budget)" \
        in one_error(err)


def test_fairness_refuses_an_impossible_read_count_before_allocating():
    p = parse_puzzle(TWO)
    with pytest.raises(ConfigError, match=r"reads = 1,000,000,000,000 is above the most "
                                          r"accepted, 10,000,000"):
        fairness(p, Config().with_overrides(sampler="sa"), reads=10**12, seed=1)


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


@pytest.mark.slow
@pytest.mark.parametrize("fmt, head", [("cnf", "c "), ("lp", "\\ "), ("mzn", "% "),
                                       ("tptp", "% ")])
def test_text_exports_go_to_a_terminal(tmp_path, fmt, head):
    leader, follower = pty.openpty()
    try:
        proc = qsudoku(tmp_path, "export", EASY, "--rules", "none", "--to", fmt, "-o", "-",
                       stdout=follower, stderr=subprocess.PIPE)
        os.close(follower)
        follower = -1
        data = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 0, proc.stderr
    assert data.decode().startswith(head)


@pytest.mark.slow
def test_binary_export_is_still_refused_on_a_terminal(tmp_path):
    leader, follower = pty.openpty()
    try:
        proc = qsudoku(tmp_path, "export", EASY, "--to", "bqm", "-o", "-",
                       stdout=follower, stderr=subprocess.PIPE)
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2 and "the format is binary" in proc.stderr


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


def test_fairness_with_the_exact_sampler_passes_no_num_reads(capsys):
    code, out, err = run(capsys, "fairness", TWO, "--sampler", "exact", "--seed", "1")
    assert code == 0 and err == ""
    assert "2 solutions; exact:" in out and "2 valid" in out


def test_fairness_keep_going_reports_a_bad_line_and_goes_on(capsys, tmp_path):
    path = tmp_path / "f.txt"
    path.write_text(f"{TWO}\nxx\n{TWO}\n")
    code, out, err = run(capsys, "fairness", path, "--sampler", "sa", "--reads", "5",
                         "--seed", "1", "--keep-going")
    assert code == 2
    assert [ln.split()[0] for ln in out.splitlines() if ln.startswith("f.txt")] == \
        ["f.txt:1", "f.txt:3"]
    assert one_error(err).startswith(f"qsudoku: error: {path}:2: a puzzle line has n*n symbols")
    code, out, err = run(capsys, "fairness", path, "--sampler", "sa", "--reads", "5")
    assert code == 2 and out.count("f.txt:1") == 1 and "f.txt:3" not in out


# -- internal errors -------------------------------------------------------------------------------
def test_load_puzzles_refuses_a_stdin_that_is_no_stream():
    with pytest.raises(TypeError, match=r"stdin must be None or a readable file object"):
        load_puzzles("-", stdin=object())
    assert len(load_puzzles("-", stdin=io.StringIO(EASY + "\n"))) == 1


def test_a_puzzle_alphabet_of_the_wrong_length_is_refused():
    with pytest.raises(PuzzleFormatError, match="alphabet '12' has 2 symbols, a 4x4 grid needs 4"):
        Puzzle.standard([0] * 16, alphabet="12")


def test_generate_helpers_take_seeds_and_refuse_bad_arguments():
    template = Rules().make([0] * 81)
    assert make_puzzle(template, 0.5, 3) == make_puzzle(template, 0.5, random.Random(3))
    fresh = make_puzzle(template, 0.5, None)
    assert fresh.is_solution(fresh.solution)
    with pytest.raises(ConfigError, match="a jigsaw's size n must be an int >= 2, not str '9'"):
        random_regions("9", random.Random(1))
    with pytest.raises(TypeError, match="puzzle must be a Puzzle, not NoneType"):
        symmetries(None)
    with pytest.raises(ConfigError, match="moves must be cell maps of a 9x9 grid"):
        random_grid(template, random.Random(1), moves=[(0,)])
    with pytest.raises(ConfigError, match="rng must be a random.Random, an int seed or None"):
        make_puzzle(template, 0.5, "x")
