"""The one experiment runner behind ``qsudoku bench`` and ``qsudoku sweep``.

Tasks (:mod:`qsudoku.experiments.tasks`: puzzle, configuration point, repeat, with stable keys) are
measured by :func:`qsudoku.experiments.measure.measure` (exactly :func:`qsudoku.solving.pipeline.solve`, one
row each).  :func:`run` sends batches of them to :func:`qsudoku.experiments.engine.run_batches`
(in-process, a local Dask cluster, or a remote one) and writes each row as it arrives
through one locked :class:`~qsudoku.experiments.table.RowWriter`; :func:`run_to` opens that writer.

>>> from qsudoku.io import parse_puzzle
>>> p = parse_puzzle("1..." "..2." "...." "...4")
>>> pt = Point("sa", Config().with_overrides(sampler="sa", route={"enabled": False}))
>>> rows = run(make_tasks([(Source.argument("1...", 0), p)], [pt], repeat=2))
>>> [(r["repeat"], r["seed"], r["valid"]) for r in rows]
[(0, 0, True), (1, 1, True)]
"""

from __future__ import annotations

import math
import os
import sys
from typing import Sequence

from qsudoku.config import Config
from qsudoku.experiments.measure import (BROKEN_KINDS, ROW_FIELDS, check_point, columns,  # noqa: F401
                                         measure, run_batch, tts99, warm)
from qsudoku.experiments.tasks import Point, Source, Task, format_value, make_tasks, read_sources  # noqa: F401

__all__ = ["Source", "Point", "Task", "ROW_FIELDS", "BROKEN_KINDS", "measure", "run", "run_to",
           "run_batch", "warm", "read_sources", "make_tasks", "check_point", "tts99", "columns",
           "format_value"]


def _batches(tasks: list[Task], workers: int) -> list[list[Task]]:
    """Consecutive batches: about 8 per worker, at most 16 tasks each (1 in-process)."""
    if workers <= 1:
        size = 1
    else:
        size = max(1, min(16, math.ceil(len(tasks) / (8 * workers))))
    return [tasks[i:i + size] for i in range(0, len(tasks), size)]


def run(tasks: Sequence[Task], writer=None, *, jobs: int = 1, scheduler: str | None = None,
        progress: bool = False, on_start=None) -> list[dict]:
    """Run every task whose key ``writer`` does not have yet; returns the new rows.

    Args:
        tasks: The tasks.
        writer: A :class:`~qsudoku.experiments.table.RowWriter` (rows are written as batches finish;
            its ``done`` keys are skipped), or ``None`` to keep rows in memory only.
        jobs: ``1`` = in this process, without Dask; ``N > 1`` = a local Dask cluster of N
            single-threaded worker processes; ``0`` = one per CPU.
        scheduler: Address of an existing Dask scheduler (overrides ``jobs``; default
            from ``QSUDOKU_SCHEDULER``).
        progress: Show a progress bar on stderr.
        on_start: Called with a one-line description of where the tasks run.

    Raises:
        BackendUnavailableError: The scheduler cannot be reached.
        KeyboardInterrupt: Ctrl-C or SIGTERM; every row written so far is kept.
    """
    from qsudoku.experiments.engine import resolve_scheduler, run_batches

    done = writer.done if writer is not None else set()
    todo = [t for t in tasks if (t.key(),) not in done]
    if not todo:
        return []
    address = resolve_scheduler(scheduler)
    workers = os.cpu_count() or 1 if jobs == 0 else jobs
    batches = _batches(todo, 2 if address else workers)
    configs = list({(t.point.config.sampler.name, repr(sorted(
        t.point.config.sampler.options.items()))): t.point.config for t in todo}.values())
    bar = _bar(len(todo), progress)
    rows: list[dict] = []
    try:
        for _, batch_rows in run_batches(run_batch, batches, jobs=jobs, scheduler=address,
                                         setup=warm, setup_args=(configs,),
                                         on_start=on_start):
            for row in batch_rows:
                if writer is None or writer.write(row) is not False:
                    rows.append(row)
            if bar is not None:
                bar.update(len(batch_rows))
    finally:
        if bar is not None:
            bar.close()
    order = {t.key(): k for k, t in enumerate(todo)}
    return sorted(rows, key=lambda r: order.get(r["key"], len(order)))


def _bar(total: int, show: bool):
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, file=sys.stderr, unit="task", dynamic_ncols=True)


def run_to(out: str | None, tasks: Sequence[Task], axis_keys: Sequence[str] = (), *,
           resume: bool = False, overwrite: bool = False, **kwargs) -> list[dict]:
    """:func:`run` the tasks writing to the results file ``out`` (``None``: in memory).

    The file is held by one locked :class:`~qsudoku.experiments.table.RowWriter` keyed by the
    ``key`` column; ``resume`` runs only what it lacks.  ``kwargs`` go to :func:`run`.

    Raises:
        ConfigError: ``out`` exists without ``resume``/``overwrite``, is locked by another
            run, or was written with other columns (other swept keys).
    """
    from qsudoku.errors import ConfigError
    from qsudoku.experiments.table import RowWriter

    if out is None:
        return run(tasks, None, **kwargs)
    cols = columns(axis_keys)
    with RowWriter(out, ("key",), resume=resume, overwrite=overwrite) as writer:
        if writer.fields is not None and list(writer.fields) != cols:
            gone = [c for c in writer.fields if c not in cols]
            new = [c for c in cols if c not in writer.fields]
            raise ConfigError(f"{out} was written with other columns (only there: "
                              f"{', '.join(gone) or '-'}; only here: {', '.join(new) or '-'}); "
                              "resume it with the same swept keys, or write another file")
        return run(tasks, writer, **kwargs)
