"""The one experiment runner behind ``qsudoku bench`` and ``qsudoku sweep``.

Tasks (:mod:`qsudoku.experiments.tasks`) are measured by
:func:`qsudoku.experiments.measure.measure` (exactly :func:`qsudoku.solving.solve`, one row
each); :func:`run` sends batches of them to :func:`qsudoku.experiments.engine.run_batches`
and writes each row as it arrives through one locked
:class:`~qsudoku.experiments.table.RowWriter` (:func:`run_to`).  Tasks are read one batch
ahead of the workers, so memory is bounded by the work in flight, not by the input.

>>> from qsudoku.io import parse_puzzle
>>> p = parse_puzzle("1..." "..2." "...." "...4")
>>> pt = Point("sa", Config().with_overrides(sampler="sa", seed=7))
>>> rows = run(make_tasks([(Source.argument("1...", 0), p)], [pt], repeat=2))
>>> [(r["repeat"], r["seed"], r["valid"]) for r in rows]
[(0, 7, True), (1, 8, True)]
"""

from __future__ import annotations

import itertools
import math
import os
import sys
from typing import Callable, Iterable, Sequence

from qsudoku.config import Config
from qsudoku.errors import ConfigError
from qsudoku.io.output import is_stdout
from qsudoku.experiments.limits import check_limits
from qsudoku.experiments.measure import (BROKEN_KINDS, check_point, columns,  # noqa: F401
                                         measure, run_batch, warm)
from qsudoku.experiments.tasks import (Point, Source, Task, iter_sources,  # noqa: F401
                                       iter_tasks, make_tasks)

__all__ = ["Source", "Point", "Task", "BROKEN_KINDS", "measure", "run", "run_to", "run_batch",
           "warm", "iter_sources", "make_tasks", "iter_tasks", "check_point", "columns"]

_MAX_BATCH = 16


def _batches(tasks: Iterable[Task], workers: int) -> tuple[Iterable[list[Task]], int | None]:
    """Consecutive batches, made as they are consumed, and the number of tasks if the
    input was read ahead whole (else ``None``): one task each in-process; on workers
    about 8 batches per worker of at most 16 tasks."""
    it = iter(tasks)
    if workers <= 1:
        return ([t] for t in it), None
    ahead = list(itertools.islice(it, 8 * workers * _MAX_BATCH))
    if len(ahead) < 8 * workers * _MAX_BATCH:
        size = max(1, min(_MAX_BATCH, math.ceil(len(ahead) / (8 * workers))))
        return [ahead[i:i + size] for i in range(0, len(ahead), size)], len(ahead)
    rest = itertools.chain(ahead, it)
    return iter(lambda: list(itertools.islice(rest, _MAX_BATCH)), []), None


def run(tasks: Iterable[Task], writer=None, *, progress: bool = False, on_start=None,
        points: Sequence[Point] | None = None, keep: bool = True,
        on_row: Callable[[dict], None] | None = None, **cluster) -> list[dict]:
    """Run every task whose key ``writer`` does not have yet; returns the new rows.

    Args:
        tasks: The tasks, consumed as they are needed (a generator streams its input).
        writer: A :class:`~qsudoku.experiments.table.RowWriter` (rows are written as batches finish;
            its ``done`` keys are skipped), or ``None`` to keep rows in memory only.
        progress: Show a progress bar on stderr.
        on_start: Called with a one-line description of where the tasks run.
        points: The points of the tasks (their samplers are warmed on every worker);
            default: those of the first tasks.
        keep: Return the new rows (``False``: return ``[]`` and keep nothing, for long
            streamed runs with a ``writer``).
        on_row: Called with each new row as it is written.
        **cluster: Where the tasks run: the fields of
            :class:`~qsudoku.experiments.engine.Cluster` (``jobs``, ``scheduler``,
            ``worker_memory``...).

    Raises:
        TypeError, ConfigError: ``jobs`` is not an int from 0 to
            :func:`~qsudoku.experiments.limits.max_jobs`.
        BackendUnavailableError: The scheduler cannot be reached.
        MachineError: The machine refused to write a row; every earlier row is kept.
        KeyboardInterrupt: Ctrl-C or SIGTERM; every row written so far is kept.
    """
    from qsudoku.experiments.engine import Cluster, resolve_scheduler, run_batches

    c = Cluster(**cluster)
    address = resolve_scheduler(c.scheduler)
    check_limits(jobs=c.jobs, remote=address is not None)
    done = writer.done if writer is not None else set()
    todo = (t for t in tasks if (t.key(),) not in done)
    workers = (os.cpu_count() or 1) if c.jobs == 0 else c.jobs
    batches, total = _batches(todo, 2 if address else workers)
    batches = iter(batches)
    first = next(batches, None)
    if first is None:
        return []
    batches = itertools.chain([first], batches)
    pts = list(points) if points is not None else [t.point for t in first]
    configs = list({(p.config.sampler.name, repr(sorted(
        p.config.sampler.options.items()))): p.config for p in pts}.values())
    bar = _bar(total, progress)
    rows: list[dict] = []
    order: dict[str, int] = {}

    def numbered(bs):
        for b in bs:
            if keep:
                for t in b:
                    order.setdefault(t.key(), len(order))
            yield b

    try:
        for _, batch_rows in run_batches(run_batch, numbered(batches), setup=warm,
                                         setup_args=(configs,), on_start=on_start,
                                         **{**cluster, "scheduler": address}):
            for row in batch_rows:
                if writer is None or writer.write(row) is not False:
                    if keep:
                        rows.append(row)
                    if on_row is not None:
                        on_row(row)
            if bar is not None:
                bar.update(len(batch_rows))
    finally:
        if bar is not None:
            bar.close()
    return sorted(rows, key=lambda r: order.get(r["key"], len(order)))


def _bar(total: int | None, show: bool):
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, file=sys.stderr, unit="task", dynamic_ncols=True)


def run_to(out: str | None, tasks: Iterable[Task], axis_keys: Sequence[str] = (), *,
           resume: bool = False, overwrite: bool = False,
           on_open: Callable[[], None] | None = None, **kwargs) -> list[dict]:
    """:func:`run` the tasks writing to the results file ``out`` (``None``: in memory;
    ``-``: CSV rows on standard output), held by one locked
    :class:`~qsudoku.experiments.table.RowWriter` keyed by ``key``; ``resume`` runs only
    what it lacks; ``on_open()`` runs once the file is held; ``kwargs`` go to :func:`run`.

    Raises:
        ConfigError: ``out`` exists without ``resume``/``overwrite``, is locked by another
            run, was written with other columns (other swept keys), or has rows that do
            not parse or repeat a key; nothing is changed then.
        MachineError: The machine refused a write; finished rows are kept.
    """
    from qsudoku.experiments.table import RowWriter, StdoutRows

    if out is None:
        if on_open is not None:
            on_open()
        return run(tasks, None, **kwargs)
    if is_stdout(out):
        if resume:
            raise ConfigError("--resume needs a results file: standard output (-o -) "
                              "has no rows to continue")
        writer = StdoutRows(("key",), fields=columns(axis_keys))
    else:
        writer = RowWriter(out, ("key",), resume=resume, overwrite=overwrite,
                           fields=columns(axis_keys))
    with writer:
        if on_open is not None:
            on_open()
        return run(tasks, writer, **kwargs)
