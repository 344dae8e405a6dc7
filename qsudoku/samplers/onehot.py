"""The one-hot groups of a BQM recognised from its penalties, for samplers called without ``groups``.

qsudoku's models label a variable ``(row, col, digit)`` and are sums of one-hot penalties
``w (sum q - 1)**2`` over groups (cells, and a digit in a row, column, box or jigsaw
region, or extra unit).  A model read back from its ``.bqm`` file keeps the labels but not
the groups: :func:`find_groups` derives them from the labels and the couplers, and accepts
a guess only if the BQM is exactly the sum of one-hot penalties over it (one weight per
kind); any other BQM is one :class:`~qsudoku.errors.ParameterError`.

The label-defined groupings (cell, row, column, boxes of each shape) partition the
variables and are checked in a few linear passes over the couplers
(:func:`_partition_fit`); the others (diagonals, jigsaw regions) go through
:func:`~qsudoku.samplers.penalty_fit.infer_weights`.  A ``deadline`` is checked between
the stages, so a sampler's time limit bounds the recognition too.  An extra unit is found
from its couplers, so one in which a digit has a single candidate left is not (the fit
then fails and the error asks for ``groups=``).

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
import time
from collections import defaultdict
from itertools import chain

import numpy as np

from qsudoku.errors import ParameterError, TimeLimitError
from qsudoku.samplers.penalty_fit import infer_weights

__all__ = ["find_groups", "groups_of", "components", "COUPLERS_PER_SECOND"]

#: Couplers :func:`find_groups` reads per second, at best: with a deadline, a BQM it cannot
#: read in the time left at this rate is not started, as its stages cannot be interrupted.
COUPLERS_PER_SECOND = 3e7


def _all_labels(variables) -> bool:
    """True if every variable is a ``(row, col, digit)`` tuple of integers (not bools),
    tested on type sets rather than per variable."""
    if not all(issubclass(t, tuple) for t in set(map(type, variables))) or \
            set(map(len, variables)) != {3}:
        return False
    return all(issubclass(t, numbers.Integral) and t is not bool
               for t in set(map(type, chain.from_iterable(variables))))


def _codes(columns: list[np.ndarray]) -> np.ndarray:
    """One int64 per row of ``columns`` (equal rows, equal codes; ordered as the rows)."""
    code = np.zeros(len(columns[0]), np.int64)
    for col in columns:
        col = col - col.min()
        code = code * (int(col.max()) + 1) + col
    return code


def _partition_fit(vectors, keys: list[np.ndarray], same: list[np.ndarray]) -> bool:
    """True if the BQM is ``sum_g w_k (sum q - 1)**2`` over the groups of the partitions
    ``keys`` (a group per key value of each kind ``k``), with one weight per kind.

    Each variable lies in one group per kind, so every linear bias is ``-sum w``, a
    coupler ``(u, v)`` is ``2 sum w_k`` over the kinds whose key ``u`` and ``v`` share
    (its *code*, one bit per kind), the offset is ``sum_k w_k G_k``.  The weights are the
    least-squares fit over the code classes (as in ``infer_weights``), and then every
    bias must match within ``1e-7 * max(1, max |bias|)``; the nonzero couplers of each
    kind must be exactly its groups' pairs (the BQM holds a pair once, so their count is
    ``sum_g C(|g|, 2)``).  A handful of passes over the couplers, nothing per group.

    Args:
        vectors: ``(linear, rows, cols, biases, offset)`` of the BINARY BQM.
        keys: Each kind's group key of each variable.
        same: Each kind's ``keys[k][rows] == keys[k][cols]`` (made once per kind by
            :func:`find_groups`, for all the guesses that share the kind).
    """
    lin, qi, qj, qb, off = vectors
    K = len(keys)
    code = np.zeros(len(qb), np.uint8)
    for k, eq in enumerate(same):
        code |= eq.view(np.uint8) << np.uint8(k)
    nz = qb != 0
    if not nz.all():
        code, qb = code[nz], qb[nz]
    n_code = np.bincount(code, minlength=1 << K)
    if n_code[0]:
        return False  # a coupler of no group
    digits = (np.arange(1 << K)[:, None] >> np.arange(K)) & 1  # (code, kind)
    groups, pairs = [], []
    for key in keys:
        sizes = np.unique(key, return_counts=True)[1]
        groups.append(len(sizes))
        pairs.append(int((sizes * (sizes - 1) // 2).sum()))
    if not np.array_equal(n_code @ digits, pairs):
        return False  # a pair of a group that the BQM does not couple
    V = len(lin)
    up = np.flatnonzero(n_code)
    sp = np.sqrt(n_code[up])
    A = np.concatenate([-np.ones((1, K)) * np.sqrt(V), 2 * digits[up] * sp[:, None],
                        np.array(groups, float)[None, :]])
    rhs = np.concatenate([[lin.sum() / np.sqrt(V)],
                          np.bincount(code, qb, 1 << K)[up] / sp, [off]])
    w = np.linalg.lstsq(A, rhs, rcond=np.finfo(float).eps * max(V + len(qb) + 1, K))[0]
    tol = 1e-7 * max(1.0, float(max(np.abs(lin).max(initial=0), np.abs(qb).max(initial=0),
                                    abs(off))))
    return bool(np.all(w > 0) and np.abs(lin + w.sum()).max(initial=0) <= tol
                and np.abs((2 * (digits @ w))[code] - qb).max(initial=0) <= tol
                and abs(np.array(groups, float) @ w - off) <= tol)


def _partition_groups(variables, lab: np.ndarray, spec) -> list:
    """The groups of the partitions ``spec`` (``(kind, key columns)``), as :func:`_by`
    makes them: by key, each group's labels sorted."""
    out = []
    for kind, columns in spec:
        key = _codes(list(columns))
        order = np.lexsort((lab[:, 2], lab[:, 1], lab[:, 0], key))
        cuts = (np.flatnonzero(np.diff(key[order])) + 1).tolist()
        ordered = [variables[i] for i in order.tolist()]
        out += [(kind, ordered[i:j]) for i, j in zip([0] + cuts, cuts + [len(ordered)])]
    return out


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


