"""Pictures: grids, energy histograms, and heatmaps and curves of sweeps.

Every function draws on ``ax=`` or a new pyplot-free :class:`matplotlib.figure.Figure`
and returns the figure; matplotlib is imported inside the functions.  Grid styles: givens
bold black, propagated digits blue, sampled digits orange italic; thick lines between
regions (from ``puzzle.units``), extra units shaded, cells of broken constraints red.

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

from qsudoku.plots.base import figure, need_matplotlib

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


def region_ids(puzzle) -> list[int]:
    """For each flat cell, the index of its box/region unit (``-1`` if it has none).

    Thick borders are drawn between cells whose ids differ.

    >>> from qsudoku.model.puzzle import Puzzle
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
    """Cells to highlight for broken constraint labels (from :class:`~qsudoku.model.decode.Decoded`).

    Returns ``(conflict, missing)``: ``conflict`` holds the cells of broken cell
    constraints and the cells holding a digit twice in a unit; ``missing`` the
    cells of a unit that lacks a digit altogether.

    >>> from qsudoku.model.puzzle import Puzzle
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
        candidates: A :class:`~qsudoku.model.propagate.Candidates`: empty cells show
            their candidates as small pencil marks.
        ax: Axes to draw on (default: a new figure).
        title: Axes title.
        legend: Show which style means what.

    Returns:
        The figure.
    """
    need_matplotlib()
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch, Rectangle

    n = puzzle.size
    fig, ax = figure(ax, (0.42 * n + 1.2, 0.42 * n + 1.6))
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


def draw_result(result, *, ax=None, title: str | None = None, legend: bool = True):
    """Draw a :class:`~qsudoku.model.result.Result`: its best grid, what propagation fixed,
    and the constraints its best sample breaks."""
    from qsudoku.solving.rounds import best_read

    fixed = result.model.fixed if result.model is not None else result.grid
    best = best_read(result.decoded) if result.decoded else None
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
        model: A :class:`~qsudoku.model.qubo.QuboModel`.
        annotate: Write the values in the cells (default: if at most 32 variables).

    >>> from qsudoku.io import parse_puzzle
    >>> from qsudoku.model.propagate import propagate
    >>> from qsudoku.model.qubo import build_model
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
    fig, ax = figure(ax, (0.22 * n + 2.5, 0.22 * n + 2.0))
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
        data: A :class:`~qsudoku.model.result.Result`, a list of
            :class:`~qsudoku.model.decode.Decoded`, or a :class:`dimod.SampleSet`
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
    >>> fig = energy_histogram(dimod.SampleSet.from_samples([[0]], "BINARY", energy=[0.0]))
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['valid']
    """
    e, w, valid = _decoded_of(data)
    if valid is None:
        valid = np.isclose(e, 0.0)
    fig, ax = figure(ax, (5.0, 3.2))
    if bins is None:
        lo, hi = (float(e.min()), float(e.max())) if len(e) else (0.0, 1.0)
        if len(e) and np.allclose(e, np.round(e)) and hi - lo <= 200:
            bins = np.arange(math.floor(lo) - 0.5, math.ceil(hi) + 1.5, 1.0)
        else:
            bins = 30
    if density and w.sum():
        w = w / w.sum()
    pre = f"{label}: " if label else ""
    parts = [(m, colour, f"{pre}{name}") for m, colour, name in
             ((valid, "#2e8b57", "valid"), (~valid, "#c0504d", "invalid")) if m.any()]
    if parts:  # (a legend entry only for a kind of read that occurs)
        ax.hist([e[m] for m, _, _ in parts], bins=bins, weights=[w[m] for m, _, _ in parts],
                stacked=True, color=[c for _, c, _ in parts], label=[t for _, _, t in parts])
        ax.legend(fontsize=8, frameon=False)
    ax.set_xlabel("energy")
    ax.set_ylabel("fraction of reads" if density else "reads")
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
    from qsudoku.errors import ConfigError
    from qsudoku.io.output import atomic_write, check_target

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


from qsudoku.plots.sweep import curves, heatmap  # noqa: E402 - re-exported
