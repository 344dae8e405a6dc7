"""Measure solves the way annealing users compare them: one row per puzzle and backend.

A row records whether the best read was valid, the success probability per read
``p``, the time per read, the time to solution at 99% confidence
(:func:`tts99`), the wall and per-stage times, the model size and the route
taken (``propagation`` when nothing was left to sample, else ``qubo:<sampler>``).
:func:`run_bench` runs many such measurements (optionally in parallel
processes), writing each row durably as it finishes through
:class:`qsudoku.runlog.RowWriter`, so an interrupted run keeps its rows and a
resumed one skips them.  :func:`summarize` condenses rows per set and backend.

>>> from qsudoku.io import parse_puzzle
>>> row = bench_one(parse_puzzle("1..." "..2." ".3.." "...4"), "sa")
>>> row["route"], row["valid"], row["success_prob"], row["num_reads"]
('propagation', True, 1.0, 0)
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from .config import Config
from .decode import decode
from .errors import ContradictionError, QSudokuError
from .pipeline import build, sample_model, sampler_factory, sampler_params
from .puzzle import Puzzle

__all__ = ["tts99", "bench_one", "solve_one", "Backend", "Task", "run_bench", "summarize", "format_summary",
           "typed_row", "machine_info", "warm_up", "ROW_FIELDS", "RESUME_KEY", "TIME_PARAMS"]

#: Columns of a results row, in order.
ROW_FIELDS = (
    "set", "index", "puzzle", "size", "kind", "sampler", "budget", "repeat", "status", "route",
    "valid", "matches_solution", "success_prob", "num_reads", "num_valid", "energy", "t_read",
    "tts99", "wall", "t_propagate", "t_build", "t_sample", "t_decode", "num_variables",
    "num_interactions", "batches", "params", "info", "error")
#: Columns identifying a row (what ``--resume`` skips).
RESUME_KEY = ("set", "index", "sampler", "budget", "repeat")
#: Sampling parameters that take a total time budget, with their unit per second.
TIME_PARAMS = {"time_limit": 1.0, "time_budget": 1.0}
_INFO_KEYS = ("timing", "status")  # the only sampleset.info fields copied into results
_NUMERIC = ("success_prob", "energy", "t_read", "tts99", "wall", "t_propagate", "t_build",
            "t_sample", "t_decode", "budget")
_INTS = ("index", "size", "repeat", "num_reads", "num_valid", "num_variables", "num_interactions",
         "batches")


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


def _seed(base: int, repeat: int, batch: int) -> int:
    return (base + 7919 * repeat + 104729 * batch) % (2 ** 31)


def _scalars(params: Mapping) -> dict:
    return {k: v for k, v in params.items()
            if isinstance(v, (bool, int, float, str)) and k != "groups"}


def _add_info(acc: dict, info: Mapping) -> None:
    """Accumulate the whitelisted ``info`` fields (numbers summed over batches)."""
    for key in _INFO_KEYS:
        v = info.get(key)
        if isinstance(v, Mapping):
            sub = acc.setdefault(key, {})
            for k, x in v.items():
                if isinstance(x, (int, float)) and not isinstance(x, bool):
                    sub[str(k)] = sub.get(str(k), 0) + float(x)
        elif isinstance(v, (int, float, str, bool)):
            acc[key] = v if isinstance(v, (str, bool)) else float(v)


def _sample_once(model, cfg: Config, sampler, params: Mapping | None, seed: int | None,
                 remaining: float | None, reads: int | None = None):
    """One sampler call; explicit ``params`` bypass the registered defaults."""
    accepted = getattr(sampler, "parameters", {}) or {}
    over: dict[str, Any] = {}
    if reads is not None and "num_reads" in accepted:
        over["num_reads"] = reads
    if seed is not None and "seed" in accepted:
        over["seed"] = seed
    if remaining is not None:
        for key, unit in TIME_PARAMS.items():
            if key in accepted:
                over[key] = max(remaining, 1e-3) * unit
    if params is None:
        ss, used = sample_model(model, cfg.with_overrides(params=over), sampler)
        return ss, used
    call = {**params, **over}
    if "groups" in accepted:
        call["groups"] = model.groups()
    ss = sampler.sample(model.bqm, **call)
    ss.resolve()
    return ss, {**params, **over}


def bench_one(puzzle: Puzzle, sampler_name: str, config: Config = Config(), *, sampler=None,
              budget: float | None = None, repeat: int = 0, params: Mapping | None = None,
              label: str = "", set_name: str = "", index: int = 0, seed: int | None = None) -> dict:
    """Solve ``puzzle`` once with one backend and measure it.

    Args:
        puzzle: The puzzle.
        sampler_name: Registry name of the sampler.
        config: Rules, weights and the sampling parameters (for ``sampler_name``).
        sampler: An already-built sampler (else one is made from the registry).
        budget: Wall seconds per puzzle.  ``None``: one sampler call.  Otherwise the
            sampler is called again (new seed each time) until the budget is used,
            or until every read so far was valid.  Samplers with a ``time_limit`` or
            ``time_budget`` parameter get the remaining budget as its value;
            samplers with ``num_reads`` start with a one-read probe, then take
            batches (at most the configured ``num_reads``) sized to what is left,
            and stop when one more read would not fit.
        repeat: Repetition number (changes the seeds).
        params: Exact sampling parameters (bypassing config and registered defaults).
        label: Name of the backend in the row (default ``sampler_name``).
        set_name, index: Where the puzzle comes from (row identity).
        seed: Base seed (default: the config's ``seed`` parameter, else 1).

    Returns:
        A dict with the :data:`ROW_FIELDS` columns.
    """
    cfg = config if config.sampler.name == sampler_name else config.with_overrides(sampler=sampler_name)
    row: dict[str, Any] = dict.fromkeys(ROW_FIELDS, "")
    row.update(set=set_name, index=index, puzzle=puzzle.name, size=puzzle.size, kind=puzzle.kind,
               sampler=label or sampler_name, budget="" if budget is None else float(budget),
               repeat=repeat, status="ok", valid=False, num_reads=0, num_valid=0, batches=0)
    t0 = time.perf_counter()
    try:
        cands, model, timings = build(puzzle, cfg)
    except ContradictionError as e:
        row.update(status="contradiction", error=str(e), wall=time.perf_counter() - t0,
                   success_prob=0.0, tts99=math.inf)
        return row
    row.update(t_propagate=timings["propagate"], t_build=timings.get("build", 0.0))
    if model is None:
        grid, t_prop = cands.grid, timings["propagate"]
        valid = puzzle.is_solution(grid)
        p = 1.0 if valid else 0.0
        row.update(route="propagation", valid=valid, success_prob=p, t_read=t_prop,
                   tts99=tts99(t_prop, p), energy=0.0, num_variables=0, num_interactions=0,
                   t_sample=0.0, t_decode=0.0, wall=time.perf_counter() - t0)
        _match(row, puzzle, grid)
        return row
    row.update(route=f"qubo:{sampler_name}", num_variables=model.num_variables,
               num_interactions=model.num_interactions)
    base = seed if seed is not None else int(cfg.sampler.params.get("seed", 1))
    info: dict = {}
    reads = n_valid = batch = 0
    t_sample = t_decode = 0.0
    best = None
    used: Mapping = {}
    try:
        sampler = sampler or sampler_factory(cfg)
        accepted = getattr(sampler, "parameters", {}) or {}
        timed = budget is not None and any(k in accepted for k in TIME_PARAMS)
        batched = budget is not None and "num_reads" in accepted
        max_reads = int((params if params is not None else sampler_params(sampler, cfg))
                        .get("num_reads", 1) or 1) if batched else None
        n_next = 1 if batched else None
        while True:
            remaining = None if budget is None else budget - (time.perf_counter() - t0)
            t = time.perf_counter()
            ss, used = _sample_once(model, cfg, sampler, params, _seed(base, repeat, batch),
                                    remaining if timed else None, n_next)
            t_sample += time.perf_counter() - t
            t = time.perf_counter()
            decoded = decode(model, ss)
            t_decode += time.perf_counter() - t
            batch += 1
            _add_info(info, ss.info)
            reads += sum(d.num_occurrences for d in decoded)
            n_valid += sum(d.num_occurrences for d in decoded if d.valid)
            top = min(decoded, key=lambda d: (not d.valid, d.energy))
            if best is None or (not top.valid, top.energy) < (not best.valid, best.energy):
                best = top
            if budget is None or n_valid == reads or not decoded:
                break
            remaining = budget - (time.perf_counter() - t0)
            if batched:
                per_read = t_sample / reads if reads else remaining
                n_next = min(max_reads, int(remaining / per_read)) if per_read > 0 else max_reads
                if n_next < 1:
                    break
            elif remaining <= 0:
                break
    except QSudokuError as e:
        row.update(status="error", error=str(e), wall=time.perf_counter() - t0,
                   success_prob=0.0, tts99=math.inf, batches=batch)
        return row
    p = n_valid / reads if reads else 0.0
    t_read = t_sample / reads if reads else t_sample
    row.update(valid=bool(best is not None and best.valid), success_prob=p, num_reads=reads,
               num_valid=n_valid, energy=best.energy if best else "", t_read=t_read,
               tts99=tts99(t_read, p), t_sample=t_sample, t_decode=t_decode, batches=batch,
               params=json.dumps(_scalars(used), sort_keys=True),
               info=json.dumps(info, sort_keys=True) if info else "",
               wall=time.perf_counter() - t0)
    _match(row, puzzle, best.grid if best else None)
    return row


def solve_one(puzzle: Puzzle, config: Config = Config(), *, sampler=None, label: str = "solve",
              set_name: str = "", index: int = 0, repeat: int = 0) -> dict:
    """Measure :func:`qsudoku.pipeline.solve` itself (whatever route it takes) as a row.

    ``route`` is the result's ``solved_by``; ``t_read`` is the sample time per read.

    >>> from qsudoku.io import parse_puzzle
    >>> r = solve_one(parse_puzzle("1..." "..2." ".3.." "...4"))
    >>> r["route"], r["valid"], r["tts99"] == r["t_read"]
    ('propagation', True, True)
    """
    from .pipeline import solve

    row: dict[str, Any] = dict.fromkeys(ROW_FIELDS, "")
    row.update(set=set_name, index=index, puzzle=puzzle.name, size=puzzle.size, kind=puzzle.kind,
               sampler=label, repeat=repeat, status="ok", valid=False, num_reads=0, num_valid=0,
               batches=0)
    t0 = time.perf_counter()
    try:
        res = solve(puzzle, config, sampler=sampler)
    except ContradictionError as e:
        row.update(status="contradiction", error=str(e), wall=time.perf_counter() - t0,
                   success_prob=0.0, tts99=math.inf)
        return row
    wall = time.perf_counter() - t0
    tm = res.timings
    sampled = res.success_rate is not None
    p = res.success_rate if sampled else (1.0 if res.valid else 0.0)
    reads = res.num_reads
    t_read = (tm.get("sample", 0.0) / reads) if sampled and reads else tm.get("propagate", wall)
    info: dict = {}
    _add_info(info, res.info or {})
    row.update(route=res.solved_by, valid=res.valid, success_prob=p, num_reads=reads,
               num_valid=round(p * reads) if sampled else 0, energy=res.energy, t_read=t_read,
               tts99=tts99(t_read, p), wall=wall, t_propagate=tm.get("propagate", ""),
               t_build=tm.get("build", 0.0), t_sample=tm.get("sample", 0.0),
               t_decode=tm.get("decode", 0.0), num_variables=res.num_variables,
               num_interactions=res.num_interactions, batches=1 if sampled else 0,
               params=json.dumps(_scalars((res.sampler or {}).get("params", {})), sort_keys=True),
               info=json.dumps(info, sort_keys=True) if info else "",
               error="; ".join(res.notes))
    _match(row, puzzle, res.grid)
    return row


def _match(row: dict, puzzle: Puzzle, grid) -> None:
    if puzzle.solution is not None and grid is not None:
        row["matches_solution"] = list(grid) == list(puzzle.solution)


# -- running many ------------------------------------------------------------------------

@dataclass(frozen=True)
class Backend:
    """A column of the comparison: a label, the registry name, its config, optional exact
    params, and whether to measure the whole :func:`~qsudoku.pipeline.solve` instead."""

    label: str
    name: str
    config: Config = Config()
    params: Mapping | None = None
    solve: bool = False  # measure pipeline.solve (its own route) instead of bench_one


@dataclass(frozen=True)
class Task:
    """One measurement to make."""

    set: str
    index: int
    puzzle: Puzzle
    backend: str
    budget: float | None = None
    repeat: int = 0

    def key(self) -> tuple:
        """The row's :data:`RESUME_KEY` values as the strings a results file holds."""
        b = "" if self.budget is None else str(float(self.budget))
        return (self.set, str(self.index), self.backend, b, str(self.repeat))


_BACKENDS: dict[str, Backend] = {}
_SAMPLERS: dict[tuple, Any] = {}


def _init_worker(backends: Mapping[str, Backend], warm: bool) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and terminates us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _BACKENDS.clear()
    _BACKENDS.update(backends)
    if warm:
        warm_up(backends)


def _sampler(b: Backend):
    """The process's sampler instance for ``b`` (one per name and constructor options).

    The registry name ``b.name`` decides, also when ``b.config`` names another sampler
    (the reference column ``sa`` with the default config): the cache is keyed by the
    sampler actually built, so no backend gets another's sampler whatever the order.
    """
    cfg = _config(b)
    key = (cfg.sampler.name, repr(sorted(cfg.sampler.options.items())))
    if key not in _SAMPLERS:
        _SAMPLERS[key] = sampler_factory(cfg)
    return _SAMPLERS[key]


def _config(b: Backend) -> Config:
    """``b.config`` naming the sampler ``b.name`` (the other sampler's options dropped)."""
    return b.config if b.config.sampler.name == b.name else b.config.with_overrides(sampler=b.name)


def _work(task: Task) -> dict:
    b = _BACKENDS[task.backend]
    try:
        if b.solve:
            return solve_one(task.puzzle, _config(b), sampler=_sampler(b), label=b.label,
                             set_name=task.set, index=task.index, repeat=task.repeat)
        return bench_one(task.puzzle, b.name, b.config, sampler=_sampler(b),
                         budget=task.budget, repeat=task.repeat, params=b.params, label=b.label,
                         set_name=task.set, index=task.index)
    except Exception as e:  # noqa: BLE001 - a crashing backend must not end a long run
        row = dict.fromkeys(ROW_FIELDS, "")
        row.update(set=task.set, index=task.index, puzzle=task.puzzle.name, size=task.puzzle.size,
                   kind=task.puzzle.kind, sampler=b.label,
                   budget="" if task.budget is None else float(task.budget), repeat=task.repeat,
                   status="error", valid=False, success_prob=0.0, tts99=math.inf,
                   error=f"{type(e).__name__}: {e}")
        return row


def warm_up(backends: Mapping[str, Backend]) -> None:
    """Build each backend's sampler and run it once on a small 4x4 model (JIT compiles,
    imports), so that no measured row pays for them (each worker process does this)."""
    from .io import parse_puzzle

    tiny = parse_puzzle("1..." "..2." ".3.." "...4")
    cfg_rules = Config().with_overrides(rules=[])
    for b in backends.values():
        try:
            cfg = replace(b.config, propagate=cfg_rules.propagate)
            bench_one(tiny, b.name, cfg, sampler=_sampler(b), params=b.params, budget=0.01)
        except Exception:  # noqa: BLE001 - a backend that fails here fails in its rows too
            pass


def _watched(results, pool):
    """Yield ``results``; with a pool, fail instead of hanging if a worker process dies
    (``multiprocessing.Pool`` replaces a dead worker and silently loses its task)."""
    if pool is None:
        yield from results
        return
    import multiprocessing as mp

    workers = {p.pid for p in mp.active_children()}
    while True:
        try:
            yield results.next(timeout=0.5)
        except StopIteration:
            return
        except mp.TimeoutError:
            if not {p.pid for p in mp.active_children()} <= workers:
                raise QSudokuError("a benchmark worker process died (crash or abort in a "
                                   "sampler); the finished rows are kept, --resume continues, "
                                   "--jobs 1 shows the error") from None


def run_bench(tasks: Iterable[Task], backends: Mapping[str, Backend], writer=None, *,
              jobs: int = 1, progress: bool = False, warm: bool = True) -> list[dict]:
    """Run every task not already in ``writer.done``; returns the new rows.

    Each row is written to ``writer`` (a :class:`~qsudoku.runlog.RowWriter`) as it
    finishes.  With ``jobs > 1`` the tasks run in that many forked processes.  Ctrl-C
    or SIGTERM raise :class:`KeyboardInterrupt` after terminating the workers; every
    row written so far is kept.  ``warm``: :func:`warm_up` the backends first.
    """
    from .runlog import terminate_as_interrupt

    done = writer.done if writer is not None else set()
    todo = [t for t in tasks if t.key() not in done]
    used = {name: backends[name] for name in {t.backend for t in todo}}
    pool = None
    if jobs > 1 and len(todo) > 1:
        import multiprocessing as mp

        # Each worker warms up itself: forking after a parallel JIT kernel (numba's
        # threading layer) has run is unsafe, so the parent runs no sampler first.
        pool = mp.get_context("fork").Pool(min(jobs, len(todo)), _init_worker, (used, warm))
        results = pool.imap_unordered(_work, todo)
    else:
        _BACKENDS.clear()
        _BACKENDS.update(used)
        if warm and todo:
            warm_up(used)
        results = map(_work, todo)
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), file=sys.stderr, unit="solve", dynamic_ncols=True)
    rows = []
    try:
        with terminate_as_interrupt():
            for row in _watched(results, pool):
                if writer is not None:
                    writer.write(row)
                rows.append(row)
                if bar is not None:
                    bar.set_postfix_str(f"{row['sampler']} {'ok' if row['valid'] else 'x'}")
                    bar.update()
            if pool is not None:
                pool.close()
                pool.join()
    finally:
        if pool is not None:
            pool.terminate()
        if bar is not None:
            bar.close()
    return rows


