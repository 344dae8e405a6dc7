"""The figures and numbers of ``docs/model.md``, made from the code (not drawn by hand).

Run from the repository's root::

    python docs/_figures/model_figures.py figures   # qubo_matrix.png, model_graph.png here
    python docs/_figures/model_figures.py sizes     # variables and couplers of the shipped sets
    python docs/_figures/model_figures.py gap       # lowest energies: exact on 4x4s, sa on 9x9s

The 4x4 of both figures is the first puzzle of ``data/generated/sudoku4/unique.txt``,
reduced by its givens only (``propagate(p, rules=())``): with the default rules every
shipped 4x4 is solved by propagation alone and has no model left to draw.
"""

from __future__ import annotations

import collections
import statistics
import sys
from pathlib import Path

import numpy as np

import qsudoku
from qsudoku.io import dataset_path

HERE = Path(__file__).resolve().parent
FOUR = "generated/sudoku4/unique.txt"
#: The sets of the size table: every shipped 9x9, 16x16 and 25x25 set and the seed puzzles.
SETS = ("seeds/seeds.tsv", "sudoku9/royle_17clue.txt", "sudoku9/magictour_top1465.txt",
        "sudoku9/forum_hardest_1106.txt", "sudoku9/gecode.txt", "jigsaw9/smilingwayne.txt",
        "sudoku16/gecode.txt", "sudoku16/smilingwayne.txt", "sudoku25/gecode.txt")
KIND_COLOURS = {"cell": "#444444", "row": "#1f77b4", "column": "#2ca02c", "box": "#d62728"}


def small_model(encoding: str = "one-hot") -> qsudoku.QuboModel:
    """The 4x4 of the figures, reduced by its givens."""
    puzzle = qsudoku.load_puzzles(dataset_path(FOUR))[0]
    return qsudoku.build_model(qsudoku.propagate(puzzle, rules=()), encoding=encoding)


def _name(label) -> str:
    r, c, *rest = label
    return f"r{r + 1}c{c + 1}" + ("#" if len(rest) == 1 else "") + "".join(map(str, rest))


def qubo_matrix(model: qsudoku.QuboModel) -> np.ndarray:
    """The upper-triangular QUBO matrix: linear biases on the diagonal, couplers above it."""
    index = {v: i for i, v in enumerate(model.variables)}
    q = np.zeros((model.num_variables,) * 2)
    for v, bias in model.bqm.linear.items():
        q[index[v], index[v]] = bias
    for (u, v), bias in model.bqm.quadratic.items():
        i, j = sorted((index[u], index[v]))
        q[i, j] += bias
    return q


