"""PNG figures of bench results (matplotlib, Agg backend, imported only when drawing).

* ``success_vs_budget.png``: the share of puzzles solved against the budget (several
  budgets), or whose time to solution is within ``t`` against ``t``;
* ``tts99_by_backend.png``: that time's distribution per backend (log scale);
* ``tts99_quantiles.png``: per fixed-sample backend, TTS99 quantiles over puzzles with
  their 95% bootstrap intervals;
* ``size_vs_time.png``: model variables against wall time per solve;
* ``easy_hard_easy.png`` instead for generated instances (:mod:`qsudoku.plots.curve`).

Reproduce: ``qsudoku bench FILE --sampler solve,sa -o F.csv --plot DIR``.
"""

from __future__ import annotations

import math
import os
from typing import Iterable, Mapping

from qsudoku.experiments.bench import summarize, typed_row
from qsudoku.io.output import make_directory
from qsudoku.plots.base import figure
from qsudoku.plots.grid import save_figure

__all__ = ["plot_all", "plot_success_vs_budget", "plot_tts99", "plot_tts99_quantiles",
           "plot_size_vs_time"]


def _by_sampler(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(str(r.get("sampler", "")), []).append(r)
    return dict(sorted(out.items()))


def _finite(xs) -> list[float]:
    return [x for x in xs if isinstance(x, float) and math.isfinite(x)]


def _solution_time(r: Mapping) -> float:
    """TTS99 of a fixed sample; the wall time to a valid grid (``inf`` if none) of a solve."""
    if r.get("fixed_sample"):
        return r.get("tts99", math.nan)
    return r.get("wall", math.nan) if r.get("valid") else math.inf


def _finish(fig, path: str) -> str:
    """Lay ``fig`` out and save it to ``path``; ``path``."""
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


def plot_success_vs_budget(rows: list[dict], path: str) -> str:
    """Success against the time budget (see module doc)."""
    fig, ax = figure(None, (9, 4.5), layout=None)
    budgets = {r.get("budget") for r in rows if r.get("budget") is not None}
    if len(budgets) > 1:
        for name, rs in _by_sampler(rows).items():
            bs = sorted({r["budget"] for r in rs if r.get("budget") is not None})
            solved = [sum(r["valid"] for r in rs if r["budget"] == b) /
                      max(1, sum(1 for r in rs if r["budget"] == b)) for b in bs]
            if bs:
                ax.plot(bs, solved, marker="o", label=f"{name}: solved")
        ax.set_xlabel("time budget per puzzle (s)")
        ax.set_ylabel("fraction")
        ax.set_title("success vs. time budget")
    else:
        for name, rs in _by_sampler(rows).items():
            rs = [r for r in rs if not (r.get("fixed_sample") and r.get("route") == "propagation")]
            fin = sorted(_finite(_solution_time(r) for r in rs))
            if not fin:
                ax.plot([], [], label=f"{name}: 0/{len(rs)} solved")
                continue
            ys = [(k + 1) / len(rs) for k in range(len(fin))]
            ax.step(fin, ys, where="post", label=f"{name} ({len(fin)}/{len(rs)})")
        ax.set_xlabel("time budget t (s): TTS99 <= t")
        ax.set_ylabel("fraction of puzzles")
        ax.set_title("puzzles solved at 99% confidence within t")
    if ax.has_data():  # budgets and TTS99 values are positive times
        ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _finish(fig, path)


def plot_tts99(rows: list[dict], path: str) -> str:
    """TTS99 distribution per backend, over the puzzles that needed sampling."""
    groups = _by_sampler(rows)
    fig, ax = figure(None, (max(5, 1.1 * len(groups) + 2), 4.5), layout=None)
    data, labels = [], []
    for name, rs in groups.items():
        sampled = [r for r in rs if r.get("route") != "propagation"]
        times = [_solution_time(r) for r in sampled]
        fin = _finite(times)
        data.append(fin or [math.nan])
        unsolved = sum(1 for t in times if t == math.inf)
        labels.append(f"{name}\n{unsolved}/{len(sampled)} inf"
                      f"\n(+{len(rs) - len(sampled)} by prop.)")
    ax.boxplot(data, showfliers=True)
    ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=7)
    if any(_finite(d) for d in data):
        ax.set_yscale("log")
    ax.set_ylabel("TTS99 (s); solve: wall time to a valid grid")
    ax.set_title("time to solution per backend")
    ax.grid(alpha=0.3, axis="y")
    return _finish(fig, path)


