"""The one experiment runner behind ``qsudoku bench`` and ``qsudoku sweep``.

A :class:`Task` is (puzzle, configuration :class:`Point`, repeat).  Its :meth:`Task.key`
is stable and content-derived: where the puzzle comes from (a file's real path and the
puzzle's position in it, or a hash of an argument's text), the point's key (backend,
swept setting, budget) and the repeat; so ``--resume`` never confuses two puzzles of
two files with the same name, or two arguments.  Each task is measured by
:func:`measure`, which runs exactly :func:`qsudoku.pipeline.solve` with the point's
configuration and turns the :class:`~qsudoku.result.Result` into one row of
:data:`ROW_FIELDS` (plus the swept keys).  :func:`run` sends batches of tasks to
:func:`qsudoku.engine.run_batches` (in-process, a local Dask cluster or a remote one)
and writes each row as it arrives through one locked
:class:`~qsudoku.runlog.RowWriter`.

>>> from qsudoku.io import parse_puzzle
>>> p = parse_puzzle("1..." "..2." "...." "...4")
>>> task = Task(p, Source.argument("1...", 0), Point("sa", Config().with_overrides(
...     sampler="sa", route={"enabled": False})), repeat=0)
>>> row = measure(task)
>>> row["sampler"], row["valid"], row["num_reads"], row["seed"], row["key"] == task.key()
('sa', True, 50, 0, True)
"""

from __future__ import annotations

import hashlib
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from .config import Config
from .errors import ContradictionError, QSudokuError
from .puzzle import UNIT_KINDS, Puzzle
from .result import Result, jsonable

__all__ = ["Source", "Point", "Task", "ROW_FIELDS", "BROKEN_KINDS", "measure", "run", "run_to",
           "run_batch", "warm", "read_sources", "make_tasks", "check_point", "tts99", "columns",
           "format_value"]

#: Constraint kinds counted in the ``broken_<kind>`` columns.
BROKEN_KINDS = ("cell",) + UNIT_KINDS
#: Columns of a row, in order (the swept keys of a sweep come before ``params``).
ROW_FIELDS = (
    "key", "set", "index", "puzzle", "size", "kind", "sampler", "setting", "budget", "repeat",
    "seed", "status", "route", "solved_by", "valid", "matches_solution", "success_prob",
    "num_reads", "num_valid", "energy", "min_energy", "mean_energy",
    *(f"broken_{k}" for k in BROKEN_KINDS), "broken_total", "chain_break_fraction", "t_read",
    "tts99", "wall", "t_propagate", "t_build", "t_sample", "t_decode", "t_fallback",
    "t_compile", "num_variables", "num_interactions", "rounds", "restarts", "w_cell", "w_row",
    "w_column", "w_box", "w_extra", "params", "info", "error")


def tts99(t_read: float, p: float, target: float = 0.99) -> float:
    """Time to solution: ``t_read * ln(1 - target) / ln(1 - p)``, at least one read.

    Args:
        t_read: Seconds per read.
        p: Success probability per read.
        target: Confidence of having seen at least one valid read.

    >>> round(tts99(0.01, 0.5), 6)
    0.066439
    >>> tts99(0.01, 1.0), tts99(0.01, 0.999), tts99(0.01, 0.0)
    (0.01, 0.01, inf)
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"success probability {p!r} is not in [0, 1]")
    if p == 0.0:
        return math.inf
    if p == 1.0:
        return float(t_read)
    return float(t_read) * max(1.0, math.log(1.0 - target) / math.log(1.0 - p))


@dataclass(frozen=True)
class Source:
    """Where a puzzle comes from: the ``set`` label of its rows, its ``index`` in its input,
    and ``ref``, the stable part of its task keys."""

    set: str
    index: int
    ref: str

    @classmethod
    def file(cls, path: str, index: int, label: str) -> "Source":
        """Puzzle ``index`` of the file ``path`` (keyed by the file's real path)."""
        return cls(label, index, f"{os.path.realpath(path)}:{index}")

    @classmethod
    def argument(cls, text: str, index: int, label: str = "args") -> "Source":
        """Puzzle ``index`` of a command-line argument or stdin (keyed by a hash of the text)."""
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return cls(label, index, f"arg:{digest}:{index}")


@dataclass(frozen=True)
class Point:
    """A configuration point: a backend label, the config :func:`solve` runs with, the
    swept values (``setting``) and a wall-time ``budget`` (``None``: the config's own)."""

    label: str
    config: Config
    setting: tuple = ()
    budget: float | None = None

    @property
    def setting_text(self) -> str:
        """``"cell=1 num_sweeps=10"`` (``"default"`` when nothing is swept)."""
        return " ".join(f"{k}={format_value(v)}" for k, v in self.setting) or "default"

    def key(self) -> str:
        """The point's part of a task key."""
        budget = "" if self.budget is None else repr(float(self.budget))
        return f"{self.label}|{self.setting_text}|{budget}"


@dataclass(frozen=True)
class Task:
    """One measurement: a puzzle, where it comes from, a point and a repeat."""

    puzzle: Puzzle = field(repr=False)
    source: Source
    point: Point
    repeat: int = 0

    def key(self) -> str:
        """Stable, content-derived identity of the task's row (the resume key)."""
        return f"{self.source.ref}|{self.point.key()}|{self.repeat}"


def format_value(v) -> str:
    """A swept value as text: ``0.5``, ``(1,9)``, ``default`` for ``None``."""
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (tuple, list)):
        return "(" + ",".join(format_value(x) for x in v) + ")"
    return "default" if v is None else str(v)


