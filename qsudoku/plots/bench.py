"""PNG figures of bench results (matplotlib, Agg backend, imported only when drawing).

* ``success_vs_budget.png``: with several ``--time-budget`` values, the share of
  puzzles solved and the mean success probability per read against the budget;
  with one budget (or none), the share of puzzles whose TTS99 is within ``t``
  against ``t`` (the budget each backend would need).
* ``tts99_by_backend.png``: TTS99 distribution per backend over the puzzles that
  needed sampling (log scale; unsolved ones, TTS99 = inf, are counted under each
  box, as are those propagation solved alone).
* ``size_vs_time.png``: model variables against wall time per solve.
"""

from __future__ import annotations

import math
import os
from typing import Iterable, Mapping

from qsudoku.experiments.bench import typed_row
from qsudoku.io.output import make_directory
from qsudoku.plots.grid import save_figure

__all__ = ["plot_all", "plot_success_vs_budget", "plot_tts99", "plot_size_vs_time"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _by_sampler(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(str(r.get("sampler", "")), []).append(r)
    return dict(sorted(out.items()))


def _finite(xs) -> list[float]:
    return [x for x in xs if isinstance(x, float) and math.isfinite(x)]


def _finish(plt, fig, path: str) -> str:
    """Lay ``fig`` out, save it to ``path`` and close it; ``path``."""
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def plot_success_vs_budget(rows: list[dict], path: str) -> str:
    """Success against the time budget (see module doc)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    budgets = {r.get("budget") for r in rows if r.get("budget") is not None}
    if len(budgets) > 1:
        for name, rs in _by_sampler(rows).items():
            bs = sorted({r["budget"] for r in rs if r.get("budget") is not None})
            solved = [sum(r["valid"] for r in rs if r["budget"] == b) /
                      max(1, sum(1 for r in rs if r["budget"] == b)) for b in bs]
            probs = [sum(r["success_prob"] for r in rs if r["budget"] == b and
                         r["success_prob"] == r["success_prob"]) /
                     max(1, sum(1 for r in rs if r["budget"] == b)) for b in bs]
            line, = ax.plot(bs, solved, marker="o", label=f"{name}: solved")
            ax.plot(bs, probs, marker="x", ls="--", color=line.get_color(),
                    label=f"{name}: p per read")
        ax.set_xlabel("time budget per puzzle (s)")
        ax.set_ylabel("fraction")
        ax.set_title("success vs. time budget")
    else:
        for name, rs in _by_sampler(rows).items():
            tts = sorted(r["tts99"] for r in rs if r["tts99"] == r["tts99"])
            fin = _finite(tts)
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
    return _finish(plt, fig, path)


def plot_tts99(rows: list[dict], path: str) -> str:
    """TTS99 distribution per backend, over the puzzles that needed sampling."""
    plt = _pyplot()
    groups = _by_sampler(rows)
    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(groups) + 2), 4.5))
    data, labels = [], []
    for name, rs in groups.items():
        sampled = [r for r in rs if r.get("route") != "propagation"]
        fin = _finite(r["tts99"] for r in sampled)
        data.append(fin or [math.nan])
        unsolved = sum(1 for r in sampled if r["tts99"] == math.inf)
        labels.append(f"{name}\n{unsolved}/{len(sampled)} inf"
                      f"\n(+{len(rs) - len(sampled)} by prop.)")
    ax.boxplot(data, showfliers=True)
    ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=7)
    if any(_finite(d) for d in data):
        ax.set_yscale("log")
    ax.set_ylabel("TTS99 (s)")
    ax.set_title("time to solution (99%) per backend")
    ax.grid(alpha=0.3, axis="y")
    return _finish(plt, fig, path)


def plot_size_vs_time(rows: list[dict], path: str) -> str:
    """Model variables against wall time."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
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
    return _finish(plt, fig, path)


def plot_all(rows: Iterable[Mapping], out_dir: str) -> list[str]:
    """Write the three figures into ``out_dir``; returns their paths."""
    rows = [typed_row(r) for r in rows]
    make_directory(out_dir, "--plot")
    return [plot_success_vs_budget(rows, os.path.join(out_dir, "success_vs_budget.png")),
            plot_tts99(rows, os.path.join(out_dir, "tts99_by_backend.png")),
            plot_size_vs_time(rows, os.path.join(out_dir, "size_vs_time.png"))]
