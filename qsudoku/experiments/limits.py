"""The limits of an experiment run, in one home for the command line and the library:
counts beyond them are refused before any work (``jobs=10**6`` must not start a million
worker processes).
"""

from __future__ import annotations

import os

from qsudoku.errors import ConfigError

__all__ = ["MAX_REPEAT", "MAX_JOBS_PER_CPU", "MAX_TASKS", "max_jobs", "check_limits"]

#: Most runs per puzzle and setting.
MAX_REPEAT = 1000
#: Most local worker processes per CPU (``jobs``); a remote cluster has its own.
MAX_JOBS_PER_CPU = 4
#: Most runs per puzzle (settings x backends x budgets x repeats) of one run.
MAX_TASKS = 200_000


def max_jobs() -> int:
    """The most local worker processes a run may start: :data:`MAX_JOBS_PER_CPU` per CPU."""
    return MAX_JOBS_PER_CPU * (os.cpu_count() or 1)


def _count(name: str, value, low: int, high: int | None, why: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < low:
        raise ConfigError(f"{name} {value} must be >= {low}")
    if high is not None and value > high:
        raise ConfigError(f"{name} {value} is too many; at most {high}{why}")


def check_limits(*, repeat: int = 1, jobs: int = 1, remote: bool = False, points: int = 1,
                 names: dict | None = None) -> None:
    """The limits of a run, the same for ``bench``/``sweep`` and the library.

    Args:
        repeat: Runs per puzzle and point (1 .. :data:`MAX_REPEAT`).
        jobs: Local workers (0 = one per CPU .. :func:`max_jobs`).
        remote: The tasks go to an existing scheduler (``jobs`` has no maximum then).
        points: Points (settings, backends, budgets) per puzzle.
        names: How the caller names ``repeat`` and ``jobs`` in messages (``--repeat``).

    Raises:
        TypeError: A count that is not an int.
        ConfigError: A count out of its range.

    >>> check_limits(repeat=2, jobs=1)
    >>> check_limits(jobs=10**6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: jobs 1000000 is too many; at most ... (4 per CPU)
    """
    names = {"repeat": "repeat", "jobs": "jobs", **(names or {})}
    _count(names["repeat"], repeat, 1, MAX_REPEAT)
    _count(names["jobs"], jobs, 0, None if remote else max_jobs(),
           f" ({MAX_JOBS_PER_CPU} per CPU)")
    if points * repeat > MAX_TASKS:
        raise ConfigError(f"{points} settings x {repeat} repeats = {points * repeat} runs per "
                          f"puzzle; at most {MAX_TASKS} in one command (fewer settings, or "
                          "several -o files)")
