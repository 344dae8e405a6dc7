"""Pictures: grids, energy histograms, and heatmaps and curves of sweeps.

Every function draws on a matplotlib ``Axes`` (``ax=``) or, without one, on a
new :class:`matplotlib.figure.Figure` made without pyplot (so nothing depends on
a GUI backend; saving uses Agg/SVG), and returns the figure.  matplotlib is
imported inside the functions: ``import qsudoku.plot`` stays light.

Grid styles: givens bold black, digits found by propagation blue, digits found
by the sampler orange italic; thick lines between cells of different boxes or
regions (read from ``puzzle.units``, so jigsaws work), extra units (diagonals)
shaded, cells of broken constraints red.

>>> from qsudoku.io import parse_puzzle
>>> fig = draw_grid(parse_puzzle("1..." "..2." ".3.." "...4"))
>>> len(fig.axes)
1
"""

from __future__ import annotations

import math
import os
from typing import Sequence

import numpy as np

from .errors import BackendUnavailableError

__all__ = ["draw_grid", "draw_result", "region_ids", "broken_cells", "energy_histogram",
           "qubo_matrix", "heatmap", "curves", "save_figure", "STYLES", "MAX_PIXELS"]

#: Colours of the grid styles.
STYLES = {
    "given": "#000000",
    "propagated": "#1f5fbf",
    "annealed": "#d2691e",
    "broken": "#f4a6a6",
    "missing": "#fbe0e0",
    "extra": "#ffe37a",
    "candidates": "#808080",
}


def _figure(ax, figsize):
    """``(fig, ax)``: the given axes, or a new pyplot-free figure with one axes."""
    if ax is not None:
        return ax.figure, ax
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise BackendUnavailableError(
            "pictures need matplotlib: pip install 'qsudoku[notebooks]'") from None
    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def region_ids(puzzle) -> list[int]:
    """For each flat cell, the index of its box/region unit (``-1`` if it has none).

    Thick borders are drawn between cells whose ids differ.

    >>> from qsudoku.puzzle import Puzzle
    >>> region_ids(Puzzle.standard([0] * 16))[:8]
    [0, 0, 1, 1, 0, 0, 1, 1]
    """
    ids = [-1] * (puzzle.size * puzzle.size)
    for u in puzzle.units:
        if u.kind in ("box", "region"):
            for c in u.cells:
                ids[c] = u.index
    return ids


def broken_cells(puzzle, grid: Sequence[int], broken: Sequence[tuple]) -> tuple[set, set]:
    """Cells to highlight for broken constraint labels (from :class:`~qsudoku.decode.Decoded`).

    Returns ``(conflict, missing)``: ``conflict`` holds the cells of broken cell
    constraints and the cells holding a digit twice in a unit; ``missing`` the
    cells of a unit that lacks a digit altogether.

    >>> from qsudoku.puzzle import Puzzle
    >>> p = Puzzle.standard([0] * 16)
    >>> grid = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 2]
    >>> conflict, missing = broken_cells(p, grid, [("unit", 3, 2), ("unit", 3, 1), ("cell", (0, 0))])
    >>> sorted(conflict), sorted(missing)
    ([0, 14, 15], [12, 13])
    """
    n = puzzle.size
    conflict, missing = set(), set()
    for label in broken:
        if label[0] == "cell":
            r, c = label[1]
            conflict.add(r * n + c)
        else:
            unit, d = puzzle.units[label[1]], label[2]
            holding = [c for c in unit.cells if grid[c] == d]
            if holding:
                conflict.update(holding)
            else:
                missing.update(unit.cells)
    return conflict, missing - conflict


