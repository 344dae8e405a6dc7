"""``--resume`` (``qsudoku.experiments.resume``): it continues only a file that provably is
qsudoku's (its header is read first) and leaves any other as it is."""

from __future__ import annotations

import os

import pytest
from qsudoku.experiments.results import read_rows

from _file_cases import BENCH, NOT_OURS, easy_file, error_line, leftovers, qsudoku, state


@pytest.mark.slow
@pytest.mark.parametrize("name, make, why", NOT_OURS, ids=[n for n, _, _ in NOT_OURS])
def test_resume_refuses_a_file_that_is_not_ours_and_leaves_it(tmp_path, name, make, why):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    out = tmp_path / name
    out.write_bytes(make(tmp_path))
    before = state(out)
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", out, "--resume")
    assert proc.returncode == 2
    line = error_line(proc)
    assert name in line and why in line, line
    assert state(out) == before and leftovers(tmp_path) == []
    assert not os.path.exists(f"{out}.machine.json")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["r.csv", "r.parquet"])
def test_resume_continues_a_file_of_ours(tmp_path, name):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    puzzles = easy_file(tmp_path)
    assert qsudoku(tmp_path, *BENCH, puzzles, "-o", name).returncode == 0
    proc = qsudoku(tmp_path, *BENCH, puzzles, "-o", name, "--resume", "--repeat", "2")
    assert proc.returncode == 0, proc.stderr
    assert len(read_rows(str(tmp_path / name))) == 2 and leftovers(tmp_path) == []
