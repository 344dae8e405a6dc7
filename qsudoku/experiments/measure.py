"""One task, one row: :func:`measure` runs exactly :func:`qsudoku.solving.solve` with the
task's configuration and turns the :class:`~qsudoku.model.result.Result` into a row of
:data:`ROW_FIELDS` (plus the swept keys): the one schema of ``bench`` and ``sweep``.

A *fixed sample* point's row has p per read and TTS99 with their intervals
(:mod:`qsudoku.experiments.stats`); the ``solve`` point's figures are ``wall`` and
``solved_by``.  ``seed`` is the seed that ran: the configured one plus the repeat, or one
drawn when none is configured.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.experiments.tasks import Point, Source, Task
>>> p = parse_puzzle("1..." "..2." "...." "...4")
>>> task = Task(p, Source.argument("1...", 0), Point("sa", Config().with_overrides(
...     sampler="sa", route={"enabled": False})), repeat=0)
>>> row = measure(task)
>>> row["sampler"], row["valid"], row["num_reads"], row["fixed_sample"], row["key"] == task.key()
('sa', True, 50, True, True)
>>> isinstance(row["seed"], int), row["success_prob_low"] <= row["success_prob"]
(True, True)
"""

from __future__ import annotations

import math
import time
from typing import Any, Mapping, Sequence

from qsudoku.config import Config
from qsudoku.errors import ContradictionError, QSudokuError
from qsudoku.model.puzzle import UNIT_KINDS
from qsudoku.model.result import By, Result, jsonable
from qsudoku.experiments.stats import TARGET_ENERGY, tts99, tts_figures
from qsudoku.experiments.tasks import Point, Task, format_value

__all__ = ["ROW_FIELDS", "BROKEN_KINDS", "tts99", "columns", "measure", "run_batch", "warm",
           "check_point", "plan_for", "task_plan", "read_figures"]

#: Constraint kinds counted in the ``broken_<kind>`` columns.
BROKEN_KINDS = ("cell",) + UNIT_KINDS
#: Columns of a row, in order (the swept keys of a sweep come before ``params``).
ROW_FIELDS = (
    "key", "set", "index", "puzzle", "size", "kind", "sampler", "setting", "budget", "repeat",
    "seed", "status", "route", "fixed_sample", "solved_by", "valid", "matches_solution",
    "success_prob", "success_prob_low", "success_prob_high", "num_reads", "num_valid",
    "num_target", "energy", "min_energy", "mean_energy",
    *(f"broken_{k}" for k in BROKEN_KINDS), "broken_total", "chain_break_fraction", "t_read",
    "tts99", "tts99_low", "tts99_high", "ttt99", "wall", "peak_rss_mb", "t_propagate", "t_build", "t_sample",
    "t_decode", "t_fallback",
    "t_compile", "num_variables", "num_interactions", "rounds", "w_cell", "w_row",
    "w_column", "w_box", "w_extra", "params", "info", "error")


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


_PLANS: dict = {}


def plan_for(config: Config):
    """This process's :class:`~qsudoku.solving.plan.Plan` for ``config`` without its seed
    (one per configuration: the sampler is built and its parameters checked once)."""
    from dataclasses import replace

    from qsudoku.solving import make_plan

    params = {k: v for k, v in config.sampler.params.items() if k != "seed"}
    seedless = replace(config, sampler=replace(config.sampler, params=params))
    key = repr(seedless)
    if key not in _PLANS:
        _PLANS[key] = make_plan(seedless)
    return _PLANS[key]


def check_point(point: Point) -> None:
    """Fail now, before any work, on a point whose sampler cannot be built here
    (:class:`~qsudoku.errors.BackendUnavailableError`) or rejects its parameters
    (:class:`~qsudoku.errors.ConfigError`)."""
    plan_for(point.config)


def task_plan(task: Task):
    """The point's plan with the task's seed, and that seed (``None`` if the sampler takes
    none): the ``seed`` param plus the repeat, or one drawn as ``solve`` draws its own."""
    from dataclasses import replace

    from qsudoku.solving.plan import draw_seed

    cfg = task.point.config
    plan = plan_for(cfg)
    if not plan.takes_seed:
        return plan, None
    base = cfg.sampler.params.get("seed")
    if isinstance(base, int) and not isinstance(base, bool):
        seed = int(base) + task.repeat
    else:
        seed = draw_seed()
    return replace(plan, seed=seed), seed


def measure(task: Task) -> dict:
    """Run :func:`qsudoku.solving.solve` for ``task`` and return its row; a contradiction
    or any exception is a row with ``status`` ``"contradiction"`` / ``"error"`` (one
    crashing backend must not end a long run)."""
    from qsudoku.solving import run_plan

    t0 = time.perf_counter()
    row: dict[str, Any] = _identity(task)
    try:
        plan, seed = task_plan(task)
        row["seed"] = "" if seed is None else seed
        result = run_plan(plan, task.puzzle, budget=task.point.budget, clock_start=t0,
                          fixed_sample=task.point.fixed_sample)
    except ContradictionError as e:
        return _failed(row, "contradiction", str(e), t0)
    except QSudokuError as e:
        return _failed(row, "error", str(e), t0)
    except Exception as e:  # noqa: BLE001 - recorded in the row; the run goes on
        return _failed(row, "error", f"{type(e).__name__}: {e}", t0)
    row.update(_metrics(result, time.perf_counter() - t0, task.point.fixed_sample))
    row["peak_rss_mb"] = peak_rss_mb()
    return row


