"""The statistics of a measurement: success probability, time to solution and their intervals.

Pure functions of counts and arrays (method and references: ``docs/measurement.md``):
the Wilson interval of p per read (:func:`p_interval`), TTS99 (Rønnow et al., Science
345:420, 2014; :func:`tts99`, :func:`tts_interval`), quantiles with ``inf`` as the
largest value and bootstrap intervals over puzzles, reads pooled per puzzle
(:class:`Pool`) and the optimal TTS over a swept axis (:func:`optimal`).

>>> lo, hi = p_interval(0, 10)
>>> lo, round(hi, 4)
(0.0, 0.2775)
>>> tts_interval(0.01, lo, hi)[1]
inf
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

import numpy as np

__all__ = ["CONFIDENCE", "TARGET", "QUANTILES", "RESAMPLES", "TARGET_ENERGY", "tts99",
           "p_interval", "tts_interval", "tts_figures", "quantile", "bootstrap_quantile", "Pool",
           "optimal", "optimal_over_axes", "quantile_name", "as_float"]

#: Confidence level of every interval.
CONFIDENCE = 0.95
#: Probability of at least one valid read that TTS is the time to (TTS99).
TARGET = 0.99
#: Quantiles of TTS99 over puzzles in a summary (0.5 is the median).
QUANTILES = (0.25, 0.5, 0.75, 0.9)
#: Bootstrap resamples of the puzzles of a set.
RESAMPLES = 2000
#: The energy of time to target. A read "hits the target" when its energy is at most this
#: far above the ground energy 0 (2.0 = two one-hot groups broken at unit weight).
TARGET_ENERGY = 2.0


def tts99(t_read: float, p: float, target: float = TARGET) -> float:
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
    from qsudoku.checks import need_real

    need_real("t_read", t_read, low=0, low_open=False)
    need_real("p", p, low=0, high=1, low_open=False)
    need_real("target", target, low=0, high=1)
    if target == 1.0:
        raise ValueError("target = 1.0 needs infinitely many reads; use a value below 1")
    if p == 0.0:
        return math.inf
    if p == 1.0:
        return float(t_read)
    return float(t_read) * max(1.0, math.log(1.0 - target) / math.log(1.0 - p))


def p_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of ``k`` successes in ``n`` reads (``(nan, nan)`` if ``n = 0``).

    >>> [round(x, 4) for x in p_interval(5, 10)]
    [0.2366, 0.7634]
    >>> p_interval(0, 0)
    (nan, nan)
    """
    if n <= 0:
        return math.nan, math.nan
    from scipy.stats import binomtest

    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return max(0.0, float(ci.low)), min(1.0, float(ci.high))


def tts_interval(t_read: float, p_low: float, p_high: float) -> tuple[float, float]:
    """TTS99's interval from p's: ``(tts99(p_high), tts99(p_low))``; the upper end is
    ``inf`` exactly when ``p_low`` is 0.

    >>> [round(x, 4) for x in tts_interval(0.01, 0.25, 0.75)]
    [0.0332, 0.1601]
    """
    if not (p_low == p_low and p_high == p_high):
        return math.nan, math.nan
    return tts99(t_read, p_high), tts99(t_read, p_low)


def tts_figures(t_read: float, k: int, n: int) -> tuple[float, ...]:
    """``(p, p_low, p_high, tts, tts_low, tts_high)`` of ``k`` valid reads in ``n > 0`` of
    ``t_read`` seconds each: p with its Wilson interval, TTS99 with its interval.

    >>> [round(x, 4) for x in tts_figures(0.01, 5, 10)]
    [0.5, 0.2366, 0.7634, 0.0664, 0.0319, 0.1706]
    """
    low, high = p_interval(k, n)
    return (k / n, low, high, tts99(t_read, k / n), *tts_interval(t_read, low, high))