def draw_grid(puzzle, grid: Sequence[int] | None = None, *, fixed: Sequence[int] | None = None,
              broken: Sequence[tuple] = (), candidates=None, ax=None, title: str | None = None,
              legend: bool = True):
    """Draw a grid.

    Args:
        puzzle: The puzzle (its givens, units and alphabet).
        grid: Values to show (default: ``fixed`` or the givens); 0 = empty.
        fixed: The grid after propagation: its non-given digits are drawn as
            propagated, digits of ``grid`` beyond it as annealed.
        broken: Broken constraint labels (``Decoded.broken``) to highlight.
        candidates: A :class:`~qsudoku.propagate.Candidates`: empty cells show
            their candidates as small pencil marks.
        ax: Axes to draw on (default: a new figure).
        title: Axes title.
        legend: Show which style means what.

    Returns:
        The figure.
    """
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch, Rectangle

    n = puzzle.size
    fig, ax = _figure(ax, (0.42 * n + 1.2, 0.42 * n + 1.6))
    givens = list(puzzle.givens)
    fixed = list(fixed) if fixed is not None else (list(candidates.grid) if candidates else givens)
    grid = list(grid) if grid is not None else fixed
    conflict, missing = broken_cells(puzzle, grid, broken)

    extra = [c for u in puzzle.units if u.kind == "extra" for c in u.cells]
    for c in extra:
        r, col = divmod(c, n)
        ax.add_patch(Rectangle((col, r), 1, 1, color=STYLES["extra"], alpha=0.7, lw=0, zorder=0))
    for cells, colour in ((missing, STYLES["missing"]), (conflict, STYLES["broken"])):
        for c in cells:
            r, col = divmod(c, n)
            ax.add_patch(Rectangle((col, r), 1, 1, color=colour, alpha=0.85, lw=0, zorder=1))

    thin = [[(k, 0), (k, n)] for k in range(1, n)] + [[(0, k), (n, k)] for k in range(1, n)]
    ax.add_collection(LineCollection(thin, colors="#b0b0b0", linewidths=0.6, zorder=2))
    ids = region_ids(puzzle)
    thick = [[(0, 0), (n, 0)], [(n, 0), (n, n)], [(n, n), (0, n)], [(0, n), (0, 0)]]
    for r in range(n):
        for c in range(n):
            if c + 1 < n and ids[r * n + c] != ids[r * n + c + 1]:
                thick.append([(c + 1, r), (c + 1, r + 1)])
            if r + 1 < n and ids[r * n + c] != ids[(r + 1) * n + c]:
                thick.append([(c, r + 1), (c + 1, r + 1)])
    ax.add_collection(LineCollection(thick, colors="black", linewidths=2.0, zorder=3,
                                     capstyle="projecting"))

    cell_pt = _cell_points(fig, ax, n)
    size = max(4.0, 0.55 * cell_pt)
    used = set()
    for c, d in enumerate(grid):
        r, col = divmod(c, n)
        if d:
            if givens[c]:
                style = dict(color=STYLES["given"], fontweight="bold")
                used.add("given")
            elif fixed[c]:
                style = dict(color=STYLES["propagated"])
                used.add("propagated")
            else:
                style = dict(color=STYLES["annealed"], fontstyle="italic")
                used.add("annealed")
            ax.text(col + 0.5, r + 0.53, puzzle.alphabet[d - 1], ha="center", va="center",
                    fontsize=size, zorder=4, **style)
        elif candidates is not None:
            _pencil(ax, puzzle, candidates.digits(c), r, col, size)
        elif c in conflict:
            ax.text(col + 0.5, r + 0.53, "?", ha="center", va="center", fontsize=size,
                    color="#a02020", zorder=4)
    ax.set_xlim(-0.05, n + 0.05)
    ax.set_ylim(n + 0.05, -0.05)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for s in ax.spines.values():
        s.set_visible(False)
    if title:
        ax.set_title(title, fontsize=max(8.0, min(12.0, size)))
    if legend:
        handles = [Patch(color=STYLES[k], label=k) for k in ("given", "propagated", "annealed")
                   if k in used]
        if extra:
            handles.append(Patch(color=STYLES["extra"], label="diagonal"))
        if conflict:
            handles.append(Patch(color=STYLES["broken"], label="broken"))
        if missing:
            handles.append(Patch(color=STYLES["missing"], label="unit lacks a digit"))
        if handles:
            ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                      ncol=len(handles), frameon=False, fontsize=8, handlelength=1.0,
                      columnspacing=1.0)
    return fig