def draw_matrix(model: qsudoku.QuboModel, path: Path) -> None:
    import matplotlib.pyplot as plt

    q = qubo_matrix(model)
    shown = np.where(np.triu(np.ones_like(q)) > 0, q, np.nan)
    fig, ax = plt.subplots(figsize=(7.2, 6.4))
    im = ax.imshow(shown, cmap="RdBu_r", vmin=-4, vmax=4)
    names = [_name(v) for v in model.variables]
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=6)
    ax.set_yticks(range(len(names)), names, fontsize=6)
    cells = [v[:2] for v in model.variables]
    for k in range(1, len(cells)):  # a line between two cells' blocks of variables
        if cells[k] != cells[k - 1]:
            ax.axhline(k - 0.5, color="0.85", lw=0.5)
            ax.axvline(k - 0.5, color="0.85", lw=0.5)
    ax.set_title(f"QUBO of a 4x4 reduced by its givens: {model.num_variables} variables, "
                 f"{model.num_interactions} couplers, offset {model.bqm.offset:g}", fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8, label="bias (all weights 1)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw_graph(model: qsudoku.QuboModel, path: Path) -> None:
    """Each variable at its cell, offset by its digit; an edge per coupler, coloured by the
    kind of the group that makes it (a pair in two groups takes the first kind listed)."""
    import matplotlib.pyplot as plt

    n = model.puzzle.size
    pos = {}
    for v in model.variables:
        r, c, d = v
        angle = 2 * np.pi * (d - 1) / n
        pos[v] = (c + 0.22 * np.cos(angle), -r + 0.22 * np.sin(angle))
    kind_of = {}
    for con in model.constraints:
        members = [model.variables[i] for i in con.variables]
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                kind_of.setdefault(frozenset((members[a], members[b])), con.kind)
    fig, ax = plt.subplots(figsize=(6.4, 6.4))
    for k in range(n + 1):
        width = 1.6 if k % 2 == 0 else 0.4
        ax.plot([-0.5, n - 0.5], [0.5 - k, 0.5 - k], color="0.7", lw=width, zorder=0)
        ax.plot([k - 0.5, k - 0.5], [0.5, 0.5 - n], color="0.7", lw=width, zorder=0)
    for (u, v) in model.bqm.quadratic:
        kind = kind_of[frozenset((u, v))]
        (x0, y0), (x1, y1) = pos[u], pos[v]
        ax.plot([x0, x1], [y0, y1], color=KIND_COLOURS[kind], lw=0.8, alpha=0.7, zorder=1)
    for v, (x, y) in pos.items():
        ax.scatter([x], [y], s=170, color="white", edgecolor="black", zorder=2)
        ax.text(x, y, str(v[2]), ha="center", va="center", fontsize=7, zorder=3)
    grid = model.fixed
    for cell, value in enumerate(grid):
        if value:
            ax.text(cell % n, -(cell // n), str(value), ha="center", va="center", fontsize=18,
                    fontweight="bold", color="0.55")
    for kind, colour in KIND_COLOURS.items():
        ax.plot([], [], color=colour, label=f"coupler of a {kind} group")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.01), ncol=2, fontsize=8, frameon=False)
    ax.set_title(f"The same model as a graph: {model.num_variables} variables (circles: "
                 f"candidate digits), {model.num_interactions} couplers", fontsize=9)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sizes(sets: tuple[str, ...] = SETS) -> list[tuple]:
    """Per set: puzzles, solved by propagation, median / max variables with the givens only
    and with the default rules, median couplers with the default rules (the last two over
    the puzzles propagation leaves unsolved)."""
    rows = []
    for name in sets:
        puzzles = qsudoku.load_puzzles(dataset_path(name))
        givens, default, couplers, solved = [], [], [], 0
        for p in puzzles:
            givens.append(qsudoku.propagate(p, rules=()).num_variables)
            _, model, _ = qsudoku.build(p)
            if model is None:
                solved += 1
                continue
            default.append(model.num_variables)
            couplers.append(model.num_interactions)
        med = (lambda xs: f"{statistics.median(xs):g}" if xs else "-")
        rows.append((name, len(puzzles), solved, med(givens), max(givens), med(default),
                     max(default, default=0), med(couplers)))
    return rows


def exact_gaps() -> list[tuple]:
    """The 4x4s reduced by their givens with at most 20 variables: the lowest energies and
    how many states have them (dimod.ExactSolver enumerates every state)."""
    import dimod

    out = []
    for p in qsudoku.load_puzzles(dataset_path(FOUR)):
        for encoding in ("one-hot", "domain-wall"):
            m = qsudoku.build_model(qsudoku.propagate(p, rules=()), encoding=encoding)
            if encoding == "one-hot" and m.num_variables > 20:
                break
            energies = np.round(dimod.ExactSolver().sample(m.bqm).record.energy, 9)
            count = collections.Counter(energies.tolist())
            out.append((encoding, m.num_variables, sorted(count.items())[:3]))
    return out


def sampled_gaps(reads: int = 200) -> list[tuple]:
    """``sa`` on the seed puzzles' 9x9s and the first forum_hardest puzzles: the lowest
    energy above 0 among ``reads`` reads of 1000 sweeps (seed 1)."""
    from dwave.samplers import SimulatedAnnealingSampler

    puzzles = [p for p in qsudoku.load_puzzles(dataset_path("seeds/seeds.tsv")) if p.size == 9]
    puzzles += qsudoku.load_puzzles(dataset_path("sudoku9/forum_hardest_1106.txt"))[:10]
    out = []
    for encoding in ("one-hot", "domain-wall"):
        lows = []
        for p in puzzles:
            m = qsudoku.build_model(qsudoku.propagate(p), encoding=encoding)
            ss = SimulatedAnnealingSampler().sample(m.bqm, num_reads=reads, num_sweeps=1000,
                                                    seed=1)
            e = np.round(ss.record.energy, 9)
            lows.append(float(e[e > 0].min()) if (e > 0).any() else None)
        out.append((encoding, len(puzzles), collections.Counter(lows)))
    return out


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "figures"
    if what == "figures":
        m = small_model()
        draw_matrix(m, HERE / "qubo_matrix.png")
        draw_graph(m, HERE / "model_graph.png")
        print(f"wrote {HERE / 'qubo_matrix.png'} and {HERE / 'model_graph.png'}")
    elif what == "sizes":
        print("set | puzzles | solved by propagation | variables, givens only: median / max | "
              "variables, default rules: median / max | couplers, default rules: median")
        for row in sizes():
            print(" | ".join(map(str, row)))
    elif what == "gap":
        for row in exact_gaps():
            print("exact 4x4", *row)
        for row in sampled_gaps():
            print("sa 9x9", *row)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