# -- summaries ---------------------------------------------------------------------------

def _num(x) -> float:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def typed_row(row: Mapping) -> dict:
    """A results row read back from CSV/Parquet, with numbers and booleans restored."""
    out = dict(row)
    for k in _NUMERIC:
        if k in out:
            out[k] = _num(out[k]) if out[k] not in ("", None) else (None if k == "budget" else math.nan)
    for k in _INTS:
        if k in out and out[k] not in ("", None):
            v = _num(out[k])
            out[k] = int(v) if v == v else 0
    for k in ("valid", "matches_solution"):
        if k in out:
            out[k] = out[k] in (True, "True", "true", 1, "1")
    return out


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(x for x in xs if x == x)
    if not xs:
        return math.nan
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    if xs[hi] == math.inf:
        return math.inf if pos > lo or xs[lo] == math.inf else xs[lo]
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summarize(rows: Iterable[Mapping]) -> list[dict]:
    """Per set, backend and budget: count, solved %, median and 95th percentile wall, median TTS99.

    >>> s = summarize([{"set": "a", "sampler": "sa", "valid": "True", "wall": "1", "tts99": "2"},
    ...                {"set": "a", "sampler": "sa", "valid": "False", "wall": "3", "tts99": "inf"}])
    >>> s[0]["solved_pct"], s[0]["wall_median"], s[0]["tts99_median"]
    (50.0, 2.0, inf)
    """
    groups: dict[tuple, list[dict]] = {}
    for r in map(typed_row, rows):
        groups.setdefault((r.get("set", ""), r.get("sampler", ""), r.get("budget")), []).append(r)
    out = []
    for (set_, sampler, budget), rs in sorted(groups.items(), key=lambda kv: tuple(
            str(x) for x in kv[0])):
        walls = [r.get("wall", math.nan) for r in rs]
        tts = [r.get("tts99", math.nan) for r in rs]
        probs = [r.get("success_prob", math.nan) for r in rs]
        solved = sum(1 for r in rs if r.get("valid"))
        out.append({
            "set": set_, "sampler": sampler, "budget": budget, "n": len(rs), "solved": solved,
            "solved_pct": 100.0 * solved / len(rs), "wall_median": _pct(walls, 50),
            "wall_p95": _pct(walls, 95), "tts99_median": _pct(tts, 50),
            "p_mean": statistics.fmean([p for p in probs if p == p]) if any(p == p for p in probs)
            else math.nan,
            "errors": sum(1 for r in rs if r.get("status") not in ("ok", None)),
        })
    return out


