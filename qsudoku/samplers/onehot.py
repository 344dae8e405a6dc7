"""The one-hot groups of a BQM recognised from its penalties, for samplers called without ``groups``.

qsudoku's models label a variable ``(row, col, digit)`` and are sums of one-hot penalties
``w (sum q - 1)**2`` over groups: the candidates of a cell, of a digit in a row, in a
column, in a box (or jigsaw region), in an extra unit (a diagonal).  A model read back
from its ``.bqm`` file (``qsudoku qubo -o m.bqm``) keeps those labels but not the groups:
:func:`find_groups` derives them from the labels and the couplers, and accepts a guess
only if the BQM is exactly the sum of one-hot penalties over it (weights fitted per kind
by :func:`~qsudoku.samplers.penalty_fit.infer_weights`).  A BQM of any other shape is one
:class:`~qsudoku.errors.ParameterError`.

Singleton groups of the label-defined kinds (cell, row, column, box) are found, and those
of jigsaw regions whose cells the couplers link; an extra unit (a diagonal) is found from
its couplers, so one in which a digit has a single candidate left is not (the fit then
fails and the error asks for ``groups=``).

>>> import dimod
>>> bqm = dimod.BQM("BINARY")
>>> for d in (1, 2):  # one cell, two candidates
...     _ = bqm.add_variable((0, 0, d), -1.0)
>>> bqm.add_interaction((0, 0, 1), (0, 0, 2), 2.0); bqm.offset = 1.0
>>> [(kind, labels) for kind, labels in find_groups(bqm, "aco") if kind == "cell"]
[('cell', [(0, 0, 1), (0, 0, 2)])]
>>> find_groups(dimod.BQM({"a": 1.0}, {}, 0.0, "BINARY"), "aco")
Traceback (most recent call last):
...
qsudoku.errors.ParameterError: aco: the BQM has no one-hot structure to recognise (variables are not (row, col, digit) labels); pass groups=[(kind, [labels...]), ...]
"""

from __future__ import annotations

import numbers
from collections import defaultdict

import numpy as np

from qsudoku.errors import ParameterError
from qsudoku.samplers.penalty_fit import infer_weights

__all__ = ["find_groups", "groups_of"]


def _is_label(v) -> bool:
    return (isinstance(v, tuple) and len(v) == 3
            and all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in v))


def _fits(bqm, variables, pos, groups) -> bool:
    if not groups:
        return False
    gidx = [np.fromiter((pos[v] for v in g), np.int64, len(g)) for _, g in groups]
    members = np.concatenate(gidx)
    return infer_weights(bqm, variables, gidx, [k for k, _ in groups], members,
                         [len(g) for g in gidx]) is not None


def _by(variables, key, kind) -> list:
    out = defaultdict(list)
    for v in variables:
        out[key(v)].append(v)
    return [(kind, sorted(g)) for _, g in sorted(out.items())]


def _cliques(pairs, kind) -> list | None:
    """Connected components of ``pairs`` as groups, if every one is a clique."""
    adj = defaultdict(set)
    for u, v in pairs:
        adj[u].add(v)
        adj[v].add(u)
    seen, out = set(), []
    for start in sorted(adj):
        if start in seen:
            continue
        comp, stack = [], [start]
        seen.add(start)
        while stack:
            u = stack.pop()
            comp.append(u)
            for w in adj[u]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        if any(len(adj[u]) != len(comp) - 1 for u in comp):
            return None
        out.append((kind, sorted(comp)))
    return out


def _cell_components(variables, pairs) -> dict:
    """Each cell's component id, cells linked by ``pairs`` of their variables."""
    parent = {(v[0], v[1]): (v[0], v[1]) for v in variables}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in pairs:
        a, b = find((u[0], u[1])), find((v[0], v[1]))
        if a != b:
            parent[a] = b
    return {cell: find(cell) for cell in parent}


