"""``qsudoku generate``: seeded, valid, unique on request, readable in every format."""

from __future__ import annotations

import random
import os

import pytest

from qsudoku.exact.count import count_solutions
from qsudoku.exact.generate import make_puzzle, random_regions, symmetries
from qsudoku.io import Rules, load_puzzles, parse_regions
from qsudoku.commands.generate import FORMATS

from _cli import one_error, run
from qsudoku.commands import generate as generate_cmd
from qsudoku.errors import ConfigError
from qsudoku.exact.generate import pattern_grid, random_grid
from _io_cases import error_line, qsudoku, snapshot


def generate(capsys, tmp_path, *argv, name="g.txt"):
    out = tmp_path / name
    code, stdout, err = run(capsys, "generate", *argv, "-o", out)
    assert code == 0, err
    return out


@pytest.mark.slow
def test_the_same_seed_writes_the_same_files(capsys, tmp_path):
    argv = ("--size", "16", "--fraction", "0.45", "--count", "10", "--seed", "7")
    a = generate(capsys, tmp_path, *argv, name="a.txt")
    b = generate(capsys, tmp_path, *argv, name="b.txt")
    assert a.read_bytes() == b.read_bytes()
    for what in ("solutions", "ids"):
        a_c, b_c = (tmp_path / f"{x}.{what}.txt" for x in "ab")
        assert a_c.read_bytes() == b_c.read_bytes()
    puzzles = load_puzzles(str(a))
    assert len(puzzles) == 10 and len(set(p.givens for p in puzzles)) == 10
    for p in puzzles:
        assert p.size == 16 and sum(1 for d in p.givens if d) == round(0.45 * 256)
        assert p.solution is not None and p.is_solution(p.solution)
    other = generate(capsys, tmp_path, *argv[:-1], "8", name="c.txt")
    assert other.read_bytes() != a.read_bytes()


def test_stdout_is_the_default_and_matches_the_file(capsys, tmp_path):
    f = generate(capsys, tmp_path, "--size", "4", "--count", "3", "--seed", "1")
    code, out, err = run(capsys, "generate", "--size", "4", "--count", "3", "--seed", "1")
    assert code == 0 and out == f.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("argv, read", [
    (("--size", "4"), ()), (("--size", "6", "--box", "3x2"), ("--box", "3x2")),
    (("--size", "8", "--box", "2x4"), ("--box", "2x4")),
    (("--size", "9", "--variant", "x"), ("--variant", "x")),
    (("--size", "6", "--regions", "random"), ()),
    (("--size", "5", "--regions", "random", "--variant", "x"), ("--variant", "x")),
])
def test_unique_puzzles_have_exactly_one_solution(capsys, tmp_path, argv, read):
    f = generate(capsys, tmp_path, *argv, "--unique", "--fraction", "0", "--count", "3",
                 "--seed", "3")
    code, out, err = run(capsys, "count", f, *read)  # the CLI's check: exit 0 = all unique
    assert code == 0 and out.count("unique") == 3, out + err
    rules = Rules(box=(int(read[1][0]), int(read[1][2])) if read[:1] == ("--box",) else None,
                  variant="x" if "x" in read else "standard")
    puzzles = load_puzzles(str(f), rules)
    assert len(puzzles) == 3
    for p in puzzles:
        result = count_solutions(p)
        assert result.unique and list(result.solutions[0]) == list(p.solution)
        assert sum(1 for d in p.givens if d) < p.size * p.size / 2


def test_the_variant_reaches_the_solution(capsys, tmp_path):
    f = generate(capsys, tmp_path, "--variant", "x", "--count", "2", "--seed", "5",
                 name="sudokux9.txt")
    for p in load_puzzles(str(f), Rules(variant="x")):
        assert len(p.units) == 29 and p.is_solution(p.solution)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_reads_back(capsys, tmp_path, fmt):
    count = 1 if fmt == "tuples" else 3
    argv = ("--size", "6", "--box", "3x2", "--count", str(count), "--seed", "11")
    lines = load_puzzles(str(generate(capsys, tmp_path, *argv, name="line.txt")),
                         Rules(box=(3, 2)))
    f = generate(capsys, tmp_path, *argv, "--to", fmt, name=f"out.{fmt}")
    back = load_puzzles(str(f), Rules(box=(3, 2)))
    assert [p.givens for p in back] == [p.givens for p in lines]
    assert all(p.units == q.units for p, q in zip(back, lines))


@pytest.mark.parametrize("size", [9, pytest.param(16, marks=pytest.mark.slow),
                                  pytest.param(25, marks=pytest.mark.slow)])
