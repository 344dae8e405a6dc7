"""Benchmarks the way annealing users compare solvers: one row per puzzle, backend and budget.

A *backend* is ``solve`` (what ``qsudoku solve`` does with the configuration; its figures
are the time to a valid grid and who solved it) or a registry name: a *fixed sample* of
the reduced QUBO with that sampler (``num_reads`` reads, all counted, no fallback; its
figures are p per read and TTS99, with intervals).  :func:`points` makes the points; the
rows come from the one runner (:mod:`qsudoku.experiments.runner`); this module condenses
them (:func:`summarize`, :func:`format_summary`, :func:`write_summary`).  The statistics
are those of :mod:`qsudoku.experiments.stats` (method: ``docs/measurement.md``).

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.experiments.runner import Source, Task, measure
>>> (pt,) = points(Config(), ["sa"], [None])
>>> row = measure(Task(parse_puzzle("1..." "..2." ".3.." "...4"), Source.argument("x", 0), pt))
>>> row["solved_by"], row["valid"], row["success_prob"], row["num_reads"]
('propagation', True, '', 0)
"""

from __future__ import annotations

import math
import os
from array import array
from typing import Iterable, Mapping, Sequence

from qsudoku.config import Config
from qsudoku.model.result import format_seconds
from qsudoku.experiments.stats import Pool, as_float, p_interval, tts99
from qsudoku.experiments.provenance import machine_info  # its home: the provenance record
from qsudoku.experiments.results import load_frame
from qsudoku.experiments.tasks import Point

__all__ = ["tts99", "points", "SOLVE", "summarize", "format_summary", "format_curve",
           "typed_row", "load",
           "machine_info", "percentile", "summary_paths", "write_summary"]

#: The backend name of "what ``qsudoku solve`` does with the configuration".
SOLVE = "solve"
_NUMERIC = ("success_prob", "success_prob_low", "success_prob_high", "energy", "mean_energy",
            "t_read", "tts99", "tts99_low", "tts99_high", "ttt99", "wall", "t_propagate",
            "t_build", "t_sample", "t_decode", "budget", "peak_rss_mb")
_INTS = ("index", "size", "repeat", "num_reads", "num_valid", "num_target", "num_variables",
         "num_interactions", "rounds")


def points(config: Config, backends: Sequence[str | None], budgets: Sequence[float | None],
           *, in_rounds: bool = False) -> list[Point]:
    """The points of a bench: ``solve`` (``None`` or ``"solve"``) at each budget, and each
    registry name once, as a fixed sample of ``config`` with that sampler.  With
    ``in_rounds`` a registry name runs as ``qsudoku solve --sampler NAME --no-fallback``
    does, at each budget (success within a fixed time limit, Lewis 2007).

    >>> [(p.label, p.budget, p.fixed_sample) for p in points(Config(), [None, "sa"], [1.0, 2.0])]
    [('solve', 1.0, False), ('solve', 2.0, False), ('sa', None, True)]
    >>> [(p.label, p.budget, p.fixed_sample, p.config.route.exact_fallback)
    ...  for p in points(Config(), ["sa"], [1.0], in_rounds=True)]
    [('sa', 1.0, False, '')]
    """
    out = []
    for name in backends:
        if name in (None, SOLVE):
            out.extend(Point(SOLVE, config, budget=b, fixed_sample=False) for b in budgets)
            continue
        cfg = config if config.sampler.name == name else config.with_overrides(sampler=name)
        if in_rounds:
            alone = cfg.with_overrides(route={"exact_fallback": ""})
            out.extend(Point(name, alone, budget=b, fixed_sample=False) for b in budgets)
        else:
            out.append(Point(name, cfg))
    return out


# A DataFrame of any bench or sweep results file or list of rows, types restored.
load = load_frame


# -- summaries ---------------------------------------------------------------------------

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
            out[k] = None if k == "budget" and out[k] in ("", None) else as_float(out[k])
    if "fraction" in out:  # a generated instance's fraction given; none for other puzzles
        fraction = as_float(out["fraction"])
        out["fraction"] = fraction if math.isfinite(fraction) else None
    for k in _INTS:
        if k in out and out[k] not in ("", None):
            v = as_float(out[k])
            out[k] = int(v) if math.isfinite(v) else None
    for k in ("valid", "matches_solution", "fixed_sample"):
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
    """What the summary keeps of a group's rows: counts, two numbers per row and the
    reads pooled per puzzle."""

    __slots__ = ("n", "tried", "solved", "errors", "walls", "samples", "fixed", "pool")

    def __init__(self):
        self.n = self.tried = self.solved = self.errors = 0
        self.walls = array("d")
        self.samples = array("d")
        self.fixed = False
        self.pool = Pool()

    def add(self, r: Mapping) -> None:
        self.n += 1
        self.errors += r.get("status") not in ("ok", None)
        self.walls.append(r.get("wall", math.nan))
        self.samples.append(r.get("t_sample", math.nan))
        self.pool.add(r)
        self.fixed = self.fixed or bool(r.get("fixed_sample"))
        if r.get("fixed_sample") and r.get("solved_by") == "propagation":
            return  # counted apart: no sampler's success
        self.tried += 1
        self.solved += bool(r.get("valid"))