def columns(axis_keys: Sequence[str] = ()) -> list[str]:
    """Row columns for these swept keys (they go before ``params``).

    >>> columns(["cell", "num_sweeps"])[-6:]
    ['w_extra', 'cell', 'num_sweeps', 'params', 'info', 'error']
    >>> columns()[-3:]
    ['params', 'info', 'error']
    """
    extra = [k for k in axis_keys if k not in ROW_FIELDS]
    at = ROW_FIELDS.index("params")
    return [*ROW_FIELDS[:at], *extra, *ROW_FIELDS[at:]]


# -- measuring one task ------------------------------------------------------------------

_SAMPLERS: dict = {}


def _sampler(config: Config):
    """This process's sampler for ``config`` (one per registry name and options)."""
    from .pipeline import sampler_factory

    key = (config.sampler.name, repr(sorted(config.sampler.options.items())))
    if key not in _SAMPLERS:
        _SAMPLERS[key] = sampler_factory(config)
    return _SAMPLERS[key]


def check_point(point: Point) -> None:
    """Fail now, before any work, on a point whose sampler cannot be built here
    (:class:`~qsudoku.errors.BackendUnavailableError`) or rejects its parameters
    (:class:`~qsudoku.errors.ConfigError`)."""
    from .pipeline import route_params, sampler_params, uses_route

    cfg = point.config
    (route_params if uses_route(cfg) else sampler_params)(_sampler(cfg), cfg)


def task_config(task: Task) -> tuple[Config, int | None]:
    """The point's config with the task's seed (``seed`` param or 0, plus the repeat) when
    the sampler takes one; and that seed."""
    cfg = task.point.config
    accepted = getattr(_sampler(cfg), "parameters", {}) or {}
    if "seed" not in accepted:
        return cfg, None
    base = cfg.sampler.params.get("seed")
    seed = (int(base) if isinstance(base, int) and not isinstance(base, bool) else 0) + task.repeat
    return cfg.with_overrides(seed=seed), seed


def measure(task: Task) -> dict:
    """Run :func:`qsudoku.pipeline.solve` for ``task`` and return its row.

    A contradiction (the puzzle has no solution) or a :class:`~qsudoku.errors.QSudokuError`
    of the backend is a row with ``status`` ``"contradiction"`` / ``"error"``, as is any
    other exception (``error`` names its type): one crashing backend must not end a long
    run, and the summary counts such rows.
    """
    from .pipeline import solve

    t0 = time.perf_counter()
    row: dict[str, Any] = _identity(task)
    try:
        cfg, seed = task_config(task)
        row["seed"] = "" if seed is None else seed
        result = solve(task.puzzle, cfg, sampler=_sampler(cfg), budget=task.point.budget)
    except ContradictionError as e:
        return _failed(row, "contradiction", str(e), t0)
    except QSudokuError as e:
        return _failed(row, "error", str(e), t0)
    except Exception as e:  # noqa: BLE001 - recorded in the row; the run goes on
        return _failed(row, "error", f"{type(e).__name__}: {e}", t0)
    row.update(_metrics(result, time.perf_counter() - t0))
    return row


def _identity(task: Task) -> dict:
    p, w = task.puzzle, task.point.config.qubo.weights
    row: dict[str, Any] = dict.fromkeys(columns([k for k, _ in task.point.setting]), "")
    row.update(key=task.key(), set=task.source.set, index=task.source.index,
               puzzle=p.name or p.format(), size=p.size, kind=p.kind, sampler=task.point.label,
               setting=task.point.setting_text,
               budget="" if task.point.budget is None else float(task.point.budget),
               repeat=task.repeat, status="ok", valid=False, num_reads=0, num_valid=0,
               w_cell=w.cell, w_row=w.row, w_column=w.column, w_box=w.box, w_extra=w.extra)
    for k, v in task.point.setting:
        if k not in ROW_FIELDS:
            row[k] = format_value(v) if isinstance(v, (tuple, list)) or v is None else v
    return row


def _failed(row: dict, status: str, error: str, t0: float) -> dict:
    row.update(status=status, error=error, wall=time.perf_counter() - t0, success_prob=0.0,
               tts99=math.inf)
    return row


