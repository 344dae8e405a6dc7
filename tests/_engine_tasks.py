"""Batch functions for tests/test_engine.py, importable by Dask workers started as
separate processes (they run with this directory on ``PYTHONPATH``)."""

from __future__ import annotations

import os
import time

#: Arguments of every :func:`setup` call in this process.
SETUPS: list = []


def setup(tag) -> None:
    """Record the call (a worker's warm-up)."""
    SETUPS.append(tag)


def failing_setup() -> None:
    raise RuntimeError("warm-up failed")


def where(batch: list) -> list[dict]:
    """One row per item: the item, this process, its numba threads and setup calls."""
    return [{"key": item, "pid": os.getpid(), "numba": os.environ.get("NUMBA_NUM_THREADS"),
             "setups": len(SETUPS)} for item in batch]


def sleepy(batch: list, seconds: float = 0.3) -> list[dict]:
    """Sleep, then one row per item."""
    time.sleep(seconds)
    return [{"key": item, "pid": os.getpid()} for item in batch]


def boom(batch: list) -> list:
    if 3 in batch:
        raise ZeroDivisionError("batch 3 is a bug")
    return list(batch)


def hog(batch: list) -> list:
    """Touch ``batch[0]`` MB of memory and hold it (a worker past its memory limit)."""
    block = bytearray(batch[0] * 2**20)
    block[::4096] = b"x" * len(block[::4096])
    time.sleep(30)
    return [len(block)]
