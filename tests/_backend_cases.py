"""Helpers of the backend tests (``test_dwave_cloud.py``, ``test_samplers.py``,
``test_time_limits.py``, ``test_exact_backends.py``, ``test_budget.py``,
``test_worker_memory.py``): a qsudoku child process with a D-Wave environment of the
test's own, an endpoint that never answers, and the puzzles and models they share.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _servers import mute_listener

ROOT = Path(__file__).resolve().parents[1]

FOUR = "1......2........"  # 4x4

TOKEN = "SENTINEL-" + "5eb7" * 12  # token-shaped: must never be shown

#: A hang guard for the commands that used to block: far above what they take now.
HANG_GUARD = 240


def qsudoku(*argv, env=None):
    """Run the CLI in a child process (so a regression hangs only until HANG_GUARD)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("DWAVE_")}
    full.update(PYTHONPATH=str(ROOT), **(env or {}))
    p = subprocess.run([sys.executable, "-m", "qsudoku", *map(str, argv)], capture_output=True,
                       text=True, env=full, timeout=HANG_GUARD, cwd=ROOT)
    assert "Traceback" not in p.stdout + p.stderr
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def dwave_env(tmp_path):
    """A D-Wave environment of the test's own: an empty config, no token, a private cache."""
    empty = tmp_path / "dwave.conf"
    empty.write_text("")
    return {"DWAVE_CONFIG_FILE": str(empty), "QSUDOKU_CACHE_DIR": str(tmp_path / "cache"),
            "HOME": str(tmp_path)}


@pytest.fixture
def black_hole():
    """A TCP server on 127.0.0.1 that accepts every connection and never answers."""
    with mute_listener() as port:
        yield f"http://127.0.0.1:{port}/sapi"

HARD = "........2..8.1.9..5....3.4....1.93...6..3..8...37......4......53.1.7.8..2........"

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def _model_with(bias):
    from qsudoku.io import parse_puzzle
    from qsudoku.model.propagate import propagate
    from qsudoku.model.qubo import build_model

    model = build_model(propagate(parse_puzzle(FOUR), rules=()))
    model.bqm.set_linear((0, 1, 2), bias)
    return model
