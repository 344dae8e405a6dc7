"""AllDifferent filtering by perfect matchings (Regin): the search's Hall-set rule.

A unit is a bipartite graph: its open groups ("this digit somewhere in the unit") on
one side, the cells holding their live variables on the other, an edge ``(group,
variable)`` per live variable.  Completing the unit is a *perfect matching*, so:

* the unit is infeasible when there are fewer cells than open groups or no perfect
  matching exists (a Hall set);
* a variable can be chosen only if its edge lies on some perfect matching ``M``: with
  non-matching edges oriented cell -> group and matching ones group -> cell, a
  non-matching edge ``(a, b)`` does exactly when ``a`` and the cell matched to ``b`` share
  a strongly connected component (Berge).

Every other edge goes, which removes the candidates of every naked and hidden subset of
any size in one pass, for any geometry (plain dicts of ints).

>>> live = {10: {0, 1}, 11: {3}}           # group -> its live variables
>>> cell = {0: 0, 1: 1, 3: 0}              # variable -> its cell
>>> adj, open_groups = unit_graph([10, 11], live, cell)
>>> prune_alldiff(adj, len(open_groups))   # group 11 needs cell 0: variable 0 goes
[0]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

__all__ = ["unit_graph", "prune_alldiff", "strong_components"]


def unit_graph(unit: Iterable[int], live: Mapping[int, set[int]],
               cell: Sequence[int] | Mapping[int, int]
               ) -> tuple[dict[int, list[tuple[int, int]]], list[int]]:
    """The bipartite graph of one unit: cell -> its ``(group, variable)`` edges.

    Args:
        unit: The unit's groups.
        live: Open group -> its live variables (closed groups are absent).
        cell: Variable -> its cell.

    Returns:
        ``(adj, open_groups)``: the edges at each cell that holds a live variable, and
        the unit's open groups, both in the order of ``unit``.

    >>> unit_graph([5, 6, 7], {5: {0}, 6: {1, 2}}, [0, 0, 1])
    ({0: [(5, 0), (6, 1)], 1: [(6, 2)]}, [5, 6])
    """
    adj: dict[int, list[tuple[int, int]]] = {}
    open_groups = []
    for g in unit:
        s = live.get(g)
        if s is None:
            continue
        open_groups.append(g)
        for v in s:
            adj.setdefault(cell[v], []).append((g, v))
    return adj, open_groups


def prune_alldiff(adj: dict[int, list[tuple[int, int]]], groups: int) -> list[int] | None:
    """The variables of a unit that lie on no perfect matching (Regin's filtering).

    Args:
        adj: Cell -> its ``(group, variable)`` edges, as :func:`unit_graph` makes it.
        groups: How many open groups the unit has.

    Returns:
        The variables to remove, in the order of ``adj``; ``None`` if the unit has no
        perfect matching (the current state is a contradiction).

    >>> prune_alldiff({0: [(10, 0), (11, 1)], 1: [(10, 2), (11, 3)]}, 2)   # a free pair
    []
    >>> prune_alldiff({0: [(10, 0)], 1: [(10, 2)]}, 2) is None   # two cells, one digit
    True
    """
    if len(adj) != groups:
        return None
    mate_g: dict[int, int] = {}  # group -> cell
    mate_c: dict[int, int] = {}  # cell -> group
    for a, edges in adj.items():
        for b, _ in edges:
            if b not in mate_g:
                mate_g[b] = a
                mate_c[a] = b
                break

    def augment(a, seen):
        for b, _ in adj[a]:
            if b not in seen:
                seen.add(b)
                if b not in mate_g or augment(mate_g[b], seen):
                    mate_g[b] = a
                    mate_c[a] = b
                    return True
        return False

    for a in adj:
        if a not in mate_c and not augment(a, set()):
            return None
    comp = strong_components({a: [mate_g[b] for b, _ in edges if b != mate_c[a]]
                              for a, edges in adj.items()})
    drop = []
    for a, edges in adj.items():
        ca, ma = comp[a], mate_c[a]
        for b, v in edges:
            if b != ma and comp[mate_g[b]] != ca:
                drop.append(v)
    return drop


def strong_components(succ: dict[int, list[int]]) -> dict[int, int]:
    """Strongly connected components (iterative Tarjan): node -> component id.

    Args:
        succ: Node -> its successors; every successor is a key too.

    Returns:
        Each node's component, named by one of its nodes.

    >>> sorted(strong_components({1: [2], 2: [1], 3: [1]}).items())
    [(1, 1), (2, 1), (3, 3)]
    """
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    comp: dict[int, int] = {}
    counter = 0
    for root in succ:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(succ[root]))]
        while work:
            v, it = work[-1]
            for u in it:
                if u not in index:
                    index[u] = low[u] = counter
                    counter += 1
                    stack.append(u)
                    on_stack.add(u)
                    work.append((u, iter(succ[u])))
                    break
                if u in on_stack and index[u] < low[v]:
                    low[v] = index[u]
            else:
                work.pop()
                if work and low[v] < low[work[-1][0]]:
                    low[work[-1][0]] = low[v]
                if low[v] == index[v]:
                    while True:
                        u = stack.pop()
                        on_stack.discard(u)
                        comp[u] = v
                        if u == v:
                            break
    return comp