def test_a_tuple_list_reads_back_at_its_size_for_every_seed(capsys, tmp_path, size):
    """Four givens of a 9x9 may hold no 9 (they were read as 8x8 and solved): the file's
    ``# size N`` line says the size, and the solutions companion pairs up with it."""
    for seed in range(1, 13):
        f = generate(capsys, tmp_path, "--size", str(size), "--fraction", "0.05", "--to",
                     "tuples", "--seed", str(seed), name=f"g{seed}.txt")
        assert f.read_text().startswith(f"# size {size}\n[")
        (p,) = load_puzzles(str(f))
        assert p.size == size and p.solution is not None and p.is_solution(p.solution)
        assert sum(1 for d in p.givens if d) == round(0.05 * size * size)
        (back,) = load_puzzles(f.read_text(), Rules(format="tuples"))  # as an argument too
        assert back.givens == p.givens


def test_a_tuple_list_without_its_size_line_asks_for_size(capsys, tmp_path):
    f = generate(capsys, tmp_path, "--size", "9", "--fraction", "0.05", "--to", "tuples",
                 "--seed", "1")
    f.write_text(f.read_text().split("\n", 1)[1])  # an older file: no size line
    code, out, err = run(capsys, "solve", f, "--sampler", "sat")
    assert code == 2 and out == "" and "pass --size N" in one_error(err)
    code, out, err = run(capsys, "solve", f, "--size", "9", "--sampler", "sat")
    assert code == 0 and "sudoku 9x9" in out


@pytest.mark.slow
@pytest.mark.parametrize("size", [16, 25])
@pytest.mark.parametrize("fmt", ["grid", "tuples"])
def test_large_grids_read_back(capsys, tmp_path, size, fmt):
    """A 16x16 or 25x25 grid's separator lines are wider than any row of cells."""
    argv = ("--size", str(size), "--seed", "1", "--fraction", "0.3")
    line = load_puzzles(str(generate(capsys, tmp_path, *argv, name="line.txt")))
    back = load_puzzles(str(generate(capsys, tmp_path, *argv, "--to", fmt,
                                     name=f"out.{fmt}")))
    assert [p.givens for p in back] == [p.givens for p in line]


@pytest.mark.slow
def test_a_36x36_line_reads_back_with_no_flag(capsys, tmp_path):
    """Above 35 symbols the default alphabet is case-sensitive and one line holds a puzzle."""
    f = generate(capsys, tmp_path, "--size", "36", "--fraction", "0.45", "--count", "2",
                 "--seed", "36")
    (line,) = {len(x) for x in f.read_text().splitlines()}
    puzzles = load_puzzles(str(f))
    assert line == 36 * 36 and [p.size for p in puzzles] == [36, 36]
    assert all(sum(1 for d in p.givens if d) == round(0.45 * 36 * 36) for p in puzzles)
    assert all(p.solution is not None and p.is_solution(p.solution) for p in puzzles)


@pytest.mark.parametrize("fmt", ["line", "tsv"])
def test_random_jigsaws_read_back_with_their_regions(capsys, tmp_path, fmt):
    f = generate(capsys, tmp_path, "--size", "7", "--regions", "random", "--count", "2",
                 "--seed", "4", "--to", fmt, name=f"j.{fmt}")
    puzzles = load_puzzles(str(f))
    assert len({p.units for p in puzzles}) == 2
    for p in puzzles:
        assert {u.kind for u in p.units} == {"row", "column", "region"}
    solutions = (tmp_path / f"j.solutions.{fmt}").read_text().split()
    assert all(p.is_solution([int(ch) for ch in s]) for p, s in zip(puzzles, solutions))


def test_a_fixed_region_map_is_kept_in_grid_format(capsys, tmp_path):
    regions = "aaabbb/aaabbb/cccddd/cccddd/eeefff/eeefff".replace("ddd/cccddd", "dcd/ccdddd")
    f = generate(capsys, tmp_path, "--regions", regions, "--count", "2", "--seed", "2",
                 "--to", "grid", name="j.grid")
    back = load_puzzles(str(f), Rules(regions=parse_regions(regions)))
    solutions = (tmp_path / "j.solutions.grid").read_text().split()
    assert len(back) == 2
    assert all(p.is_solution([int(ch) for ch in s]) for p, s in zip(back, solutions))


@pytest.mark.parametrize("argv, words", [
    (("--to", "tuples", "--count", "2"), ["--count 1"]),
    (("--to", "grid", "--regions", "random"), ["no region map"]),
    (("--fraction", "1.5",), ["--fraction 1.5"]),
    (("--count", "0",), ["--count 0"]),
    (("--size", "7",), ["no box shape"]),
    (("--size", "65",), ["--size 65", "64"]),
])
def test_bad_options_are_one_line(capsys, argv, words):
    code, out, err = run(capsys, "generate", *argv, "--seed", "1")
    assert code == 2
    line = one_error(err)
    assert all(w in line for w in words)


