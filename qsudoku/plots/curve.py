"""The easy-hard-easy curve: success within the time limit and the median time against the
fraction of cells given, one line per sampler (Lewis 2007; Lloyd & Amos 2020), from a
summary with ``size`` and ``fraction`` columns.  Reproduce: ``qsudoku bench --spec
benchmarks/studies/phase_curve_9.toml --plot DIR``.

>>> summary = [{"size": 9, "fraction": f, "sampler": "sa", "budget": 1.0, "n": 4,
...             "solved_pct": p, "solved_pct_low": p / 2, "solved_pct_high": min(100, p + 20),
...             "wall_median": 0.1} for f, p in ((0.0, 100.0), (0.5, 50.0), (1.0, 100.0))]
>>> fig = curve_figure(summary)
>>> [ax.get_ylabel() for ax in fig.axes]
['solved within the limit (%, 95% Wilson)', 'median wall time (s)']
>>> fig.axes[0].lines[0].get_ydata().tolist()
[100.0, 50.0, 100.0]
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from qsudoku.experiments.stats import as_float

__all__ = ["curve_figure", "plot_curve", "has_fractions"]


def has_fractions(summary: Sequence[Mapping]) -> bool:
    """Whether ``summary`` has rows per fraction given (generated instances)."""
    return any(s.get("fraction") is not None for s in summary)


def curve_figure(summary: Sequence[Mapping]):
    """Two panels against the fraction given: the share solved within the limit with its
    95% Wilson interval (a band), and the median wall time (log scale), per sampler; the
    title names the size(s) and the limit(s)."""
    from qsudoku.plots.base import figure

    recs = [s for s in summary if s.get("fraction") is not None]
    fig, (left, right) = figure(None, (10.0, 3.8), panels=2)
    samplers = list(dict.fromkeys(str(s.get("sampler", "")) for s in recs))
    drawn = False
    markers = "os^vDP*X"
    for i, name in enumerate(samplers):
        marker = markers[i % len(markers)] + "-"
        mine = sorted((s for s in recs if str(s.get("sampler", "")) == name),
                      key=lambda s: float(s["fraction"]))
        xs = [float(s["fraction"]) for s in mine]
        ys = [as_float(s.get("solved_pct")) for s in mine]
        (line,) = left.plot(xs, ys, marker, ms=3.5, label=name, alpha=0.85)
        left.fill_between(xs, [as_float(s.get("solved_pct_low")) for s in mine],
                          [as_float(s.get("solved_pct_high")) for s in mine],
                          color=line.get_color(), alpha=0.15, linewidth=0)
        walls = [as_float(s.get("wall_median")) for s in mine]
        right.plot(xs, walls, marker, ms=3.5, color=line.get_color(), label=name, alpha=0.85)
        drawn = drawn or any(w > 0 for w in walls if math.isfinite(w))
    left.set_ylabel("solved within the limit (%, 95% Wilson)")
    left.set_ylim(-3, 103)
    right.set_ylabel("median wall time (s)")
    if drawn:
        right.set_yscale("log")
    for ax in (left, right):
        ax.set_xlabel("fraction of cells given")
        ax.set_xlim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    right.legend(fontsize=8, frameon=False, loc="upper right")
    sizes = sorted({int(s["size"]) for s in recs if s.get("size") is not None})
    limits = sorted({float(s["budget"]) for s in recs if s.get("budget") is not None})
    for b in limits:  # the time limit, where the unsolved instances end
        right.axhline(b, color="0.5", linestyle=":", linewidth=1)
    counts = sorted({int(s["n"]) for s in recs if s.get("n") is not None})
    fig.suptitle(", ".join(filter(None, (
        ", ".join(f"{n}x{n}" for n in sizes),
        "limit " + ", ".join(f"{b:g} s" for b in limits) if limits else "",
        "n = " + ", ".join(str(c) for c in counts) + " a point" if counts else ""))),
        fontsize=10)
    return fig


def plot_curve(summary: Sequence[Mapping], path: str) -> str:
    """Write :func:`curve_figure` of ``summary`` to ``path``; returns ``path``."""
    from qsudoku.plots.grid import save_figure

    save_figure(curve_figure(summary), path, dpi=110)
    return path
