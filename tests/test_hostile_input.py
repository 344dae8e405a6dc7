"""Bad puzzles through the CLI: one readable error line naming file, line and cell; exit 2.

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
from qsudoku.io import Rules, load_puzzles, parse_digits, parse_puzzle
from qsudoku.io import files as io_files

from _cli import one_error, run
from _puzzles import EASY4_SET, ONE_GIVEN4, SEED004, SOLVED4

NO_CANDIDATE = "12.." "..3." "..4." "...."  # r1c3 sees 1, 2 (row) and 3, 4 (column)
NO_PLACE = "...2" ".1.." "..1." "1..."  # 1 has no place in row 1
#: Options that keep a run cheap when a puzzle needs sampling.
FAST = ["--sampler", "random", "--reads", "1", "--no-route", "--no-fallback"]


def write(tmp_path, name, content):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return path


def test_easy_puzzles_are_valid():
    for s in EASY4_SET:
        p = parse_puzzle(s)
        assert p.is_solution([int(ch) for ch in SOLVED4]), s


# -- 1. bad puzzles ----------------------------------------------------------------------
BAD_FILES = [
    # (name, content, pieces the one error line must contain)
    ("short.txt", "1" * 80, ["short.txt:1:", "has 80"]),
    ("long.txt", SEED004 + "1", ["long.txt:1:", "has 82"]),
    ("char.txt", SEED004[:40] + "x" + SEED004[41:], ["char.txt:1:41:", "unknown symbol 'x'",
                                                       "(cell r5c5)"]),
    ("range4.txt", "12.5" + "." * 12, ["range4.txt:1:4:", "unknown symbol '5'", "digits are 1-4",
                                       "(cell r1c4)"]),
    ("range9.txt", SEED004[:5] + "A" + SEED004[6:], ["range9.txt:1:6:", "symbol 'A'", "(cell r1c6)"]),
    ("range_tuples.txt", "[[1, 1, 65], [2, 2, 3]]", ["range_tuples.txt:1:", "value 65 is larger",
                                                           "at most 64"]),
    ("range_grid.txt", "\n".join([" ".join(["13"] + ["."] * 11)] + [" ".join(["."] * 12)] * 11),
     ["range_grid.txt:1:", "unknown symbol '13'", "(cell r1c1)"]),
    ("hex.txt", "0F" + "." * 254, ["hex.txt:1:1:", "writes 0 but never G", "--digits 0-9A-F",
                                   "(cell r1c1)"]),
    ("dup.txt", "22" + SEED004[2:], ["dup.txt:1:", "digit 2 given twice in row 1", "r1c1 and r1c2"]),
    ("dup_box.txt", "1...\n.1..\n....\n....", ["dup_box.txt:1", "given twice in box 1",
                                               "r1c1 and r2c2"]),
    ("jig_count.txt", ONE_GIVEN4 + " aaaabbbbcccccccc",
     ["jig_count.txt:1:", "3 regions, a 4x4 jigsaw needs 4"]),
    ("jig_size.txt", ONE_GIVEN4 + " aaaaabbbccccdddd",
     ["jig_size.txt:1:", "region 1 has 5 cells, expected 4"]),
    ("jig_len.txt", ONE_GIVEN4 + " aaaabbbbccccddd",
     ["jig_len.txt:1:", "region map has 15 cells"]),
    ("mixed.txt", SEED004 + "\n" + EASY4_SET[0], ["mixed.txt:2:", "a 4x4 puzzle in a file of 9x9",
                                              "line 1"]),
    ("empty.txt", "", ["empty.txt:", "no puzzle found"]),
    ("blank.txt", "\n  \n# only a comment\n\t\n", ["blank.txt:", "no puzzle found"]),
    ("fields.txt", f"{SEED004} aabb extra", ["fields.txt:1:", "3 fields"]),
    ("junk.bin", bytes(range(256)) * 8, ["junk.bin:", "binary file"]),
    ("latin1.txt", "caf\xe9\n".encode("latin-1"), ["latin1.txt:1:", "not UTF-8"]),
    ("huge_line.txt", "." * 10 ** 6, ["huge_line.txt:1:", "size 1000 is not supported"]),
    ("tuples.txt", "[[1, 1, 1e999]]", ["tuples.txt:1:", "[row, col, value] triples"]),
    ("tsv.tsv", "name\t" + "1" * 80 + "\t-\t\n", ["tsv.tsv:1:", "has 80"]),
]


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


# -- 2. the machine, caches, configs, outputs, secrets, exact input, parameter values ----
# Each case: the exit code and the one line; nothing half-written left behind.
import errno  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402

import qsudoku  # noqa: E402

_REPO = str(Path(qsudoku.__file__).resolve().parents[1])


def _cli(args, tmp_path, preexec=None, stdout=None):
    env = dict(os.environ, PYTHONPATH=_REPO)
    return subprocess.run([sys.executable, "-m", "qsudoku", *map(str, args)], cwd=tmp_path,
                          env=env, preexec_fn=preexec, stdout=stdout or subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)


def _file_size_limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))


def _only(tmp_path, *names):
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


@pytest.mark.slow
def test_env_file_size_limit_on_an_output_is_exit_4_and_leaves_nothing(tmp_path):
    out = _cli(["qubo", SEED004, "-o", "m.bqm"], tmp_path, _file_size_limit)
    assert out.returncode == 4, out.stderr
    assert one_error(out.stderr) == ("qsudoku: error: cannot write m.bqm: file too large: "
                                     "a file-size limit was reached (EFBIG)")
    _only(tmp_path)  # no m.bqm, no temporary file


@pytest.mark.slow
def test_env_file_size_limit_on_stdout_is_exit_4(tmp_path):
    with open(tmp_path / "out.txt", "wb") as sink:
        out = _cli(["solve", SEED004, "--json"], tmp_path, _file_size_limit, stdout=sink)
    assert out.returncode == 4, out.stderr
    assert one_error(out.stderr).endswith("cannot write standard output: file too large: "
                                          "a file-size limit was reached (EFBIG)")


@pytest.mark.slow
def test_env_closed_stdout_is_exit_4(tmp_path):
    out = _cli(["solve", EASY4_SET[0]], tmp_path, lambda: os.close(1))
    assert out.returncode == 4
    assert one_error(out.stderr).endswith("cannot write standard output: it is closed (EBADF)")


def test_env_disk_full_keeps_the_old_output_and_no_temporary(tmp_path, capsys, monkeypatch):
    from qsudoku.io import output

    target = write(tmp_path, "x.cnf", "old\n")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output.os, "fsync", full)
    code, out, err = run(capsys, "export", SEED004, "--to", "cnf", "-o", target)
    assert code == 4 and out == ""
    assert one_error(err).endswith(f"cannot write {target}: no space left on device (ENOSPC)")
    assert target.read_text() == "old\n"
    _only(tmp_path, "x.cnf")


def test_env_full_stdout_is_exit_4(capsys, monkeypatch):
    class Full:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    code = main(["solve", EASY4_SET[0]])
    err = capsys.readouterr().err
    assert code == 4
    assert one_error(err).endswith("cannot write standard output: no space left on device (ENOSPC)")


def test_env_exit_4_is_in_the_help(capsys):
    assert main(["--help"]) == 0
    assert "4 the machine refused" in " ".join(capsys.readouterr().out.split())


def test_cache_an_unreadable_kernel_entry_is_a_miss(tmp_path, recwarn):
    from qsudoku.samplers import jit

    (tmp_path / "k-1.py311.nbi").write_bytes(b"")
    (tmp_path / "k-1.py311.1.nbc").write_bytes(b"garbage")
    (tmp_path / "other-2.py311.nbi").write_bytes(b"kept")

    class Index:
        _cache_path, _index_name = str(tmp_path), "k-1.py311.nbi"

        def _load_index(self):
            raise EOFError("Ran out of input")

    class Cache:
        _cache_file = Index()

    def load(sig, ctx):
        Cache._cache_file._load_index()

    assert jit.safe_loader(Cache(), load)("sig", None) is None  # numba compiles it anew
    _only(tmp_path, "other-2.py311.nbi")


def test_config_fifo_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "c.toml"
    os.mkfifo(fifo)
    code, out, err = run(capsys, "solve", EASY4_SET[0], "--config", fifo)
    assert code == 2 and one_error(err).endswith(f"{fifo}: a FIFO, not a regular file: a "
                                                 "config must be a file")


@pytest.mark.parametrize("text", ["a = " + "[" * 5000 + "]" * 5000,
                                  "a = " + "{b=" * 3000 + "1" + "}" * 3000,
                                  "[" + ".".join(["t"] * 3000) + "]"])
def test_config_deeply_nested_is_one_line_exit_2(tmp_path, capsys, text):
    path = write(tmp_path, "deep.toml", text + "\n")
    code, out, err = run(capsys, "solve", EASY4_SET[0], "--config", path)
    assert code == 2 and one_error(err).endswith(f"{path}: nested too deeply to read (a config "
                                                 "is a few tables deep)")


def _read_fifo(path, into):
    with open(path, "rb") as f:
        into.append(f.read())


@pytest.mark.parametrize("argv", [["export", SEED004, "--to", "cnf", "-o"],
                                  ["qubo", SEED004, "--to", "json", "-o"]])
def test_output_fifo_is_written_through_not_replaced(tmp_path, capsys, argv):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=_read_fifo, args=(fifo, got))
    reader.start()
    try:
        code, out, err = run(capsys, *argv, fifo)
    finally:
        if reader.is_alive():  # nothing opened the FIFO: let the reader go
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as e:  # ENXIO: the reader has already closed its end
                if e.errno != errno.ENXIO:
                    raise
        reader.join(30)
    assert code == 0, err
    assert fifo.is_fifo() and got and len(got[0]) > 100
    _only(tmp_path, "pipe")


def test_output_link_to_a_fifo_is_refused_and_kept(tmp_path, capsys):
    fifo, link = tmp_path / "pipe", tmp_path / "link.cnf"
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    code, out, err = run(capsys, "export", SEED004, "--to", "cnf", "-o", link)
    assert code == 2 and "it is a symbolic link to a FIFO" in one_error(err)
    assert link.is_symlink() and fifo.is_fifo()
    _only(tmp_path, "pipe", "link.cnf")


def test_secrets_proxy_endpoint_and_headers_are_masked(monkeypatch):
    from qsudoku.samplers import redact as mod

    monkeypatch.setenv("DWAVE_API_PROXY", "http://u:Pr0xyPass@proxy:3128")
    monkeypatch.setenv("DWAVE_API_ENDPOINT", "https://u:EndP0intPass@host/sapi/v2/")
    monkeypatch.setenv("DWAVE_API_HEADERS", "X-Key: HeaderS3cret")
    secrets = mod.known_secrets()
    text = mod.redact("{'endpoint': 'https://u:EndP0intPass@host/sapi/v2/', 'proxy': "
                      "'http://u:Pr0xyPass@proxy:3128', 'headers': 'X-Key: HeaderS3cret'} "
                      "session headers {'X-Key': 'HeaderS3cret'}", secrets)
    for secret in ("Pr0xyPass", "EndP0intPass", "HeaderS3cret"):
        assert secret not in text
    assert "@host/sapi/v2/" in text and "<token>" in text


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


def test_parameter_values_are_toml_values():
    from qsudoku.commands.common import parse_key_values

    got = parse_key_values(["stop_at_ground=false", "t=1e-3", 's="text"', "b=[0.5, 4.0]",
                            "order=fewest", "sa.num_sweeps=50", "n=10**9", "x=1\nk=2"],
                           "--param")
    assert got == {"stop_at_ground": False, "t": 0.001, "s": "text", "b": [0.5, 4.0],
                   "order": "fewest", "sa.num_sweeps": 50, "n": "10**9", "x": "1\nk=2"}


def test_parameter_a_bad_boolean_names_the_parameter(capsys):
    code, out, err = run(capsys, "solve", EASY4_SET[0], "--sampler", "swap", "--no-route",
                         "--param", "stop_at_ground=nonsense")
    assert code == 2 and "stop_at_ground" in one_error(err)


def test_missing_matplotlib_names_the_extra(tmp_path, capsys, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run(capsys, "show", EASY4_SET[0], "-o", tmp_path / "g.png")
    assert code == 3 and one_error(err).endswith('pip install -e ".[bench]" (from the repository\'s root)')
    _only(tmp_path)


def test_missing_pyarrow_names_the_extra():
    from qsudoku.cli import optional_import_error

    e = ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")
    assert str(optional_import_error(e)) == (".parquet files need pyarrow, which is not "
                                             "installed: pip install -e \".[bench]\" "
                                             "(from the repository's root)")
    assert optional_import_error(ImportError("cannot import name 'x'")) is None
