"""Clique embeddings of a QPU graph: one clique, or several disjoint ones packed for a batch.

Any model of at most ``n`` variables embeds in a clique embedding of ``n`` variables, so a
stream of subproblems (:mod:`.decompose`) needs no embedding search per call: the cliques
come from minorminer's ``busclique`` once per target graph and size, then from memory.
Several subproblems go out in one call on *packed* cliques: copy ``j`` is ``busclique``'s
clique (seeded ``j``) in the graph the copies ``0..j-1`` leave.  The packing is greedy
and deterministic, so the packing of ``k`` copies is the first ``k`` copies of any longer
one; copies share no qubit, so their subproblems share no coupler.

minorminer 0.2.22's seeded ``busclique`` search aborts the process, or allocates memory
without bound, for small cliques (sizes 3..t on Chimera with tiles of ``t``, ``t+1..2t``
on Zephyr with tile ``t``): such a size is asked as :func:`search_size` (a larger clique,
whose first chains are a clique of the size wanted).  Zephyr tiles larger than 4 have no
clique embedder: a :class:`~qsudoku.errors.BackendUnavailableError`.

>>> Packed(2, 5)
Packed(part=2, index=5)
>>> search_size(8, "zephyr", 4), search_size(3, "chimera", 8), search_size(64, "pegasus", 12)
(9, 9, 64)
>>> packed_size(10), packed_size(64)
(16, 64)
"""

from __future__ import annotations

import time
from typing import NamedTuple

from qsudoku.errors import BackendUnavailableError
from qsudoku.samplers.dwave.embedding import Embedded, target_id

__all__ = ["Packed", "clique_embedding", "copies_that_fit", "packed_size", "search_size"]

#: ``(target, ...)`` -> what was found for it: cliques, packings, counts that fit, graphs.
_CLIQUES: dict = {}


class Packed(NamedTuple):
    """The label of variable ``index`` of subproblem ``part`` in a model that packs several
    (see :func:`clique_embedding` with ``copies``); any other label means one part."""

    part: int
    index: int


def packed_size(num_variables: int) -> int:
    """The clique size of a packing for ``num_variables``: rounded up to a multiple of 8, so
    that one packing serves every size up to it (a model uses the first chains of each copy)."""
    return -(-int(num_variables) // 8) * 8


def search_size(num_variables: int, family: str, tile: int) -> int:
    """The clique size to ask of ``busclique``'s seeded search for ``num_variables`` on a
    graph of ``family`` with tile ``tile``: at least ``t+1`` on Chimera and ``2t+1`` on
    Zephyr, below which minorminer 0.2.22 aborts (see the module doc)."""
    floor = {"chimera": tile + 1, "zephyr": 2 * tile + 1}.get(family, 0)
    return max(int(num_variables), floor) if num_variables > 2 else int(num_variables)


def _graph(sampler, target: str):
    graph = _CLIQUES.get((target, "graph"))
    if graph is None:
        graph = _CLIQUES[(target, "graph")] = sampler.to_networkx_graph()
    return graph


def _busclique(num_variables: int, graph, seed: int | None = None) -> dict:
    """``busclique``'s clique of ``num_variables`` in ``graph`` (``{}`` if none): its own
    disk-cached one without ``seed``, else a seeded search at :func:`search_size`."""
    from minorminer import busclique

    family, tile = graph.graph.get("family", ""), int(graph.graph.get("tile", 0) or 0)
    try:
        if seed is None:
            emb = busclique.find_clique_embedding(int(num_variables), graph)
        else:
            emb = busclique.find_clique_embedding(search_size(num_variables, family, tile),
                                                  graph, seed=seed, use_cache=False)
    except NotImplementedError as e:  # Zephyr tiles above 4
        raise BackendUnavailableError(f"no clique embedding of {family} graph: {e}") from None
    if len(emb) < num_variables:
        return {}
    return {int(v): list(emb[v]) for v in range(int(num_variables))}


def _pack(num_variables: int, sampler, target: str, copies: int) -> Embedded:
    """The greedy packing of at most ``copies`` cliques (labels ``(copy, i)``), as many as fit;
    each shorter prefix of it is kept as the packing of its own count."""
    key = (target, num_variables, copies)
    if key in _CLIQUES:
        return _CLIQUES[key]
    t = time.perf_counter()
    emb, rest = {}, _graph(sampler, target).copy()  # keeps the family and shape for busclique
    placed = 0
    for j in range(copies):
        one = (clique_embedding(num_variables, sampler, target).embedding if j == 0 else
               _busclique(num_variables, rest, seed=j))
        if len(one) != num_variables:
            break
        emb.update({Packed(j, v): chain for v, chain in one.items()})
        rest.remove_nodes_from([q for chain in one.values() for q in chain])
        placed += 1
        if placed > 1:
            _CLIQUES[(target, num_variables, "fit", placed)] = placed
            _CLIQUES[(target, num_variables, placed)] = Embedded(
                dict(emb), f"clique-{num_variables}x{placed}", target, time.perf_counter() - t,
                False, num_variables * placed)
    _CLIQUES[(target, num_variables, "fit", copies)] = placed
    if placed < copies:  # the key of the count asked says it does not fit
        _CLIQUES[key] = Embedded({}, f"clique-{num_variables}x{copies}", target,
                                 time.perf_counter() - t, False, num_variables * copies)
    return _CLIQUES[key]


def clique_embedding(num_variables: int, sampler, target: str | None = None,
                     copies: int = 1) -> Embedded:
    """A clique embedding of ``num_variables`` variables (labelled ``0..n-1``) into ``sampler``;
    with ``copies > 1``, that many disjoint ones (variables labelled ``Packed(copy, i)``),
    packed at :func:`packed_size`, found once per (target, size, copies).

    Returns:
        An :class:`~qsudoku.samplers.dwave.embedding.Embedded` (``found`` is False if the
        clique, or the copies, do not fit).
    """
    target = target or target_id(sampler)
    if copies > 1:
        found = _pack(packed_size(num_variables), sampler, target, int(copies))
    else:
        key = (target, int(num_variables), 1)
        if key not in _CLIQUES:
            t = time.perf_counter()
            emb = _busclique(int(num_variables), _graph(sampler, target))
            _CLIQUES[key] = Embedded(emb, f"clique-{num_variables}", target,
                                     time.perf_counter() - t, False, int(num_variables))
        found = _CLIQUES[key]
    return Embedded(found.embedding, found.key, target, found.seconds, True, found.num_variables)


def copies_that_fit(num_variables: int, sampler, target: str | None = None,
                    copies: int = 1) -> int:
    """The most disjoint cliques of ``num_variables`` variables, at most ``copies``, that
    :func:`clique_embedding` packs into ``sampler`` (0: not even one clique fits).

    One packing of ``copies`` answers it, once per (target, size, copies).  With ``copies >
    1`` the count is at :func:`packed_size`; a single clique of the exact size may still
    fit when no packed one does (then 1).
    """
    target = target or target_id(sampler)
    placed = 0
    if copies > 1:
        size = packed_size(num_variables)
        _pack(size, sampler, target, int(copies))
        placed = _CLIQUES[(target, size, "fit", int(copies))]
    if placed == 0 and clique_embedding(num_variables, sampler, target).found:
        placed = 1
    return placed