def _guesses(bqm, variables):
    """Candidate groupings of ``variables``, the likeliest first (made one at a time)."""
    lab = np.array(variables, dtype=np.int64)
    _, (qi, qj, qb), _ = bqm.to_numpy_vectors(variable_order=variables)
    qi, qj, qb = np.asarray(qi, np.int64), np.asarray(qj, np.int64), np.asarray(qb, float)
    (ri, ci, di), (rj, cj, dj) = lab[qi].T, lab[qj].T
    other = (di == dj) & (ri != rj) & (ci != cj)  # same digit, no shared row or column

    def pairs(mask):
        return [(variables[i], variables[j]) for i, j in zip(qi[mask].tolist(), qj[mask].tolist())]

    base = (_by(variables, lambda v: (v[0], v[1]), "cell")
            + _by(variables, lambda v: (v[0], v[2]), "row")
            + _by(variables, lambda v: (v[1], v[2]), "column"))
    yield base
    n = int(max(lab[:, :2].max() + 1, lab[:, 2].max()))
    for bh in sorted((h for h in range(2, n) if n % h == 0), key=lambda h: abs(h * h - n)):
        bw = n // bh
        boxes = _by(variables, lambda v: (v[0] // bh, v[1] // bw, v[2]), "box")
        yield base + boxes
        outside = other & ((ri // bh != rj // bh) | (ci // bw != cj // bw))
        if outside.any():
            extra = _cliques(pairs(outside), "extra")
            if extra:
                yield base + boxes + extra
            # Sudoku-X: the two diagonals by their labels (singletons included)
            yield base + boxes + [("extra", g) for line in (
                [v for v in variables if v[0] == v[1]],
                [v for v in variables if v[0] + v[1] == n - 1])
                for _, g in _by(line, lambda v: v[2], "extra")]
    if other.any():  # jigsaw regions: cells linked by unit couplers of any digit, then by digit
        # a pair in one row (column) and one region is coupled more strongly than a pair
        # in the row alone: those pairs link the region's cells too
        linked = other.copy()
        for same, apart in ((ri == rj, ci != cj), (ci == cj, ri != rj)):
            line = (di == dj) & same & apart
            if line.any():
                low = qb[line].min()
                linked |= line & (qb > low + 1e-9 * max(1.0, abs(low)))
        cells = _cell_components(variables, pairs(linked))
        yield base + _by(variables, lambda v: (cells[v[0], v[1]], v[2]), "region")
        regions = _cliques(pairs(linked), "region")
        if regions:
            yield base + regions


def find_groups(bqm, sampler: str = "") -> list[tuple[str, list]]:
    """The labelled one-hot groups whose penalties sum to ``bqm`` (BINARY or SPIN).

    Raises:
        ParameterError: The variables are not ``(row, col, digit)`` labels, or no
            cell/row/column/box/region/extra grouping of them gives exactly the BQM.
    """
    import dimod

    who = f"{sampler}: " if sampler else ""
    variables = list(bqm.variables)
    if not variables:
        return []
    if not all(map(_is_label, variables)):
        raise ParameterError(f"{who}the BQM has no one-hot structure to recognise (variables are "
                             "not (row, col, digit) labels); pass groups=[(kind, [labels...]), ...]")
    if bqm.vartype is not dimod.BINARY:
        bqm = bqm.change_vartype(dimod.BINARY, inplace=False)
    pos = {v: i for i, v in enumerate(variables)}
    for groups in _guesses(bqm, variables):
        if _fits(bqm, variables, pos, groups):
            return groups
    raise ParameterError(f"{who}the BQM is not a sum of one-hot penalties over (row, col, digit) "
                         "groups that qsudoku recognises; pass groups=[(kind, [labels...]), ...]")


def groups_of(bqm, groups, sampler: str = "") -> list:
    """``groups`` as given, or :func:`find_groups` of ``bqm`` when none were (``None``/empty)."""
    if groups:
        try:
            return [(str(kind), list(labels)) for kind, labels in groups]
        except (TypeError, ValueError):
            raise ParameterError(f"{sampler}: groups must be [(kind, [labels...]), ...]") from None
    return find_groups(bqm, sampler)
