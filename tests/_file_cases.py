"""Helpers of the tests of files around a run (``test_locks.py``, ``test_resume.py``,
``test_table.py``, ``test_targets.py``, ``test_reading.py``, ``test_embedding.py``,
``test_kernel_cache.py``): a qsudoku child process with a timeout for a run that could hang
(FIFOs, huge files) and the same run in-process for one that cannot, its one error line, what
a path is (kind, bytes, mtime, links; read without following a link or opening a FIFO), and
the locks, temporaries and journals a run left.  FIFOs are made with ``os.mkfifo`` in
temporary directories and large files are sparse (``truncate``).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from _cli import run_in
from _puzzles import EASY4, ONE_GIVEN4

BENCH = ("bench", "--sampler", "random", "--reads", "1", "--rules", "none", "--quiet")

#: Seconds a run may take before a test calls it hung (a start of Python and qsudoku).
TIMEOUT = 120


def qsudoku(tmp_path, *args, timeout=TIMEOUT):
    """``python -m qsudoku ARGS`` in ``tmp_path`` (killed after ``timeout`` seconds)."""
    env = dict(os.environ, QSUDOKU_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-m", "qsudoku", *map(str, args)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=timeout)


def python(tmp_path, code, *args, timeout=TIMEOUT):
    """``python -c CODE ARGS`` (killed after ``timeout`` seconds)."""
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def here(capsys, monkeypatch):
    """:func:`qsudoku` run in this process (:func:`_cli.run_in`), for a run that cannot hang."""
    def call(tmp_path, *args):
        return run_in(capsys, monkeypatch, tmp_path, *args,
                      env={"QSUDOKU_CACHE_DIR": str(tmp_path / "cache")})
    return call


def error_line(proc) -> str:
    """The one ``qsudoku: error:`` line of a finished run (fails if it said more)."""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qsudoku: error: "), proc.stderr
    return lines[0][len("qsudoku: error: "):]


def state(*paths) -> dict:
    """What each path is: kind, bytes (of a regular file), mtime and link count, read
    without following a link and without opening a FIFO."""
    out = {}
    for p in paths:
        st = os.lstat(p)
        small = stat.S_ISREG(st.st_mode) and st.st_size < 1 << 20  # not a sparse 10 GB
        data = open(p, "rb").read() if small else None
        out[str(p)] = (stat.S_IFMT(st.st_mode), data, st.st_mtime_ns, st.st_nlink, st.st_size)
    return out


def leftovers(folder) -> list[str]:
    """Locks, temporaries and journals a run left in ``folder``."""
    return sorted(n for n in os.listdir(folder)
                  if n.endswith((".lock", ".tmp", ".partial.csv")))


def easy_file(tmp_path, name="easy.txt"):
    path = tmp_path / name
    path.write_text(EASY4 + "\n")
    return path


# -- 1. a file is replaced only when it is provably ours ------------------------------------
def _parquet_bytes(tmp_path) -> bytes:
    pytest.importorskip("pyarrow")
    import pandas as pd

    path = tmp_path / "made.parquet"
    pd.DataFrame({"key": ["a"], "valid": [True]}).to_parquet(path)
    data = path.read_bytes()
    path.unlink()
    return data

NOT_OURS = [
    ("notes.csv", lambda tmp: b"my important notes, no newline at the end",
     "its first line is not a complete header line qsudoku writes"),
    ("parquet.csv", _parquet_bytes, "its first line is not a complete header line"),
    ("empty.csv", lambda tmp: b"", "it is empty"),
    ("table.csv", lambda tmp: b"a,b\n1,2\n", "it has no column key"),
    ("header.csv", lambda tmp: b"key,status", "its first line is not a complete header line"),
    ("text.parquet", lambda tmp: b"key,status\r\n", "not a Parquet file pyarrow reads"),
]


@pytest.fixture(scope="module")
def entry_name(tmp_path_factory) -> str:
    """The file name of the embedding-cache entry of ``ONE_GIVEN4``'s model (one ``embed``)."""
    folder = tmp_path_factory.mktemp("embed")
    proc = qsudoku(folder, "embed", ONE_GIVEN4, "--rules", "none", "--time-budget", "5", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    (entry,) = (folder / "cache" / "embeddings").glob("*.json")
    return entry.name
