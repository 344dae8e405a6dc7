"""Benchmarks the way annealing users compare solvers: one row per puzzle, backend and budget.

A *backend* is ``solve`` (exactly what ``qsudoku solve`` does with the configuration:
propagation, the sampling rounds, the exact fallback) or a registry name (what
``qsudoku solve --sampler NAME`` does: the same rounds within the ``budget``).  :func:`points` makes
the :class:`~qsudoku.experiments.tasks.Point` of each (backend, budget); the rows themselves come
from the one experiment runner, :mod:`qsudoku.experiments.runner`, shared with ``sweep``.  This
module condenses rows (:func:`summarize`, :func:`format_summary`), reads any results
file (:func:`load`) and records where a run ran (:func:`machine_info`).

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.experiments.runner import Source, Task, measure
>>> (pt,) = points(Config(), ["sa"], [None])
>>> row = measure(Task(parse_puzzle("1..." "..2." ".3.." "...4"), Source.argument("x", 0), pt))
>>> row["route"], row["valid"], row["success_prob"], row["num_reads"]
('propagation', True, 1.0, 0)
"""

from __future__ import annotations

import math
import os
import platform
from array import array
from typing import Iterable, Mapping, Sequence

from qsudoku.config import Config
from qsudoku.model.result import format_seconds
from qsudoku.experiments.measure import tts99
from qsudoku.experiments.tasks import Point

__all__ = ["tts99", "points", "SOLVE", "summarize", "format_summary", "typed_row", "load",
           "machine_info", "percentile"]

#: The backend name of "what ``qsudoku solve`` does with the configuration".
SOLVE = "solve"
_NUMERIC = ("success_prob", "energy", "t_read", "tts99", "wall", "t_propagate", "t_build",
            "t_sample", "t_decode", "budget")
_INTS = ("index", "size", "repeat", "num_reads", "num_valid", "num_variables", "num_interactions",
         "rounds")


def points(config: Config, backends: Sequence[str | None], budgets: Sequence[float | None]
           ) -> list[Point]:
    """The points of a bench: each backend (``None`` or ``"solve"``: ``config`` as
    :func:`qsudoku.solving.solve` runs it; a registry name: ``config`` with that sampler,
    under the same round policy, so that a row is what ``qsudoku solve --sampler NAME``
    gives) at each budget.

    >>> [p.label for p in points(Config(), [None, "sa"], [None])]
    ['solve', 'sa']
    >>> points(Config(), ["sa"], [None])[0].config.route == Config().route
    True
    """
    out = []
    for name in backends:
        if name in (None, SOLVE):
            label, cfg = SOLVE, config
        else:
            label = name
            cfg = config if config.sampler.name == name else config.with_overrides(sampler=name)
        out.extend(Point(label, cfg, budget=b) for b in budgets)
    return out


def load(path_or_rows):
    """A :class:`pandas.DataFrame` of any bench or sweep results file (CSV or Parquet) or
    list of rows, with numbers, ``inf`` and booleans restored.

    Raises:
        ConfigError: A path that is neither a results file nor its journal.
        TypeError: Neither a path, a list of rows nor a DataFrame.
    """
    from qsudoku.experiments.table import load_frame

    return load_frame(path_or_rows)


# -- summaries ---------------------------------------------------------------------------

def _num(x) -> float:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def typed_row(row: Mapping) -> dict:
    """A results row read back from CSV/Parquet, with numbers and booleans restored.

    An integer column that does not hold a finite number (a hand-edited ``inf``,
    ``nan``, ``1e999`` or text) is read as missing (``None``): a summary never fails on it.

    >>> r = typed_row({"num_reads": "1e999", "size": "9", "rounds": "many", "wall": "0.5"})
    >>> r["num_reads"], r["size"], r["rounds"], r["wall"]
    (None, 9, None, 0.5)
    """
    out = dict(row)
    for k in _NUMERIC:
        if k in out:
            out[k] = _num(out[k]) if out[k] not in ("", None) else (None if k == "budget" else math.nan)
    for k in _INTS:
        if k in out and out[k] not in ("", None):
            v = _num(out[k])
            out[k] = int(v) if math.isfinite(v) else None
    for k in ("valid", "matches_solution"):
        if k in out:
            out[k] = out[k] in (True, "True", "true", 1, "1")
    return out