def quantile(sorted_values: np.ndarray, q: float) -> np.ndarray:
    """The ``q`` quantile along the last axis of sorted values, linear between ranks (as
    numpy's default), with ``inf`` as the largest value (no ``nan`` from ``inf - inf``).

    >>> float(quantile(np.array([1.0, 3.0]), 0.5)), float(quantile(np.array([2.0, np.inf]), 0.5))
    (2.0, inf)
    >>> quantile(np.array([[1.0, 2.0, np.inf], [1.0, 1.0, 4.0]]), 0.5).tolist()
    [2.0, 1.0]
    """
    x = np.asarray(sorted_values, dtype=float)
    n = x.shape[-1]
    pos = (n - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    a, b = x[..., lo], x[..., hi]
    frac = pos - lo
    if frac == 0:
        out = a
    else:
        with np.errstate(invalid="ignore"):
            out = np.where(np.isinf(b), np.inf, a + (b - a) * frac)
    return out[()] if np.ndim(out) == 0 else out


def bootstrap_quantile(point: Sequence[float], low: Sequence[float] | None = None,
                       high: Sequence[float] | None = None, q: float = 0.5, *,
                       resamples: int = RESAMPLES, seed: int = 0,
                       confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """The ``q`` quantile of ``point`` over puzzles and its bootstrap interval.

    The puzzles are resampled ``resamples`` times (seeded); the interval runs from the
    ``(1 - confidence)/2`` quantile of the resampled quantiles of ``low`` to the
    ``(1 + confidence)/2`` one of ``high`` (each puzzle's own interval, default the point
    values), so it carries both the choice of puzzles and each puzzle's finite sample; it
    is widened to contain the estimate.  ``(nan, nan, nan)`` without values.

    >>> est, lo, hi = bootstrap_quantile([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> est, lo <= est <= hi, lo >= 1.0, hi <= 5.0
    (3.0, True, True, True)
    >>> bootstrap_quantile([1.0, math.inf, math.inf], [0.5, 2.0, 3.0], [1.0, math.inf, math.inf])
    (inf, 0.5, inf)
    """
    pt = np.asarray(point, dtype=float)
    keep = ~np.isnan(pt)
    pt = pt[keep]
    lo_v = pt if low is None else np.asarray(low, dtype=float)[keep]
    hi_v = pt if high is None else np.asarray(high, dtype=float)[keep]
    n = pt.size
    if n == 0:
        return math.nan, math.nan, math.nan
    est = float(quantile(np.sort(pt), q))
    rng = np.random.default_rng(seed)
    reps_lo, reps_hi = np.empty(resamples), np.empty(resamples)
    block = max(1, 2_000_000 // n)  # at most a few million values in memory at once
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        idx = rng.integers(0, n, size=(size, n))
        reps_lo[start:start + size] = quantile(np.sort(lo_v[idx], axis=1), q)
        reps_hi[start:start + size] = quantile(np.sort(hi_v[idx], axis=1), q)
    alpha = (1.0 - confidence) / 2
    lower = float(quantile(np.sort(reps_lo), alpha))
    upper = float(quantile(np.sort(reps_hi), 1.0 - alpha))
    return est, min(lower, est), max(upper, est)


def quantile_name(q: float) -> str:
    """The column stem of a quantile: ``median`` for 0.5, else ``q25``, ``q90``...

    >>> quantile_name(0.5), quantile_name(0.25), quantile_name(0.9)
    ('median', 'q25', 'q90')
    """
    return "median" if q == 0.5 else f"q{round(100 * q):d}"


class Pool:
    """Reads pooled per puzzle (its repeats added up) for one set and sampler; rows solved
    by propagation, and rows without reads, are counted apart and enter no figure.

    >>> pool = Pool()
    >>> pool.add({"puzzle": "a", "num_reads": 10, "num_valid": 0, "num_target": 0,
    ...           "t_read": 0.01, "mean_energy": 4.0})
    >>> pool.add({"puzzle": "b", "route": "propagation", "num_reads": 0})
    >>> f = pool.figures()
    >>> f["puzzles"], f["propagation"], f["p_read"], f["p_read_high"] > 0, f["tts99_median_high"]
    (1, 1, 0.0, True, inf)

    A read that returned no sample counts as a failed read of its sampling time:

    >>> pool.add({"puzzle": "c", "num_reads": 1, "num_valid": 0, "num_target": 0,
    ...           "t_read": "", "t_sample": 30.0, "mean_energy": ""})
    >>> f = pool.figures()
    >>> f["puzzles"], f["reads"], f["tts99_median"]
    (2, 11, inf)
    """

    __slots__ = ("puzzles", "propagation", "unsampled")

    def __init__(self):
        self.puzzles: dict[str, list[float]] = {}  # puzzle -> [n, k, target, t*n, e*n]
        self.propagation = self.unsampled = 0

    def add(self, row: Mapping) -> None:
        """Add one row (see the class doc)."""
        if row.get("route") == "propagation" or row.get("solved_by") == "propagation":
            self.propagation += 1
            return
        n = _int(row.get("num_reads"))
        if n <= 0:
            self.unsampled += 1
            return
        key = f"{row.get('set', '')}|{row.get('index', '')}|{row.get('puzzle', '')}"
        acc = self.puzzles.setdefault(key, [0, 0, 0, 0.0, 0.0])
        acc[0] += n
        acc[1] += _int(row.get("num_valid"))
        acc[2] += _int(row.get("num_target"))
        t_read = as_float(row.get("t_read"))
        if not math.isfinite(t_read):  # no sample came back (an exact backend's time limit):
            t_read = as_float(row.get("t_sample")) / n  # its reads cost the sampling time
        acc[3] += (t_read if math.isfinite(t_read) else 0.0) * n
        acc[4] += as_float(row.get("mean_energy")) * n

    def figures(self, quantiles: Iterable[float] = QUANTILES, *, resamples: int = RESAMPLES,
                seed: int = 0) -> dict:
        """The set's figures: ``puzzles``, ``propagation``, ``reads``, ``valid_reads``,
        ``p_read`` (pooled) with its Wilson interval, each quantile of TTS99 over puzzles
        with its bootstrap interval (``tts99_median``, ``_low``, ``_high``, ``tts99_q25``...),
        the median time to target (``ttt99_median``...) and residual energy."""
        rows = np.array(list(self.puzzles.values()), dtype=float).reshape(-1, 5)
        n, k, hit = rows[:, 0], rows[:, 1], rows[:, 2]
        with np.errstate(invalid="ignore", divide="ignore"):
            t_read, energy = rows[:, 3] / n, rows[:, 4] / n
        reads, valid = int(n.sum()), int(k.sum())
        p_lo, p_hi = p_interval(valid, reads)
        out = {"puzzles": len(rows), "propagation": self.propagation, "reads": reads,
               "valid_reads": valid, "p_read": valid / reads if reads else math.nan,
               "p_read_low": p_lo, "p_read_high": p_hi}
        for stem, counts in (("tts99", k), ("ttt99", hit)):
            figs = [tts_figures(float(t), int(c), int(m)) for t, c, m in zip(t_read, counts, n)]
            pts, lows, highs = ([f[i] for f in figs] for i in (3, 4, 5))
            for q in quantiles:
                if stem == "ttt99" and q != 0.5:
                    continue
                name = f"{stem}_{quantile_name(q)}"
                out[name], out[f"{name}_low"], out[f"{name}_high"] = bootstrap_quantile(
                    pts, lows, highs, q, resamples=resamples, seed=seed)
        name = "residual_energy_median"
        out[name], out[f"{name}_low"], out[f"{name}_high"] = bootstrap_quantile(
            energy, q=0.5, resamples=resamples, seed=seed)
        return out


def optimal(records: Sequence[Mapping], axis: str, by: Sequence[str] = (),
            column: str = "tts99_median") -> list[dict]:
    """The optimal TTS over a swept ``axis``: per group of ``by``, the smallest ``column``
    over the axis's values (``at``; ``""`` when none is finite), with the interval
    ``[min of the lows, min of the highs]``.

    >>> recs = [{"num_sweeps": 10, "tts99_median": 2.0, "tts99_median_low": 1.0,
    ...          "tts99_median_high": 5.0},
    ...         {"num_sweeps": 100, "tts99_median": 1.5, "tts99_median_low": 1.2,
    ...          "tts99_median_high": 3.0}]
    >>> optimal(recs, "num_sweeps")
    [{'axis': 'num_sweeps', 'at': 100, 'tts99_optimal': 1.5, 'tts99_optimal_low': 1.0, 'tts99_optimal_high': 3.0}]
    """
    groups: dict[tuple, list[Mapping]] = {}
    for r in records:
        groups.setdefault(tuple(r.get(k) for k in by), []).append(r)
    out = []
    for key, rs in groups.items():
        rs = [r for r in rs if as_float(r.get(column)) == as_float(r.get(column))]
        if not rs:
            continue
        best = min(rs, key=lambda r: as_float(r[column]))
        value = as_float(best[column])
        out.append({**dict(zip(by, key)), "axis": axis,
                    "at": best.get(axis) if value < math.inf else "",
                    "tts99_optimal": value,
                    "tts99_optimal_low": min(as_float(r.get(f"{column}_low")) for r in rs),
                    "tts99_optimal_high": min(as_float(r.get(f"{column}_high")) for r in rs)})
    return out


def optimal_over_axes(records: Sequence[Mapping], axes: Sequence[str]) -> list[dict]:
    """:func:`optimal` over each of ``axes`` that has more than one value, the other axes
    held fixed (``records``: a summary per combination of the axes).

    >>> recs = [{"a": 1, "b": 1, "tts99_median": 2.0, "tts99_median_low": 1.0,
    ...          "tts99_median_high": 3.0},
    ...         {"a": 2, "b": 1, "tts99_median": 1.0, "tts99_median_low": 0.5,
    ...          "tts99_median_high": 4.0}]
    >>> [(o["axis"], o["at"], o["b"], o["tts99_optimal_high"]) for o in optimal_over_axes(recs, ["a", "b"])]
    [('a', 2, 1, 3.0)]
    """
    out = []
    for axis in axes:
        if len({str(r.get(axis)) for r in records}) > 1:
            out.extend(optimal(records, axis, [a for a in axes if a != axis]))
    return out


def as_float(v) -> float:
    """A value of a results row as a float (missing, a bool or not a number: NaN)."""
    try:
        return float(v) if v not in ("", None) and not isinstance(v, bool) else math.nan
    except (TypeError, ValueError):
        return math.nan


def _int(v) -> int:
    x = as_float(v)
    return int(x) if x == x else 0
