"""The files qsudoku reads without being named by the user (``qsudoku.io.reading``): the
solutions beside a puzzle file and the machine record are opened without blocking, checked
to be regular files and read with a bound."""

from __future__ import annotations

import os

import pytest
from qsudoku.experiments.results import read_rows

from _file_cases import BENCH, easy_file, error_line, qsudoku, state


# -- 2. files qsudoku opens on its own --------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("command", ["solve", "count"])
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_solutions_beside_the_input_that_are_not_a_file_are_skipped(tmp_path, command, kind):
    puzzles = easy_file(tmp_path, "p.txt")
    sol = tmp_path / "p.solutions.txt"
    os.mkfifo(sol) if kind == "fifo" else sol.mkdir()
    before = state(puzzles, sol)
    proc = qsudoku(tmp_path, command, "p.txt", timeout=60)
    assert proc.returncode == 0, proc.stderr
    what = "a FIFO" if kind == "fifo" else "a directory"
    assert proc.stderr.strip() == (f"qsudoku:0: SkippedFileWarning: cannot read the solutions "
                                   f"file p.solutions.txt: it is {what}, not a regular file; the "
                                   "puzzles are read without known solutions")
    assert state(puzzles, sol) == before


@pytest.mark.slow
def test_solutions_as_a_link_to_a_huge_file_are_read_with_a_bound(tmp_path):
    easy_file(tmp_path, "p.txt")
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(10 * 1024 ** 3)  # sparse: no disk used
    os.symlink(big, tmp_path / "p.solutions.txt")
    before = state(big)
    proc = qsudoku(tmp_path, "solve", "p.txt", timeout=60)
    assert proc.returncode == 2  # one line of at most MAX_LINE_BYTES is read, not 10 GB
    assert error_line(proc) == "p.solutions.txt:1: binary file (NUL bytes), not puzzle text"
    assert state(big) == before


@pytest.mark.slow
def test_machine_record_that_is_a_fifo_is_left_alone(tmp_path):
    fifo = tmp_path / "m.csv.machine.json"
    os.mkfifo(fifo)
    before = state(fifo)
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "m.csv", timeout=60)
    assert proc.returncode == 0
    assert proc.stderr.strip() == ("qsudoku: warning: m.csv.machine.json is a FIFO, not a "
                                   "regular file; the machine record is not written")
    assert state(fifo) == before and len(read_rows(str(tmp_path / "m.csv"))) == 1