def _fmt_s(x: float) -> str:
    if x != x:
        return "-"
    if x == math.inf:
        return "inf"
    return f"{x * 1000:.1f}ms" if x < 1 else f"{x:.2f}s"


def format_summary(summary: list[dict]) -> str:
    """The summary as a fixed-width text table."""
    head = (f"{'set':34s} {'sampler':14s} {'budget':>6s} {'n':>5s} {'solved':>7s} "
            f"{'p/read':>7s} {'wall med':>9s} {'wall p95':>9s} {'TTS99 med':>10s}")
    lines = [head, "-" * len(head)]
    for s in summary:
        b = "-" if s["budget"] is None else f"{s['budget']:g}s"
        err = f"  ({s['errors']} errors)" if s["errors"] else ""
        lines.append(f"{str(s['set'])[:34]:34s} {str(s['sampler'])[:14]:14s} {b:>6s} {s['n']:5d} "
                     f"{s['solved_pct']:6.1f}% {s['p_mean']:7.3f} {_fmt_s(s['wall_median']):>9s} "
                     f"{_fmt_s(s['wall_p95']):>9s} {_fmt_s(s['tts99_median']):>10s}{err}")
    return "\n".join(lines)


# -- where it ran ----------------------------------------------------------------------------

_PACKAGES = ("qsudoku", "dimod", "dwave-samplers", "dwave-neal", "numpy", "numba", "ortools",
             "python-sat", "highspy", "clingo", "python-constraint", "pyqubo", "sympy", "pandas",
             "pyarrow", "matplotlib")


def machine_info() -> dict:
    """CPU model, cores, Python and package versions (whitelisted fields only, no environment)."""
    from importlib import metadata

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = {}
    for pkg in _PACKAGES:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return {"cpu": cpu, "cores": os.cpu_count(), "machine": platform.machine(),
            "system": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "packages": versions}
