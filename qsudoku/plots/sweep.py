"""Pictures of sweeps: heatmaps and curves of a metric over the swept settings (re-exported
by :mod:`qsudoku.plots.grid`, whose conventions hold).

>>> import pandas as pd
>>> df = pd.DataFrame({"cell": [1, 2], "success_prob": [0.25, 0.75]})
>>> curves(df, "cell").axes[0].lines[0].get_ydata().tolist()
[0.25, 0.75]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qsudoku.plots.base import figure

__all__ = ["heatmap", "curves", "interval_curves", "HeatmapStyle", "CurveStyle"]


@dataclass(frozen=True)
class HeatmapStyle:
    """The look of a :func:`heatmap` (its keyword arguments after ``ax``)."""

    log: bool = False
    fmt: str = "{:.2f}"
    cmap: str = "viridis"
    title: str | None = None
    vmin: float | None = None
    vmax: float | None = None
    label: str | None = None


@dataclass(frozen=True)
class CurveStyle:
    """The look of :func:`curves` (its keyword arguments after ``ax``)."""

    logx: bool = False
    logy: bool = False
    title: str | None = None
    label: str | None = None


def _aggregate(df, keys: list[str], value: str, agg: str):
    """``agg(value)`` per ``keys``; an infinite value stays infinite (mean, median, max)."""
    import pandas as pd

    d = df.copy()
    d[value] = pd.to_numeric(d[value], errors="coerce")
    return d.groupby(keys, sort=True)[value].agg(agg)


def heatmap(df, x: str, y: str, value: str = "success_prob", *, agg: str = "mean", ax=None,
            **style):
    """A heatmap of ``agg(value)`` over the ``x`` and ``y`` values of sweep rows.

    Infinite or missing cells (e.g. TTS99 when nothing was solved) are grey and
    written ``inf``.

    Args:
        df: Sweep rows (:func:`qsudoku.experiments.sweep.load`), one or more per (x, y).
        x, y: Swept columns (e.g. ``"cell"`` and ``"unit"``).
        value: Column to aggregate (``success_prob``, ``tts99``, ``min_energy``...).
        agg: ``"mean"``, ``"median"``, ``"min"``, ``"max"``.
        ax: The axes to draw on (default: a new figure).
        **style: The fields of :class:`HeatmapStyle`: ``log`` (a logarithmic colour
            scale, for times), ``fmt`` (format of the numbers written in the cells,
            ``""`` for none), ``cmap``, ``title``, ``vmin``, ``vmax``, ``label`` (of the
            colour bar).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"cell": [1, 1, 2, 2], "unit": [1, 2, 1, 2], "success_prob": [.1, .2, .3, .4]})
    >>> fig = heatmap(df, "cell", "unit")
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['0.10', '0.30', '0.20', '0.40']
    """
    from matplotlib.colors import LogNorm

    st = HeatmapStyle(**style)
    vmin, vmax, fmt = st.vmin, st.vmax, st.fmt
    table = _aggregate(df, [y, x], value, agg).unstack(x)
    data = table.to_numpy(dtype=float)
    masked = np.ma.masked_invalid(data)
    fig, ax = figure(ax, (0.7 * data.shape[1] + 2.5, 0.45 * data.shape[0] + 1.5))
    import matplotlib

    cm = matplotlib.colormaps[st.cmap].with_extremes(bad="#d9d9d9")
    finite = data[np.isfinite(data)]
    norm = None
    if st.log and len(finite) and (finite > 0).all():
        norm = LogNorm(vmin=vmin or finite.min(), vmax=vmax or finite.max())
        vmin = vmax = None
    im = ax.imshow(masked, cmap=cm, norm=norm, vmin=vmin, vmax=vmax, aspect="auto",
                   origin="lower")
    ax.set_xticks(range(data.shape[1]), [_tick(v) for v in table.columns])
    ax.set_yticks(range(data.shape[0]), [_tick(v) for v in table.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if fmt:
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                v = data[i, j]
                text = fmt.format(v) if np.isfinite(v) else ("inf" if v == np.inf else "")
                colour = "black"
                if np.isfinite(v):
                    r, g, b, _ = cm(im.norm(v))
                    colour = "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color=colour)
    fig.colorbar(im, ax=ax, label=st.label or (value if agg == "mean" else f"{agg} {value}"))
    if st.title:
        ax.set_title(st.title)
    return fig


def _tick(v) -> str:
    return f"{v:.3g}" if isinstance(v, (float, np.floating)) else str(v)


def _by_hue(df, hue: str | None):
    """``(legend label, rows)`` per value of ``hue`` (one group, no label, without one)."""
    if hue is None:
        return [(None, df)]
    return [(f"{hue}={_tick(key)}", g) for key, g in df.groupby(hue, sort=True)]


def curves(df, x: str, value: str = "success_prob", *, hue: str | None = None,
           agg: str = "mean", band: bool = True, ax=None, **style):
    """Line plot of ``agg(value)`` against ``x``, one line per ``hue`` value.

    With ``band`` the spread over repeats/puzzles (min to max) is shaded.
    Infinite values (TTS99 of a setting that never succeeded) are left out of the
    line and marked with a cross at the top of the axes.  ``style``: the fields of
    :class:`CurveStyle` (``logx``, ``logy``, ``title``, ``label`` of the y axis).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"num_sweeps": [10, 10, 100, 100], "success_prob": [.1, .3, .5, .7]})
    >>> fig = curves(df, "num_sweeps")
    >>> fig.axes[0].lines[0].get_ydata().tolist()
    [0.2, 0.6]
    """
    import pandas as pd

    st = CurveStyle(**style)
    fig, ax = figure(ax, (5.0, 3.4))
    d = df.copy()
    d[value] = pd.to_numeric(d[value], errors="coerce")
    for name, g in _by_hue(d, hue):
        stats = g.groupby(x, sort=True)[value].agg([agg, "min", "max"])
        ok = np.isfinite(stats[agg].to_numpy(dtype=float))
        (line,) = ax.plot(stats.index[ok], stats[agg][ok], marker="o", ms=3.5, label=name)
        if band and ok.any():
            top = stats["max"].where(np.isfinite(stats["max"]))
            ax.fill_between(stats.index[ok], stats["min"][ok], top[ok], color=line.get_color(),
                            alpha=0.15, lw=0)
        never = list(stats.index[~ok])
        if never:
            ax.plot(never, [0.98] * len(never), "x", color=line.get_color(),
                    transform=ax.get_xaxis_transform(), clip_on=False)
    if st.logx:
        ax.set_xscale("log")
    if st.logy:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(st.label or (value if agg == "mean" else f"{agg} {value}"))
    ax.grid(alpha=0.3)
    if hue is not None:
        ax.legend(fontsize=8, frameon=False)
    if st.title:
        ax.set_title(st.title)
    return fig


def interval_curves(summary, x: str, *, hue: str | None = None, logx: bool = True):
    """Two panels against the swept ``x``: p per read and the median TTS99 over puzzles,
    each with its 95% interval as error bars (a summary of
    :func:`qsudoku.experiments.sweep.summarize`, ``by`` holding ``x`` and ``hue``).  An
    unbounded upper end (or median) is drawn as a caret at the top of the TTS99 panel.

    Reproduce: ``qsudoku sweep PUZZLES --param num_sweeps=10,100,1000 --reads 100 --plot DIR``.

    >>> import pandas as pd
    >>> s = pd.DataFrame({"num_sweeps": [10, 100], "p_read": [0.1, 0.5], "p_read_low": [0.05, 0.4],
    ...                   "p_read_high": [0.2, 0.6], "tts99_median": [2.0, float("inf")],
    ...                   "tts99_median_low": [1.0, 0.5], "tts99_median_high": [4.0, float("inf")]})
    >>> fig = interval_curves(s, "num_sweeps")
    >>> len(fig.axes), fig.axes[1].lines[0].get_ydata().tolist()
    (2, [2.0])
    """
    import pandas as pd

    fig, axes = figure(None, (9.0, 3.4), panels=2)
    drawn: list[float] = []  # finite TTS99 values drawn (the log scale needs some > 0)
    for name, g in _by_hue(summary, hue):
        g = g.sort_values(x)
        xs = g[x].to_numpy()
        for ax, col in zip(axes, ("p_read", "tts99_median")):
            y, lo, hi = (pd.to_numeric(g[c], errors="coerce").to_numpy(dtype=float)
                         for c in (col, f"{col}_low", f"{col}_high"))
            ok = np.isfinite(y)
            bounded = np.isfinite(hi[ok])
            err = [y[ok] - lo[ok], np.where(bounded, hi[ok], y[ok]) - y[ok]]
            bars = ax.errorbar(xs[ok], y[ok], yerr=err, fmt="o-", ms=3.5, capsize=3, label=name)
            if col == "tts99_median":
                drawn.extend(np.concatenate([y[ok], lo[ok]]).tolist())
            open_end = ~ok | ~np.isfinite(hi)
            if open_end.any():
                ax.plot(xs[open_end], [0.98] * int(open_end.sum()), "^",
                        color=bars.lines[0].get_color(), transform=ax.get_xaxis_transform(),
                        clip_on=False)
    axes[0].set_ylabel("p per read (95% Wilson)")
    axes[1].set_ylabel("median TTS99 over puzzles (s, 95% bootstrap)")
    for ax in axes:
        ax.set_xlabel(x)
        ax.grid(alpha=0.3)
        if logx:
            ax.set_xscale("log")
    if any(v > 0 for v in drawn):
        axes[1].set_yscale("log")
    if hue is not None:
        axes[0].legend(fontsize=8, frameon=False)
    return fig
