"""Helpers of the input and output tests (``test_io.py``, ``test_generate.py``,
``test_export.py``, ``test_fairness.py``, ``test_bench.py``, ``test_sweep.py``,
``test_outputs.py``): a qsudoku child process with a timeout, for the runs that could hang
(a FIFO with no reader, a long generation), its one error line, a snapshot of a folder's
files, and the puzzles they share."""

from __future__ import annotations

import os
import subprocess
import sys

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

# -- a puzzle silently dropped: '#' as a digit ------------------------------------------------
HASH_FILE = ("#12345678" + "." * 72 + "\n" + "1#2345678" + "." * 72 + "\n")