def percentile(xs: Iterable[float], q: float) -> float:
    """The ``q``-th percentile of the numbers ``xs`` (NaN left out; linear between ranks,
    as :meth:`pandas.Series.quantile`; ``inf`` counted as the largest value).

    >>> percentile([1.0, 3.0, float("nan")], 50), percentile([2.0, math.inf], 50)
    (2.0, inf)
    """
    xs = sorted(x for x in xs if x == x)
    if not xs:
        return math.nan
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    if xs[hi] == math.inf:
        return math.inf if pos > lo or xs[lo] == math.inf else xs[lo]
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


class _Group:
    """What the summary keeps of a group's rows: counts, sums and two numbers per row (the
    percentiles need them all), never the rows."""

    __slots__ = ("n", "solved", "errors", "p_sum", "p_n", "walls", "tts")

    def __init__(self):
        self.n = self.solved = self.errors = self.p_n = 0
        self.p_sum = 0.0
        self.walls, self.tts = array("d"), array("d")

    def add(self, r: Mapping) -> None:
        self.n += 1
        self.solved += bool(r.get("valid"))
        self.errors += r.get("status") not in ("ok", None)
        self.walls.append(r.get("wall", math.nan))
        self.tts.append(r.get("tts99", math.nan))
        p = r.get("success_prob", math.nan)
        if p == p:
            self.p_sum += p
            self.p_n += 1


def summarize(rows: Iterable[Mapping]) -> list[dict]:
    """Per set, backend and budget: count, solved %, median and 95th percentile wall, median
    TTS99, mean success probability per read, errors.

    ``rows`` are consumed one at a time (e.g. :func:`~qsudoku.experiments.results.iter_rows`
    of a results file): the summary keeps two numbers per row, not the rows, and is the
    same whatever the file's format (a row read back from CSV or Parquet is typed by
    :func:`typed_row`).

    >>> s = summarize([{"set": "a", "sampler": "sa", "valid": "True", "wall": "1", "tts99": "2"},
    ...                {"set": "a", "sampler": "sa", "valid": "False", "wall": "3", "tts99": "inf"}])
    >>> s[0]["solved_pct"], s[0]["wall_median"], s[0]["tts99_median"]
    (50.0, 2.0, inf)
    """
    groups: dict[tuple, _Group] = {}
    for r in map(typed_row, rows):
        key = (str(r.get("set", "")), str(r.get("sampler", "")), r.get("budget"))
        group = groups.get(key)
        if group is None:
            group = groups[key] = _Group()
        group.add(r)
    out = []
    for (set_, sampler, budget), g in sorted(groups.items(), key=lambda kv: tuple(
            str(x) for x in kv[0])):
        out.append({
            "set": set_, "sampler": sampler, "budget": budget, "n": g.n, "solved": g.solved,
            "solved_pct": 100.0 * g.solved / g.n, "wall_median": percentile(g.walls, 50),
            "wall_p95": percentile(g.walls, 95), "tts99_median": percentile(g.tts, 50),
            "p_mean": g.p_sum / g.p_n if g.p_n else math.nan, "errors": g.errors,
        })
    return out


def format_summary(summary: list[dict]) -> str:
    """The summary as a fixed-width text table."""
    head = (f"{'set':34s} {'sampler':14s} {'budget':>6s} {'n':>5s} {'solved':>7s} "
            f"{'p/read':>7s} {'wall med':>9s} {'wall p95':>9s} {'TTS99 med':>10s}")
    lines = [head, "-" * len(head)]
    for s in summary:
        b = "-" if s["budget"] is None else f"{s['budget']:g}s"
        err = f"  ({s['errors']} errors)" if s["errors"] else ""
        lines.append(f"{str(s['set'])[:34]:34s} {str(s['sampler'])[:14]:14s} {b:>6s} {s['n']:5d} "
                     f"{s['solved_pct']:6.1f}% {s['p_mean']:7.3f} {format_seconds(s['wall_median']):>9s} "
                     f"{format_seconds(s['wall_p95']):>9s} {format_seconds(s['tts99_median']):>10s}{err}")
    return "\n".join(lines)


# -- where it ran ----------------------------------------------------------------------------

_PACKAGES = ("qsudoku", "dimod", "dwave-samplers", "dwave-neal", "numpy", "numba", "ortools",
             "python-sat", "highspy", "clingo", "pyqubo", "sympy", "pandas",
             "pyarrow", "matplotlib", "dask", "distributed")


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