def peak_rss_mb() -> float | str:
    """The peak resident memory so far in MB of this process or of the largest child it
    waited for (solvers run in a child process), or ``""`` where the platform does not
    tell.  ``VmHWM`` is read where there is one: ``ru_maxrss`` survives ``exec``."""
    try:
        import resource
    except ImportError:  # not on Windows
        resource = None
    kb = None
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    kb = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    if resource is None:
        return "" if kb is None else round(kb / 1024, 1)
    if kb is None:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux
    kb = max(kb, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return round(kb / 1024, 1)


def _identity(task: Task) -> dict:
    p, w = task.puzzle, task.point.config.qubo.weights
    row: dict[str, Any] = dict.fromkeys(columns([k for k, _ in task.point.setting]), "")
    row.update(key=task.key(), set=task.source.set, index=task.source.index,
               puzzle=p.name or p.format(), size=p.size, kind=p.kind, sampler=task.point.label,
               setting=task.point.setting_text,
               budget="" if task.point.budget is None else float(task.point.budget),
               repeat=task.repeat, status="ok", fixed_sample=task.point.fixed_sample,
               valid=False, num_reads=0, num_valid=0,
               w_cell=w.cell, w_row=w.row, w_column=w.column, w_box=w.box, w_extra=w.extra)
    if task.source.fraction is not None:  # a generated instance: the fraction it was made at
        row["fraction"] = task.source.fraction
    for k, v in task.point.setting:
        if k not in ROW_FIELDS:
            row[k] = format_value(v) if isinstance(v, (tuple, list)) or v is None else v
    return row


def _failed(row: dict, status: str, error: str, t0: float) -> dict:
    row.update(status=status, error=error, wall=time.perf_counter() - t0, success_prob=0.0,
               tts99=math.inf)
    return row


def _metrics(r: Result, wall: float, fixed: bool) -> dict:
    tm = r.timings
    sampled = r.success_rate is not None
    t_read = tm.get("sample", 0.0) / r.num_reads if sampled and r.num_reads else ""
    route = r.outcome.by.value if r.outcome.by in (By.FALLBACK, By.PROPAGATION) else "sampling"
    info = {k: v for k, v in r.info.items() if k in ("timing", "status", "problem_id")}
    broken = r.broken_per_read
    out = {
        "route": route, "solved_by": r.solved_by, "valid": r.valid,
        "matches_solution": "" if r.matches_solution is None else r.matches_solution,
        "num_reads": r.num_reads, "num_valid": r.num_valid,
        "energy": r.energy, "min_energy": r.energy, "mean_energy": r.mean_energy,
        "broken_total": broken.get("total", 0.0 if not sampled else math.nan),
        "chain_break_fraction": r.chain_break_fraction, "t_read": t_read, "wall": wall, "rounds": r.rounds,
        "num_variables": r.num_variables, "num_interactions": r.num_interactions,
        "params": _json(_scalars((r.sampler or {}).get("params", {}))),
        "info": _json(jsonable(info)) if info else "", "error": "; ".join(r.notes),
    }
    if fixed:  # a per-read p only for a fixed sample
        out.update(read_figures(r))
    for k in BROKEN_KINDS:
        out[f"broken_{k}"] = broken.get(k, 0.0 if not sampled else math.nan)
    for stage in ("propagate", "build", "sample", "decode", "fallback", "compile"):
        out[f"t_{stage}"] = tm.get(stage, 0.0)
    return out


def read_figures(r: Result) -> dict:
    """The per-read figures of a fixed sample's result (``{}`` if it took no reads):
    ``t_read``, p and TTS99 with their intervals, and the time to target.

    >>> from qsudoku.io import parse_puzzle
    >>> from qsudoku.solving import make_plan, run_plan
    >>> plan = make_plan(Config().with_overrides(sampler="sa", reads=10, seed=1))
    >>> f = read_figures(run_plan(plan, parse_puzzle("1..." "..2." "...." "...4"), fixed_sample=True))
    >>> f["success_prob_low"] <= f["success_prob"] <= f["success_prob_high"], f["tts99"] <= f["tts99_high"]
    (True, True)
    """
    if r.success_rate is None or not r.num_reads:
        return {}
    n, k = r.num_reads, r.num_valid
    t_read = r.timings.get("sample", 0.0) / n
    hit = sum(d.num_occurrences for d in (r.decoded or []) if d.energy <= TARGET_ENERGY)
    p, low, high, tts, t_low, t_high = tts_figures(t_read, k, n)
    return {"t_read": t_read, "success_prob": p, "success_prob_low": low,
            "success_prob_high": high, "num_target": hit, "tts99": tts,
            "tts99_low": t_low, "tts99_high": t_high, "ttt99": tts99(t_read, min(1.0, hit / n))}


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
            plan_for(cfg).warm_up()
        except Exception:  # noqa: BLE001 - a backend that fails here fails in its rows too
            pass