def _metrics(r: Result, wall: float) -> dict:
    tm = r.timings
    sampled = r.success_rate is not None
    p = r.success_rate if sampled else (1.0 if r.valid else 0.0)
    t_read = tm.get("sample", 0.0) / r.num_reads if sampled and r.num_reads else \
        tm.get("propagate", wall)
    if "fallback" in r.solved_by:
        route = "fallback"
    else:
        route = "propagation" if r.solved_by == "propagation" else "sampling"
    info = {k: v for k, v in r.info.items() if k in ("timing", "status", "problem_id")}
    broken = r.broken_per_read
    out = {
        "route": route, "solved_by": r.solved_by, "valid": r.valid,
        "matches_solution": "" if r.matches_solution is None else r.matches_solution,
        "success_prob": p, "num_reads": r.num_reads, "num_valid": r.num_valid,
        "energy": r.energy, "min_energy": r.energy, "mean_energy": r.mean_energy,
        "broken_total": broken.get("total", 0.0 if not sampled else math.nan),
        "chain_break_fraction": r.chain_break_fraction, "t_read": t_read,
        "tts99": tts99(t_read, p), "wall": wall, "rounds": r.rounds, "restarts": r.restarts,
        "num_variables": r.num_variables, "num_interactions": r.num_interactions,
        "params": _json(_scalars((r.sampler or {}).get("params", {}))),
        "info": _json(jsonable(info)) if info else "", "error": "; ".join(r.notes),
    }
    for k in BROKEN_KINDS:
        out[f"broken_{k}"] = broken.get(k, 0.0 if not sampled else math.nan)
    for stage in ("propagate", "build", "sample", "decode", "fallback", "compile"):
        out[f"t_{stage}"] = tm.get(stage, 0.0)
    return out


def _scalars(params: Mapping) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()
            if isinstance(v, (bool, int, float, str, tuple)) and k != "groups"}


def _json(x) -> str:
    import json

    return json.dumps(x, sort_keys=True)


def run_batch(tasks: Sequence[Task]) -> list[dict]:
    """Measure a batch of tasks (the unit of work sent to a worker)."""
    return [measure(t) for t in tasks]


def warm(configs: Sequence[Config]) -> None:
    """Build each config's sampler and compile its kernels once (per worker process), so
    that no measured row pays for imports or JIT compiles."""
    for cfg in configs:
        try:
            w = getattr(_sampler(cfg), "warm_up", None)
            if w is not None:
                w()
        except Exception:  # noqa: BLE001 - a backend that fails here fails in its rows too
            pass


# -- inputs and tasks --------------------------------------------------------------------

def read_sources(specs: Sequence[str], rules, *, limit: int | None = None, on_error=None,
                 label=None) -> list[tuple[Source, Puzzle]]:
    """The puzzles of every input with their :class:`Source` (``limit``: first N of each).

    ``label(spec)`` names the ``set`` of a file's rows; unreadable puzzles go to
    ``on_error`` (or are raised when it is ``None``).
    """
    from .io.files import iter_puzzles

    out = []
    for spec in specs:
        is_file = spec != "-" and os.path.isfile(spec)
        name = label(spec) if label else ("args" if not is_file else spec)
        count = 0
        for index, item in enumerate(iter_puzzles(spec, rules)):
            if limit is not None and count >= limit:
                break
            if not isinstance(item, Exception):
                try:
                    item.check_givens()
                except ContradictionError as e:
                    item = e
            if isinstance(item, Exception):
                if on_error is None:
                    raise item
                on_error(item)
                continue
            count += 1
            src = (Source.file(spec, index, name) if is_file
                   else Source.argument(spec if spec != "-" else item.format(), index, name))
            out.append((src, item))
    return out


def make_tasks(sources: Iterable[tuple[Source, Puzzle]], points: Sequence[Point],
               repeat: int = 1) -> list[Task]:
    """Every source x point x repeat, in that order, without duplicate keys."""
    tasks, seen = [], set()
    for src, puzzle in sources:
        for r in range(repeat):
            for point in points:
                t = Task(puzzle, src, point, r)
                if t.key() not in seen:
                    seen.add(t.key())
                    tasks.append(t)
    return tasks


# -- running many ------------------------------------------------------------------------

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
        writer: A :class:`~qsudoku.runlog.RowWriter` (rows are written as batches finish;
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
    from .engine import resolve_scheduler, run_batches

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

    The file is held by one locked :class:`~qsudoku.runlog.RowWriter` keyed by the
    ``key`` column; ``resume`` runs only what it lacks.  ``kwargs`` go to :func:`run`.

    Raises:
        ConfigError: ``out`` exists without ``resume``/``overwrite``, is locked by another
            run, or was written with other columns (other swept keys).
    """
    from .errors import ConfigError
    from .runlog import RowWriter

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