def components(items, links) -> dict:
    """Each of ``items``' component root, the items of each of ``links`` (an iterable of
    items) linked together: a union-find that puts each later item's root under the first
    item's.

    >>> components("abcd", ["ba", "bc"])
    {'a': 'b', 'b': 'b', 'c': 'b', 'd': 'd'}
    """
    parent = {x: x for x in items}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for link in links:
        link = iter(link)
        r0 = find(next(link))
        for x in link:
            r = find(x)
            if r != r0:
                parent[r] = r0
    return {x: find(x) for x in parent}


def _cliques(pairs, kind) -> list | None:
    """Connected components of ``pairs`` as groups (by their least member, sorted), if
    every one is a clique."""
    adj = defaultdict(set)
    for u, v in pairs:
        adj[u].add(v)
        adj[v].add(u)
    root, comps = components(adj, pairs), defaultdict(list)
    for u in sorted(adj):
        comps[root[u]].append(u)
    if any(len(adj[u]) != len(comp) - 1 for comp in comps.values() for u in comp):
        return None
    return [(kind, comp) for comp in comps.values()]


def _guesses(bqm, variables, lab: np.ndarray, vectors):
    """Candidate groupings of ``variables``, the likeliest first (made one at a time):
    ``("partition", [(kind, key columns), ...])`` or ``("groups", [(kind, labels), ...])``."""
    r, c, d = lab[:, 0], lab[:, 1], lab[:, 2]
    base = [("cell", (r, c)), ("row", (r, d)), ("column", (c, d))]
    yield "partition", base
    n = int(max(lab[:, :2].max() + 1, lab[:, 2].max()))
    shapes = sorted((h for h in range(2, n) if n % h == 0), key=lambda h: abs(h * h - n))
    _, qi, qj, qb, _ = vectors
    couplers = {}

    def coupled():  # the couplers' label arrays, made only if a partition did not fit
        if not couplers:
            ri, ci, di, rj, cj, dj = r[qi], c[qi], d[qi], r[qj], c[qj], d[qj]
            couplers.update(ri=ri, ci=ci, di=di, rj=rj, cj=cj, dj=dj,
                            other=(di == dj) & (ri != rj) & (ci != cj))
        return couplers

    def pairs(mask):
        return [(variables[i], variables[j]) for i, j in zip(qi[mask].tolist(), qj[mask].tolist())]

    for bh in shapes:
        bw = n // bh
        yield "partition", base + [("box", (r // bh, c // bw, d))]
        q = coupled()
        outside = q["other"] & ((q["ri"] // bh != q["rj"] // bh) | (q["ci"] // bw != q["cj"] // bw))
        if outside.any():
            whole = _partition_groups(variables, lab, base + [("box", (r // bh, c // bw, d))])
            extra = _cliques(pairs(outside), "extra")
            if extra:
                yield "groups", whole + extra
            # Sudoku-X: the two diagonals by their labels (singletons included)
            yield "groups", whole + [("extra", g) for line in (
                [v for v in variables if v[0] == v[1]],
                [v for v in variables if v[0] + v[1] == n - 1])
                for _, g in _by(line, lambda v: v[2], "extra")]
    q = coupled()
    if q["other"].any():  # jigsaw regions: cells linked by unit couplers of any digit, then by digit
        # a pair in one row (column) and one region is coupled more strongly than a pair
        # in the row alone: those pairs link the region's cells too
        ri, ci, di, rj, cj, dj, other = (q[k] for k in ("ri", "ci", "di", "rj", "cj", "dj",
                                                        "other"))
        linked = other.copy()
        for same, apart in ((ri == rj, ci != cj), (ci == cj, ri != rj)):
            line = (di == dj) & same & apart
            if line.any():
                low = qb[line].min()
                linked |= line & (qb > low + 1e-9 * max(1.0, abs(low)))
        cells = components(dict.fromkeys((v[0], v[1]) for v in variables),
                           (((v[0], v[1]), (u[0], u[1])) for u, v in pairs(linked)))
        base_groups = _partition_groups(variables, lab, base)
        yield "groups", base_groups + _by(variables, lambda v: (cells[v[0], v[1]], v[2]),
                                          "region")
        regions = _cliques(pairs(linked), "region")
        if regions:
            yield "groups", base_groups + regions


def find_groups(bqm, sampler: str = "", *, deadline: float | None = None
                ) -> list[tuple[str, list]]:
    """The labelled one-hot groups whose penalties sum to ``bqm`` (BINARY or SPIN).

    Args:
        bqm: The model.
        sampler: Its name, for the messages.
        deadline: A :func:`time.perf_counter` value checked between the stages (each a
            pass over the couplers at most), so that a time limit holds; a BQM that
            cannot be read in the time left at :data:`COUPLERS_PER_SECOND` is not
            started. ``None`` = none.

    Raises:
        ParameterError: The variables are not ``(row, col, digit)`` labels, or no
            cell/row/column/box/region/extra grouping of them gives exactly the BQM.
        TimeLimitError: The deadline passed before a grouping was found.
    """
    import dimod

    who = f"{sampler}: " if sampler else ""
    variables = list(bqm.variables)
    if not variables:
        return []
    if not _all_labels(variables):
        raise ParameterError(f"{who}the BQM has no one-hot structure to recognise (variables are "
                             "not (row, col, digit) labels); pass groups=[(kind, [labels...]), ...]")
    _check_deadline(deadline, who, bqm.num_interactions / COUPLERS_PER_SECOND)
    if bqm.vartype is not dimod.BINARY:
        bqm = bqm.change_vartype(dimod.BINARY, inplace=False)
    _check_deadline(deadline, who)
    lin, (qi, qj, qb), off = bqm.to_numpy_vectors(variable_order=variables)
    vectors = (np.asarray(lin, float), qi, qj, np.asarray(qb, float), float(off))
    finite = (np.isfinite(vectors[0]).all() and np.isfinite(vectors[3]).all()
              and np.isfinite(vectors[4]))
    lab = np.array(variables, dtype=np.int64)
    pos, keys, same = None, {}, {}
    for how, guess in _guesses(bqm, variables, lab, vectors) if finite else ():
        _check_deadline(deadline, who)
        if how == "partition":
            for kind, cols in guess:  # a kind's key and coupler test, made once
                if kind not in keys or keys[kind][0] is not cols:
                    key = _codes(list(cols))
                    key = key.astype(np.int32) if key.max(initial=0) < 2**31 else key
                    keys[kind] = (cols, key)
                    same[kind] = key[qi] == key[qj]
                    _check_deadline(deadline, who)
            kinds = [kind for kind, _ in guess]
            if _partition_fit(vectors, [keys[k][1] for k in kinds], [same[k] for k in kinds]):
                return _partition_groups(variables, lab, guess)
        else:
            pos = pos or {v: i for i, v in enumerate(variables)}
            if _fits(bqm, variables, pos, guess):
                return guess
    raise ParameterError(f"{who}the BQM is not a sum of one-hot penalties over (row, col, digit) "
                         "groups that qsudoku recognises; pass groups=[(kind, [labels...]), ...]")


def _check_deadline(deadline: float | None, who: str, need: float = 0.0) -> None:
    """Raise :class:`TimeLimitError` past ``deadline`` (or ``need`` seconds before it)."""
    if deadline is not None and time.perf_counter() + need > deadline:
        raise TimeLimitError(f"{who}recognising the BQM's one-hot groups stopped at the "
                             "deadline" + (" (the BQM is too large to read in the time left)"
                                           if need else "")
                             + "; pass groups=[(kind, [labels...]), ...] to skip it")


def groups_of(bqm, groups, sampler: str = "", time_limit: float | None = None,
              t0: float | None = None) -> list:
    """``groups`` as given, or :func:`find_groups` of ``bqm`` when none were (``None``/empty),
    within the sampler's ``time_limit`` counted from ``t0`` (a :func:`time.perf_counter`
    value; ``None`` = now)."""
    if groups:
        try:
            return [(str(kind), list(labels)) for kind, labels in groups]
        except (TypeError, ValueError):
            raise ParameterError(f"{sampler}: groups must be [(kind, [labels...]), ...]") from None
    deadline = None
    if time_limit is not None:
        deadline = (time.perf_counter() if t0 is None else t0) + time_limit
    return find_groups(bqm, sampler, deadline=deadline)