def summarize(rows: Iterable[Mapping], *, pool_sets: bool = False, **figures) -> list[dict]:
    """Per set (``"all"`` with ``pool_sets``), backend and budget (and per ``size`` and
    ``fraction`` of generated instances): ``n`` rows, ``propagation`` (rows propagation
    solved alone), ``solved`` and ``solved_pct`` (of the rows a sampler had to solve; for
    generated instances with its 95% Wilson interval ``solved_pct_low``/``_high``), wall
    and ``t_sample`` median and 95th percentile, errors; and for a fixed sample the
    figures of :meth:`qsudoku.experiments.stats.Pool.figures` (``figures`` go to it).

    ``rows`` are consumed one at a time and typed by :func:`typed_row`: the summary keeps a
    few numbers per row, and is the same whatever the file's format.

    >>> s = summarize([{"set": "a", "sampler": "sa", "valid": "False", "wall": "1",
    ...                 "fixed_sample": "True", "num_reads": "10", "num_valid": "0",
    ...                 "t_read": "0.01", "puzzle": "x"},
    ...                {"set": "a", "sampler": "sa", "valid": "True", "wall": "3",
    ...                 "fixed_sample": "True", "solved_by": "propagation", "puzzle": "y"}])
    >>> s[0]["n"], s[0]["propagation"], s[0]["solved_pct"], s[0]["p_read"], s[0]["tts99_median"]
    (2, 1, 0.0, 0.0, inf)
    >>> 0 < s[0]["p_read_high"] < 1
    True
    """
    groups: dict[tuple, _Group] = {}
    for r in map(typed_row, rows):
        fraction = r.get("fraction")  # a generated instance's: a group per size and fraction
        where = () if fraction is None else (r.get("size"), fraction)
        key = ("all" if pool_sets else str(r.get("set", "")), where, str(r.get("sampler", "")),
               r.get("budget"))
        group = groups.get(key)
        if group is None:
            group = groups[key] = _Group()
        group.add(r)
    out = []
    for (set_, where, sampler, budget), g in sorted(groups.items(), key=_group_order):
        rec = {"set": set_, **dict(zip(("size", "fraction"), where)), "sampler": sampler,
               "budget": budget, "fixed_sample": g.fixed,
               "n": g.n, "propagation": g.pool.propagation, "solved": g.solved,
               "solved_pct": 100.0 * g.solved / g.tried if g.tried else math.nan}
        if where:  # the curve's figure: the share solved within the limit, with its interval
            low, high = p_interval(g.solved, g.tried)
            rec.update(solved_pct_low=100.0 * low, solved_pct_high=100.0 * high)
        rec.update(wall_median=percentile(g.walls, 50), wall_p95=percentile(g.walls, 95),
                   t_sample_median=percentile(g.samples, 50),
                   t_sample_p95=percentile(g.samples, 95), errors=g.errors)
        if g.fixed:
            rec.update(g.pool.figures(**figures))
        out.append(rec)
    return out


def _group_order(item) -> tuple:
    """Groups by set, size and fraction (as numbers), then sampler and budget."""
    (set_, where, sampler, budget), _ = item
    return (set_, tuple(float(x) if x is not None else -1.0 for x in where), sampler,
            str(budget))


def _interval(x: float, lo: float, hi: float, fmt) -> str:
    if x != x:
        return "-"
    return f"{fmt(x)} [{fmt(lo)}, {fmt(hi)}]"