def _cell_points(fig, ax, n: int) -> float:
    """Approximate size of one cell in points."""
    box = ax.get_position()
    w, h = fig.get_size_inches()
    return min(box.width * w, box.height * h) * 72.0 / n * 0.9


def _pencil(ax, puzzle, digits, r, c, size) -> None:
    k = math.ceil(math.sqrt(puzzle.size))
    for d in digits:
        i, j = divmod(d - 1, k)
        ax.text(c + (j + 0.5) / k, r + (i + 0.55) / k, puzzle.alphabet[d - 1], ha="center",
                va="center", fontsize=max(3.0, size / k * 1.1), color=STYLES["candidates"],
                zorder=4)


def _best(decoded):
    from .sampling import best_read

    return best_read(decoded) if decoded else None


def draw_result(result, *, ax=None, title: str | None = None, legend: bool = True):
    """Draw a :class:`~qsudoku.pipeline.Result`: its best grid, what propagation fixed,
    and the constraints its best sample breaks."""
    fixed = result.model.fixed if result.model is not None else result.grid
    best = _best(result.decoded)
    broken = best.broken if best is not None else ()
    if title is None:
        status = "valid" if result.valid else "NOT valid"
        title = f"{result.puzzle.name or 'puzzle'}: {status} ({result.solved_by})"
    return draw_grid(result.puzzle, result.grid, fixed=fixed, broken=broken, ax=ax, title=title,
                     legend=legend)


def qubo_matrix(model, *, ax=None, title: str | None = None, annotate: bool | None = None):
    """The upper-triangular QUBO matrix of a (small) model as a picture.

    Linear biases are on the diagonal, couplers above it; variables are labelled
    ``rRcC=D`` (1-based), in the model's variable order.

    Args:
        model: A :class:`~qsudoku.qubo.QuboModel`.
        annotate: Write the values in the cells (default: if at most 32 variables).

    >>> from qsudoku.io import parse_puzzle
    >>> from qsudoku.propagate import propagate
    >>> from qsudoku.qubo import build_model
    >>> m = build_model(propagate(parse_puzzle("12.." "34.." "...." "...."), rules=()))
    >>> fig = qubo_matrix(m)
    >>> fig.axes[0].images[0].get_array().shape
    (32, 32)
    """
    n = model.num_variables
    index = {v: i for i, v in enumerate(model.variables)}
    q = np.zeros((n, n))
    for v, b in model.bqm.linear.items():
        q[index[v], index[v]] = b
    for (u, v), b in model.bqm.quadratic.items():
        i, j = sorted((index[u], index[v]))
        q[i, j] += b
    fig, ax = _figure(ax, (0.22 * n + 2.5, 0.22 * n + 2.0))
    top = float(np.abs(q).max()) or 1.0
    shown = np.ma.masked_where(np.tril(np.ones_like(q, bool), -1) | (q == 0), q)
    im = ax.imshow(shown, cmap="RdBu_r", vmin=-top, vmax=top)
    names = [f"r{r + 1}c{c + 1}={model.puzzle.alphabet[d - 1]}" for r, c, d in model.variables]
    size = max(4.0, min(8.0, 200.0 / max(n, 1)))
    ax.set_xticks(range(n), names, rotation=90, fontsize=size)
    ax.set_yticks(range(n), names, fontsize=size)
    if annotate if annotate is not None else n <= 32:
        for i, j in zip(*np.nonzero(q)):
            ax.text(j, i, f"{q[i, j]:g}", ha="center", va="center", fontsize=size * 0.9,
                    color="white" if abs(q[i, j]) > 0.6 * top else "black")
    fig.colorbar(im, ax=ax, shrink=0.7, label="QUBO coefficient")
    ax.set_title(title or f"QUBO: {n} variables, {model.num_interactions} couplers, "
                          f"offset {model.bqm.offset:g}", fontsize=9)
    return fig


def _decoded_of(data):
    """``(energies, weights, valid or None)`` of a Result, a list of Decoded or a SampleSet."""
    decoded = getattr(data, "decoded", None)
    if decoded is None and isinstance(data, (list, tuple)):
        decoded = data
    if decoded is not None:
        return (np.array([d.energy for d in decoded], float),
                np.array([d.num_occurrences for d in decoded], float),
                np.array([d.valid for d in decoded], bool))
    rec = data.record
    occ = rec.num_occurrences if "num_occurrences" in rec.dtype.names else np.ones(len(rec))
    return np.asarray(rec.energy, float), np.asarray(occ, float), None


