"""Tests against the real D-Wave cloud: skipped unless ``QSUDOKU_QPU=1``.

They need a Leap token in D-Wave's own configuration (``DWAVE_API_TOKEN`` or
``dwave config create``) and spend QPU access time (a few 4x4 calls: well under a
second of QPU time, plus the minimum time limit of three hybrid calls).
"""

import os

import pytest

ENABLED = os.environ.get("QSUDOKU_QPU") == "1"


@pytest.fixture(autouse=True)
def _require_qpu():
    if not ENABLED:
        pytest.skip("real D-Wave tests: set QSUDOKU_QPU=1 (and a Leap token) to run them")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path))
    return tmp_path