def format_summary(summary: list[dict]) -> str:
    """The summary as a fixed-width text table: p per read and the median TTS99 with their
    95% intervals (``-`` for the ``solve`` backend, whose figure is the wall time)."""
    head = (f"{'set':28s} {'sampler':10s} {'budget':>6s} {'n':>5s} {'prop':>5s} "
            f"{'solved':>7s} {'wall med':>9s} {'p/read [95% CI]':>26s} "
            f"{'TTS99 med [95% CI]':>30s}")
    lines = [head, "-" * len(head)]
    for s in summary:
        b = "-" if s["budget"] is None else f"{s['budget']:g}s"
        err = f"  ({s['errors']} errors)" if s["errors"] else ""
        pct = "-" if s["solved_pct"] != s["solved_pct"] else f"{s['solved_pct']:.1f}%"
        p = _interval(s.get("p_read", math.nan), s.get("p_read_low"), s.get("p_read_high"),
                      lambda x: f"{x:.3f}")
        t = _interval(s.get("tts99_median", math.nan), s.get("tts99_median_low"),
                      s.get("tts99_median_high"), format_seconds)
        where = s["set"] if s.get("fraction") is None else \
            f"{s['set']} {s.get('size')}x{s.get('size')} {s['fraction']:.2f}"
        lines.append(f"{str(where)[:28]:28s} {str(s['sampler'])[:10]:10s} {b:>6s} "
                     f"{s['n']:5d} {s['propagation']:5d} {pct:>7s} "
                     f"{format_seconds(s['wall_median']):>9s} {p:>26s} {t:>30s}{err}")
    return "\n".join(lines)


def format_curve(summary: Sequence[Mapping]) -> str:
    """The rows of a summary per fraction given (instances a study generates) as one line
    per size and fraction, a cell per sampler: the share solved within the limit with its
    95% interval, the median wall time and ``n``.

    >>> print(format_curve([{"size": 9, "fraction": 0.4, "sampler": "sa", "budget": 2.0,
    ...     "n": 20, "solved_pct": 50.0, "solved_pct_low": 29.9, "solved_pct_high": 70.1,
    ...     "wall_median": 0.5}]))
    size | fraction | sa
    9 | 0.40 | 50% [30, 70] 500.0 ms n=20
    """
    recs = [s for s in summary if s.get("fraction") is not None]
    samplers = list(dict.fromkeys(str(s["sampler"]) for s in recs))
    cells: dict[tuple, dict[str, str]] = {}
    for s in recs:
        pct = s.get("solved_pct", math.nan)
        text = "-" if pct != pct else (
            f"{pct:.0f}% [{s.get('solved_pct_low', math.nan):.0f}, "
            f"{s.get('solved_pct_high', math.nan):.0f}] {format_seconds(s['wall_median'])} "
            f"n={s['n']}")
        cells.setdefault((s.get("size"), float(s["fraction"])), {})[str(s["sampler"])] = text
    lines = [" | ".join(["size", "fraction", *samplers])]
    for (size, fraction), row in sorted(cells.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1])):
        lines.append(" | ".join([str(size), f"{fraction:.2f}",
                                 *(row.get(name, "-") for name in samplers)]))
    return "\n".join(lines)


def summary_paths(out: str) -> tuple[str, str]:
    """The summary files next to the results file ``out``: ``F.summary.csv`` and
    ``F.summary.json`` (``F`` = ``out`` without its extension).

    >>> summary_paths("runs/top95.parquet")
    ('runs/top95.summary.csv', 'runs/top95.summary.json')
    """
    stem = os.path.splitext(os.fspath(out))[0]
    return f"{stem}.summary.csv", f"{stem}.summary.json"


def write_summary(summary: Sequence[Mapping], out: str, optimal: Sequence[Mapping] = ()
                  ) -> tuple[str, str]:
    """Write ``summary`` (and a sweep's ``optimal`` TTS rows) next to ``out``: a CSV of the
    summary rows and a JSON object ``{"summary": [...], "optimal": [...], "confidence",
    "quantiles", "resamples"}`` (``inf`` as ``Infinity``, a missing value as ``null``);
    returns the two paths.

    Raises:
        MachineError: The machine refused the write.
    """
    import csv
    import io
    import json

    from qsudoku.experiments import stats
    from qsudoku.io.output import write_text

    csv_path, json_path = summary_paths(out)
    fields: list[str] = []
    for rec in summary:
        fields.extend(k for k in rec if k not in fields)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fields, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows([{k: ("" if v is None else v) for k, v in rec.items()} for rec in summary])

    def clean(rec):
        return {k: (None if isinstance(v, float) and v != v else v) for k, v in rec.items()}

    doc = {"summary": [clean(r) for r in summary], "optimal": [clean(r) for r in optimal],
           "confidence": stats.CONFIDENCE, "quantiles": list(stats.QUANTILES),
           "resamples": stats.RESAMPLES}
    write_text(csv_path, buf.getvalue())
    write_text(json_path, json.dumps(doc, indent=1, default=str) + "\n")
    return csv_path, json_path