def energy_histogram(data, *, ax=None, label: str | None = None, bins=None,
                     title: str | None = None, density: bool = False):
    """Histogram of the energies of a sample set, valid and invalid reads stacked.

    Args:
        data: A :class:`~qsudoku.pipeline.Result`, a list of
            :class:`~qsudoku.decode.Decoded`, or a :class:`dimod.SampleSet`
            (then energy 0 is taken as valid).
        ax: Axes to draw on (default: a new figure).
        label: Prefix of the legend labels (e.g. the sampler's name).
        bins: Histogram bins (default: one per integer energy when energies are
            integers, else 30).
        density: Fractions of reads instead of counts.

    >>> import dimod
    >>> ss = dimod.SampleSet.from_samples([[0], [1], [1]], "BINARY", energy=[0.0, 2.0, 2.0])
    >>> fig = energy_histogram(ss)
    >>> [round(p.get_height()) for p in fig.axes[0].patches if p.get_height()]
    [1, 2]
    """
    e, w, valid = _decoded_of(data)
    if valid is None:
        valid = np.isclose(e, 0.0)
    fig, ax = _figure(ax, (5.0, 3.2))
    if bins is None:
        lo, hi = (float(e.min()), float(e.max())) if len(e) else (0.0, 1.0)
        if len(e) and np.allclose(e, np.round(e)) and hi - lo <= 200:
            bins = np.arange(math.floor(lo) - 0.5, math.ceil(hi) + 1.5, 1.0)
        else:
            bins = 30
    if density and w.sum():
        w = w / w.sum()
    pre = f"{label}: " if label else ""
    ax.hist([e[valid], e[~valid]], bins=bins, weights=[w[valid], w[~valid]], stacked=True,
            color=["#2e8b57", "#c0504d"], label=[f"{pre}valid", f"{pre}invalid"])
    ax.set_xlabel("energy")
    ax.set_ylabel("fraction of reads" if density else "reads")
    ax.legend(fontsize=8, frameon=False)
    if title:
        ax.set_title(title)
    return fig


def _aggregate(df, keys: list[str], value: str, agg: str):
    """``agg(value)`` per ``keys``; an infinite value stays infinite (mean, median, max)."""
    import pandas as pd

    d = df.copy()
    d[value] = pd.to_numeric(d[value], errors="coerce")
    return d.groupby(keys, sort=True)[value].agg(agg)


def heatmap(df, x: str, y: str, value: str = "success_prob", *, agg: str = "mean", ax=None,
            log: bool = False, fmt: str = "{:.2f}", cmap: str = "viridis",
            title: str | None = None, vmin=None, vmax=None, label: str | None = None):
    """A heatmap of ``agg(value)`` over the ``x`` and ``y`` values of sweep rows.

    Infinite or missing cells (e.g. TTS99 when nothing was solved) are grey and
    written ``inf``.

    Args:
        df: Sweep rows (:func:`qsudoku.sweep.load`), one or more per (x, y).
        x, y: Swept columns (e.g. ``"cell"`` and ``"unit"``).
        value: Column to aggregate (``success_prob``, ``tts99``, ``min_energy``...).
        agg: ``"mean"``, ``"median"``, ``"min"``, ``"max"``.
        log: Logarithmic colour scale (for times).
        fmt: Format of the numbers written in the cells (``""`` for none).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"cell": [1, 1, 2, 2], "unit": [1, 2, 1, 2], "success_prob": [.1, .2, .3, .4]})
    >>> fig = heatmap(df, "cell", "unit")
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['0.10', '0.30', '0.20', '0.40']
    """
    from matplotlib.colors import LogNorm

    table = _aggregate(df, [y, x], value, agg).unstack(x)
    data = table.to_numpy(dtype=float)
    masked = np.ma.masked_invalid(data)
    fig, ax = _figure(ax, (0.7 * data.shape[1] + 2.5, 0.45 * data.shape[0] + 1.5))
    import matplotlib

    cm = matplotlib.colormaps[cmap].with_extremes(bad="#d9d9d9")
    finite = data[np.isfinite(data)]
    norm = None
    if log and len(finite) and (finite > 0).all():
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
    fig.colorbar(im, ax=ax, label=label or (value if agg == "mean" else f"{agg} {value}"))
    if title:
        ax.set_title(title)
    return fig


