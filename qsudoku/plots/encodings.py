"""One-hot against domain wall, side by side: the rows notebook 04 and the encodings
study (``benchmarks/studies/encodings.toml``) tabulate, and the paired bar chart that
draws them.

A row describes the reduced model of one puzzle in one encoding: variables, interactions,
coefficient range (largest over smallest non-zero absolute bias) and, given a QPU graph,
the qubits and chains of its minor-embedding (through the embedding cache).

>>> from qsudoku import Config, load_puzzles
>>> p = load_puzzles("2...\\n..1.\\n.2..\\n...3")[0]
>>> [(r["encoding"], r["variables"], r["interactions"]) for r in model_rows(p, Config())]
[('one-hot', 0, 0), ('domain-wall', 0, 0)]
>>> r = model_rows(p, Config().with_overrides(rules=[]))
>>> [(x["encoding"], x["variables"]) for x in r], r[0]["coefficient_range"]
([('one-hot', 24), ('domain-wall', 12)], 2.0)
"""

from __future__ import annotations

from typing import Iterable, Sequence

from qsudoku.config import Config
from qsudoku.model.encodings import ENCODINGS
from qsudoku.plots.base import figure
from qsudoku.solving import build

__all__ = ["ENCODING_ORDER", "coefficient_range", "model_rows", "embedding_row", "paired_bars"]

#: The encodings compared, in the order of every table and figure.
ENCODING_ORDER = ("one-hot", "domain-wall")


def coefficient_range(bqm) -> float:
    """Largest over smallest non-zero ``|bias|`` of ``bqm`` (1.0 without biases).

    >>> import dimod
    >>> coefficient_range(dimod.BQM({"a": -1.0, "b": 0.0}, {("a", "b"): 4.0}, 0, "BINARY"))
    4.0
    """
    biases = [abs(float(v)) for v in list(bqm.linear.values()) + list(bqm.quadratic.values())
              if v]
    return max(biases) / min(biases) if biases else 1.0


def model_rows(puzzle, config: Config, encodings: Sequence[str] = ENCODING_ORDER) -> list[dict]:
    """One row per encoding: the size of ``puzzle``'s reduced model under ``config``.

    Keys: ``puzzle``, ``size``, ``encoding``, ``variables``, ``interactions``,
    ``coefficient_range`` and ``model`` (the :class:`~qsudoku.model.qubo.QuboModel`, or
    ``None`` when propagation solved the puzzle: 0 variables).
    """
    rows = []
    for name in encodings:
        if name not in ENCODINGS:
            raise ValueError(f"unknown encoding {name!r}; choose from {', '.join(ENCODINGS)}")
        _, model, _ = build(puzzle, config.with_overrides(encoding=name))
        rows.append({"puzzle": puzzle.name, "size": puzzle.size, "encoding": name,
                     "variables": model.num_variables if model else 0,
                     "interactions": model.num_interactions if model else 0,
                     "coefficient_range": coefficient_range(model.bqm) if model else None,
                     "model": model})
    return rows


def embedding_row(model, child, cache=None, *, seed: int = 1, timeout: float | None = None) -> dict:
    """Qubits and chains of ``model`` on the structured sampler ``child`` (a QPU graph).

    Args:
        model: A :class:`~qsudoku.model.qubo.QuboModel`.
        child: A structured sampler, e.g. :func:`qsudoku.samplers.dwave.qpu.mock_child`.
        cache: An :class:`~qsudoku.samplers.dwave.embedding.EmbeddingCache` (``None``: none).
            A model already in it keeps its stored chains (``cache_hit`` True).
        seed: minorminer's ``random_seed`` for a new embedding.
        timeout: minorminer's timeout in seconds (``None``: its default).

    Returns:
        ``topology``, ``qubits``, ``longest_chain``, ``mean_chain``, ``fits``,
        ``cache_hit`` and ``seconds`` (the search time, stored with a cached embedding).
    """
    from qsudoku.samplers.dwave.embedding import embed_bqm

    params = {"random_seed": seed} | ({} if timeout is None else {"timeout": timeout})
    emb = embed_bqm(model.bqm, child, cache, parameters=params)
    stats = emb.stats()
    return {"topology": child.properties["topology"]["type"], "fits": emb.found,
            "qubits": stats["num_qubits"] if emb.found else None,
            "longest_chain": stats["longest_chain"] if emb.found else None,
            "mean_chain": stats["mean_chain_length"] if emb.found else None,
            "cache_hit": emb.cache_hit, "seconds": emb.seconds}


def paired_bars(frame, value: str, *, by: str = "puzzle", hue: str = "encoding",
                order: Iterable[str] = ENCODING_ORDER, ax=None, log: bool = False,
                title: str | None = None):
    """Bars of ``value`` per ``by`` (x), one bar per ``hue`` value side by side.

    ``frame`` is a :class:`pandas.DataFrame` with one row per (``by``, ``hue``); missing
    values are left as gaps.  Returns the axes.
    """
    _, ax = figure(ax, (6, 3))
    order = [h for h in order if h in set(frame[hue])]
    table = frame.pivot_table(index=by, columns=hue, values=value, aggfunc="mean", sort=False)
    table = table.reindex(columns=order)
    width = 0.8 / max(1, len(order))
    xs = range(len(table.index))
    for i, h in enumerate(order):
        ax.bar([x + (i - (len(order) - 1) / 2) * width for x in xs], table[h].to_numpy(float),
               width, label=h)
    ax.set_xticks(list(xs), [str(i)[:18] for i in table.index], rotation=20, ha="right",
                  fontsize=7)
    ax.set_ylabel(value)
    if log:
        ax.set_yscale("log")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    return ax
