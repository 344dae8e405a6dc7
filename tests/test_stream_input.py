"""Input is read as a stream: answers come before the input ends, memory does not grow
with it, devices and endless inputs are one error line, and a reader that leaves
early (``| head -1``) still gets the exit code of the results.

These tests run ``python -m qsudoku`` in a subprocess (pipes must be real), with
its address space limited so that a regression fails with a MemoryError instead
of exhausting the machine.
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import threading

import pytest

from qsudoku.cli import main
from qsudoku.io import files as io_files
from qsudoku.io import stream as io_stream
from _puzzles import EASY4_SET, SOLVED4

#: A 6x6 jigsaw and its region map, as one line of a file (propagation solves it).
JIGSAW6 = "4...351.6.......2..3.......6.452...1 aaabbbaabbbcadddccddcccedfffeefffeee"
#: Address-space limit of the subprocesses (Python, numpy and numba fit in it).
MEMORY_LIMIT = 2 * 1024 ** 3


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def qsudoku(*argv, **kw) -> subprocess.Popen:
    """``python -m qsudoku ARGV`` with pipes, in a memory-limited subprocess."""
    return subprocess.Popen([sys.executable, "-m", "qsudoku", *map(str, argv)],
                            stdin=kw.pop("stdin", subprocess.DEVNULL), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_limit_memory, **kw)


def readline(stream, timeout: float = 120.0) -> bytes:
    """One line of ``stream``, or ``b"<timeout>"`` if none comes in ``timeout`` s."""
    box = []
    t = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    t.start()
    t.join(timeout)
    return box[0] if box else b"<timeout>"


def _grid(puzzle: str) -> str:
    rows = [" ".join(puzzle[r * 4:r * 4 + 4]) for r in range(4)]
    return "\n".join(rows) + "\n\n"


@pytest.mark.slow
@pytest.mark.parametrize("form", [lambda p: p + "\n", _grid], ids=["lines", "grids"])
def test_first_answer_comes_before_stdin_ends(form):
    proc = qsudoku("solve", "-", "--json", stdin=subprocess.PIPE)
    try:
        answers = []
        for puzzle in EASY4_SET[:2]:
            proc.stdin.write(form(puzzle).encode())
            proc.stdin.flush()  # stdin stays open: the answer must come anyway
            answers.append(json.loads(readline(proc.stdout)))
        proc.stdin.close()
        proc.wait(timeout=120)
        rest, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
    assert [a["puzzle"] for a in answers] == list(EASY4_SET[:2])
    assert all(a["valid"] and a["solution"] == SOLVED4 for a in answers)
    assert rest == b"" and proc.returncode == 0, err


@pytest.mark.slow
def test_dev_zero_is_one_error_line_not_memory_error():
    proc = qsudoku("solve", "/dev/zero")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and out == b""
    assert err.decode().strip() == "qsudoku: error: /dev/zero:1: binary file (NUL bytes), not " \
                                   "puzzle text"


def test_endless_line_is_one_error_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(io_stream, "MAX_LINE_BYTES", 100)
    path = tmp_path / "long.txt"
    path.write_text(EASY4_SET[0] + "\n" + "1" * 150 + "\n" + EASY4_SET[1] + "\n")
    assert main(["solve", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1
    assert err.strip() == f"qsudoku: error: {path}:2: a line longer than 100 bytes is not puzzle text"


@pytest.mark.slow
def test_huge_sweep_grid_is_a_limit_error():
    proc = qsudoku("sweep", EASY4_SET[0], "--grid", "cell=1:2:100000000")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and b"MemoryError" not in err
    assert err.decode().startswith("qsudoku: error: range '1:2:100000000' needs a count")


@pytest.mark.slow
@pytest.mark.parametrize("command", ["solve", "count"])
@pytest.mark.parametrize("first_bad,code", [(False, 0), (True, 2)])
def test_head_keeps_the_exit_code_of_the_results(tmp_path, command, first_bad, code):
    lines = ["11" + "." * 14] * first_bad + list(EASY4_SET) * 200
    path = tmp_path / "many.txt"
    path.write_text("\n".join(lines) + "\n")
    proc = qsudoku(command, path, "--keep-going", "--json")
    first = json.loads(readline(proc.stdout))
    proc.stdout.close()  # the reader leaves: the next answers meet a broken pipe
    proc.wait(timeout=120)
    err = proc.stderr.read().decode()
    assert first["name"].startswith("many.txt:") and proc.returncode == code, err
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert ("given twice" in err) == first_bad


def test_bom_on_stdin_is_accepted(monkeypatch, capsys):
    data = ("\ufeff" + EASY4_SET[0] + "\n").encode("utf-8")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert main(["solve", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solution"] == SOLVED4


def test_bad_utf8_on_stdin_names_the_line(monkeypatch, capsys):
    data = (EASY4_SET[0] + "\n").encode() + b"caf\xe9\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert main(["solve", "-", "--json"]) == 2
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1 and err.strip() == "qsudoku: error: <stdin>:2: not UTF-8 text"


def test_jigsaw_line_as_an_argument_reads_as_in_a_file(tmp_path, capsys):
    path = tmp_path / "jig.txt"
    path.write_text(JIGSAW6 + "\n")
    assert main(["solve", str(path), "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert main(["solve", JIGSAW6, "--json"]) == 0
    from_arg = json.loads(capsys.readouterr().out)
    assert from_arg["kind"] == from_file["kind"] == "jigsaw 6x6"
    assert from_arg["solution"] == from_file["solution"] and from_arg["valid"]


@pytest.mark.parametrize("make,piece", [
    (lambda p: p.write_bytes(b"caf\xe9\n"), "many.solutions.txt:1: not UTF-8 text"),
])
def test_broken_solutions_file_is_one_error_line(tmp_path, capsys, make, piece):
    (tmp_path / "many.txt").write_text(EASY4_SET[0] + "\n")
    make(tmp_path / "many.solutions.txt")
    assert main(["solve", str(tmp_path / "many.txt"), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == f"qsudoku: error: {tmp_path}{os.sep}{piece}"


def test_solutions_are_read_in_step_with_the_puzzles(tmp_path):
    (tmp_path / "p.txt").write_text(f"# header\n{EASY4_SET[0]}\n\n{EASY4_SET[1]}\n")
    (tmp_path / "p.solutions.txt").write_text(f"\n{SOLVED4}\n\n{'4' * 16}\n")
    a, b = io_files.load_puzzles(str(tmp_path / "p.txt"))
    assert "".join(map(str, a.solution)) == SOLVED4
    assert b.solution == (4,) * 16  # read as given (line 4), not checked here