def _tick(v) -> str:
    return f"{v:.3g}" if isinstance(v, (float, np.floating)) else str(v)


def curves(df, x: str, value: str = "success_prob", *, hue: str | None = None,
           agg: str = "mean", band: bool = True, ax=None, logx: bool = False,
           logy: bool = False, title: str | None = None, label: str | None = None):
    """Line plot of ``agg(value)`` against ``x``, one line per ``hue`` value.

    With ``band`` the spread over repeats/puzzles (min to max) is shaded.
    Infinite values (TTS99 of a setting that never succeeded) are left out of the
    line and marked with a cross at the top of the axes.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"num_sweeps": [10, 10, 100, 100], "success_prob": [.1, .3, .5, .7]})
    >>> fig = curves(df, "num_sweeps")
    >>> fig.axes[0].lines[0].get_ydata().tolist()
    [0.2, 0.6]
    """
    import pandas as pd

    fig, ax = _figure(ax, (5.0, 3.4))
    d = df.copy()
    d[value] = pd.to_numeric(d[value], errors="coerce")
    groups = [(None, d)] if hue is None else list(d.groupby(hue, sort=True))
    for key, g in groups:
        stats = g.groupby(x, sort=True)[value].agg([agg, "min", "max"])
        ok = np.isfinite(stats[agg].to_numpy(dtype=float))
        name = None if hue is None else f"{hue}={_tick(key)}"
        (line,) = ax.plot(stats.index[ok], stats[agg][ok], marker="o", ms=3.5, label=name)
        if band and ok.any():
            top = stats["max"].where(np.isfinite(stats["max"]))
            ax.fill_between(stats.index[ok], stats["min"][ok], top[ok], color=line.get_color(),
                            alpha=0.15, lw=0)
        never = list(stats.index[~ok])
        if never:
            ax.plot(never, [0.98] * len(never), "x", color=line.get_color(),
                    transform=ax.get_xaxis_transform(), clip_on=False)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(label or (value if agg == "mean" else f"{agg} {value}"))
    ax.grid(alpha=0.3)
    if hue is not None:
        ax.legend(fontsize=8, frameon=False)
    if title:
        ax.set_title(title)
    return fig


#: Largest picture :func:`save_figure` renders, in pixels (about 200 MB of RGBA).
MAX_PIXELS = 50_000_000


def save_figure(fig, path: str, *, dpi: int = 110) -> str:
    """Save ``fig`` (``.png``, ``.svg``, ``.pdf``) without any GUI backend; returns ``path``.

    The file is written atomically and never through a link (see
    :mod:`qsudoku.io.output`).

    Raises:
        ConfigError: ``dpi`` is not a positive number, the picture would exceed
            :data:`MAX_PIXELS`, or ``path`` cannot be written.

    >>> from matplotlib.figure import Figure
    >>> save_figure(Figure(figsize=(10, 10)), "big.png", dpi=2000)
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: dpi 2000 makes a 20000 x 20000 pixel picture; the limit is 50000000 pixels (lower the dpi)
    """
    from .errors import ConfigError
    from .io.output import atomic_write, check_target

    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not 0 < dpi < math.inf:
        raise ConfigError(f"dpi {dpi!r} must be a positive number")
    width, height = (round(float(x) * dpi) for x in fig.get_size_inches())
    if width * height > MAX_PIXELS:
        raise ConfigError(f"dpi {dpi} makes a {width} x {height} pixel picture; the limit is "
                          f"{MAX_PIXELS} pixels (lower the dpi)")
    check_target(path)
    fmt = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    atomic_write(path, lambda f: fig.savefig(f, format=fmt, dpi=dpi, bbox_inches="tight"))
    return path