def plot_tts99_quantiles(summary: list[dict], path: str) -> str:
    """TTS99 quantiles per fixed-sample backend with their 95% intervals (see module doc)."""
    from qsudoku.experiments.stats import QUANTILES, quantile_name

    recs = [s for s in summary if s.get("fixed_sample")]
    fig, ax = figure(None, (max(5, 1.4 * len(recs) + 2), 4.5), layout=None)
    finite = [v for s in recs for k, v in s.items() if k.startswith("tts99_")
              and isinstance(v, float) and math.isfinite(v) and v > 0]
    top = 10 * max(finite) if finite else 1.0
    for j, q in enumerate(QUANTILES):
        name = f"tts99_{quantile_name(q)}"
        xs, ys, lo, hi, open_x, open_y = [], [], [], [], [], []
        for i, s in enumerate(recs):
            y, a, b = s.get(name, math.nan), s.get(f"{name}_low"), s.get(f"{name}_high")
            if y != y:
                continue
            x = i + (j - (len(QUANTILES) - 1) / 2) * 0.15
            y_shown = min(y, top)
            xs.append(x)
            ys.append(y_shown)
            lo.append(max(0.0, y_shown - min(a, top)))
            hi.append(max(0.0, min(b, top) - y_shown))
            if b == math.inf:
                open_x.append(x)
                open_y.append(top)
        if xs:
            color = f"C{j}"
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="none", capsize=3, color=color,
                        label=quantile_name(q))
            fin = [(x, y) for x, y in zip(xs, ys) if y < top]
            if fin:
                ax.plot(*zip(*fin), "o", color=color)
            if open_x:  # an unbounded value or upper end: a caret at the top
                ax.plot(open_x, open_y, "^", color=color, ms=7)
    ax.set_xticks(range(len(recs)), [f"{s['sampler']}\n{s['set']}"[:40] for s in recs],
                  fontsize=7)
    if finite:
        ax.set_yscale("log")
    ax.set_ylabel("TTS99 over puzzles (s), 95% bootstrap intervals")
    ax.set_title("TTS99 quantiles over puzzles (^ at the top: unbounded)")
    ax.grid(alpha=0.3, axis="y")
    if ax.has_data():
        ax.legend(fontsize=7)
    return _finish(fig, path)


def plot_size_vs_time(rows: list[dict], path: str) -> str:
    """Model variables against wall time."""
    fig, ax = figure(None, (7, 4.5), layout=None)
    for name, rs in _by_sampler(rows).items():
        pts = [(r["num_variables"], r["wall"]) for r in rs
               if isinstance(r.get("num_variables"), int) and r.get("wall") == r.get("wall")]
        if pts:
            xs, ys = zip(*pts)
            ax.scatter([max(x, 0.8) for x in xs], ys, s=12, alpha=0.7, label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("QUBO variables (0 = solved by propagation, drawn at 0.8)")
    ax.set_ylabel("wall time per solve (s)")
    ax.set_title("model size vs. time")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _finish(fig, path)


def plot_all(rows: Iterable[Mapping], out_dir: str, summary: list[dict] | None = None
             ) -> list[str]:
    """Write the four figures into ``out_dir`` (``summary``: that of the rows, made here if
    not given); returns their paths.  Rows of generated instances (a summary per
    ``fraction``) get the one figure that reads them, ``easy_hard_easy.png``
    (:mod:`qsudoku.plots.curve`): the others would pool the fractions."""
    from qsudoku.plots.curve import has_fractions, plot_curve

    rows = [typed_row(r) for r in rows]
    if summary is None:
        summary = summarize(rows)
    make_directory(out_dir, "--plot")
    if has_fractions(summary):
        return [plot_curve(summary, os.path.join(out_dir, "easy_hard_easy.png"))]
    return [plot_success_vs_budget(rows, os.path.join(out_dir, "success_vs_budget.png")),
            plot_tts99(rows, os.path.join(out_dir, "tts99_by_backend.png")),
            plot_tts99_quantiles(summary, os.path.join(out_dir, "tts99_quantiles.png")),
            plot_size_vs_time(rows, os.path.join(out_dir, "size_vs_time.png"))]
