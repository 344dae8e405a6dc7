"""The lock of a results file (``qsudoku.experiments.locks``): created exclusively, never
opened; a link, a FIFO or a file that is not a lock is refused and left as it is; a lock left
by a dead run is replaced."""

from __future__ import annotations

import os

import pytest
from qsudoku.experiments.results import read_rows
from qsudoku.experiments.table import lock_path

from _file_cases import BENCH, easy_file, error_line, here, qsudoku, state


def test_lock_a_hard_link_is_refused_and_its_data_kept(here, tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("my data\n")
    os.link(precious, tmp_path / "r.csv.lock")
    before = state(precious)
    proc = here(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.csv")
    assert proc.returncode == 2
    assert error_line(proc) == (f"cannot lock r.csv: {tmp_path}/r.csv.lock exists and is not a "
                                "lock file of qsudoku (a file with 2 names: a hard link); it was "
                                "left as it is (remove it if no run uses it)")
    assert state(precious) == before and not (tmp_path / "r.csv").exists()


@pytest.mark.slow
@pytest.mark.parametrize("target", ["precious.txt", "missing.txt", "fifo"])
def test_lock_a_symbolic_link_is_refused_and_never_followed(tmp_path, target):
    if target == "fifo":
        os.mkfifo(tmp_path / target)
    elif target == "precious.txt":
        (tmp_path / target).write_text("my data\n")
    os.symlink(tmp_path / target, tmp_path / "r.csv.lock")
    before = state(*[p for p in (tmp_path / target,) if os.path.lexists(p)])
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.csv")
    assert proc.returncode == 2
    assert "r.csv.lock exists and is not a lock file of qsudoku (a symbolic link)" in \
        error_line(proc)
    assert state(*[p for p in (tmp_path / target,) if os.path.lexists(p)]) == before
    assert not (tmp_path / "missing.txt").exists() and not (tmp_path / "r.csv").exists()


@pytest.mark.slow
@pytest.mark.parametrize("content, why", [(b"hello, not a pid\n", "it holds other data"),
                                          (None, "a FIFO")])
def test_lock_a_file_that_is_not_a_lock_is_left_alone(tmp_path, content, why):
    lock = tmp_path / "r.csv.lock"
    if content is None:
        os.mkfifo(lock)
    else:
        lock.write_bytes(content)
    before = state(lock)
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.csv")
    assert proc.returncode == 2 and why in error_line(proc)
    assert state(lock) == before


@pytest.mark.slow
@pytest.mark.parametrize("content", [b"999999999\n", b""])
def test_lock_left_by_a_dead_run_is_replaced(tmp_path, content):
    lock = tmp_path / "r.csv.lock"
    lock.write_bytes(content)  # no live process holds it
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.csv")
    assert proc.returncode == 0, proc.stderr
    assert not lock.exists() and len(read_rows(str(tmp_path / "r.csv"))) == 1


def test_lock_is_created_exclusively_never_opened():
    import inspect

    from qsudoku.experiments import locks

    source = inspect.getsource(locks)
    assert "O_EXCL" in source and "ftruncate" not in source
    assert lock_path("/tmp/./x.parquet.partial.csv") == lock_path("/tmp/x.parquet")