def test_the_shuffle_keeps_every_unit_and_uses_the_symmetries():
    template = Rules(box=(2, 3)).make([0] * 36)
    moves = symmetries(template)
    assert moves and tuple(c * 6 + r for r in range(6) for c in range(6)) not in moves
    grids = {make_puzzle(template, 1.0, random.Random(s), moves=moves).givens for s in range(20)}
    assert len(grids) == 20
    assert all(template.is_solution(g) for g in grids)


@pytest.mark.parametrize("n", [4, 5, 7, 9])
def test_random_regions_are_connected_and_of_size_n(n):
    regions = random_regions(n, random.Random(n))
    assert sorted(regions.count(k) for k in range(n)) == [n] * n
    assert regions != random_regions(n, random.Random(n + 1))
    Rules(regions=regions).make([0] * (n * n))  # a valid jigsaw map
    for k in range(n):
        cells = {i for i, x in enumerate(regions) if x == k}
        seen, todo = set(), [min(cells)]
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            r, q = divmod(c, n)
            todo += [d for d in (c - n, c + n, c - 1 if q else -1, c + 1 if q < n - 1 else -1)
                     if d in cells]
        assert seen == cells


# -- the three files as one: all old or all new, one writer at a time -------------------
OLD = {"g.txt": "OLDP\n", "g.solutions.txt": "OLDS\n", "g.ids.txt": "OLDI\n"}


def _old_files(folder) -> None:
    for name, text in OLD.items():
        (folder / name).write_text(text)


def _files(folder) -> dict:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def _cli(folder, *argv, limit=None):
    """``python -m qsudoku ARGS`` in ``folder``, under a file-size limit of ``limit`` bytes."""
    import os
    import resource
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import qsudoku

    def bounded():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, PYTHONPATH=str(Path(qsudoku.__file__).resolve().parents[1]))
    return subprocess.Popen([sys.executable, "-m", "qsudoku", *map(str, argv)], cwd=folder,
                            env=env, preexec_fn=None if limit is None else bounded,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["tuples", "line"])  # the limit hits the solutions / the puzzles
def test_a_file_size_limit_leaves_the_three_files_all_old(tmp_path, fmt):
    """``(ulimit -f 1; qsudoku generate ... -o g.txt)`` left g.txt new and its companions
    old, so that the puzzles read back with another run's solutions."""
    _old_files(tmp_path)
    proc = _cli(tmp_path, "generate", "--size", "9", "--fraction", "0", "--seed", "1",
                "--to", fmt, "-o", "g.txt", limit=50)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 4, err
    line = one_error(err)
    assert "file too large" in line and "EFBIG" in line
    assert _files(tmp_path) == OLD  # no temporary, no lock file left either


def test_a_second_run_to_the_same_output_is_refused_while_one_holds_it(capsys, tmp_path):
    from qsudoku.experiments.locks import lock, unlock

    _old_files(tmp_path)
    out = tmp_path / "g.txt"
    held = lock(str(out))
    try:
        code, _, err = run(capsys, "generate", "--size", "4", "--seed", "1", "-o", out)
    finally:
        unlock(str(out), held)
    assert code == 2 and "is being written by another qsudoku run" in one_error(err)
    assert _files(tmp_path) == OLD
    code, _, err = run(capsys, "generate", "--size", "4", "--seed", "1", "-o", out)
    assert code == 0, err
    assert sorted(_files(tmp_path)) == sorted(OLD)  # the three new ones, the lock gone
    puzzles = load_puzzles(str(out))
    assert puzzles[0].solution is not None and puzzles[0].is_solution(puzzles[0].solution)


@pytest.mark.slow  # 10 s; the lock itself: test_a_second_run_to_the_same_output_is_refused...
def test_two_runs_to_one_output_never_mix_their_files(capsys, tmp_path):
    """Two ``generate`` runs to one ``-o`` at once mixed their files (1 of 6 tries): the
    three files end as one run wrote them, the other run refused or ran after it."""
    argv = ("generate", "--size", "9", "--count", "20", "--fraction", "0.3")
    expected = []
    for seed in (1, 2):  # what each run writes alone
        folder = tmp_path / f"alone{seed}"
        folder.mkdir()
        generate(capsys, folder, *argv[1:], "--seed", seed)
        expected.append(_files(folder))
    shared = tmp_path / "shared"
    for _ in range(2):
        shared.mkdir()
        procs = [_cli(shared, *argv, "--seed", seed, "-o", "g.txt") for seed in (1, 2)]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0 or (proc.returncode == 2 and "is being written by "
                                            "another qsudoku run" in one_error(err)), err
        assert _files(shared) in expected
        for p in shared.iterdir():
            p.unlink()
        shared.rmdir()


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
