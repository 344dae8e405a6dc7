"""Reading one-hot penalty weights off a BQM, and checking the BQM is made of them.

Before the structured samplers trust a BQM's groups, :func:`infer_weights` fits one
weight per group kind so that the BQM is ``sum_g w_g (sum_{v in g} q_v - 1)**2`` and
checks every linear bias, coupler and the offset against that fit.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import Weights, build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), ()), Weights(row=2.0))
>>> groups = m.groups()
>>> pos = {v: i for i, v in enumerate(m.bqm.variables)}
>>> gidx = [np.array([pos[v] for v in g]) for _, g in groups]
>>> w = infer_weights(m.bqm, list(m.bqm.variables), gidx, [k for k, _ in groups],
...                    np.concatenate(gidx), [len(g) for g in gidx])
>>> sorted({(k, round(float(x), 9)) for (k, _), x in zip(groups, w)})
[('box', 1.0), ('cell', 1.0), ('column', 1.0), ('row', 2.0)]
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []


def _pair_table(rows, cols, biases, V):
    """Canonical ``(keys, sums)`` of a quadratic part (pairs merged, zeros dropped)."""
    lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
    keys, inv = np.unique(lo * V + hi, return_inverse=True)
    sums = np.bincount(inv.ravel(), weights=biases, minlength=len(keys))
    keep = np.abs(sums) > 0
    return keys[keep], sums[keep]


def _infer_weights_exact(V, lin, quad, off, groups_idx, kid, K):
    """Per-kind weights by the reference method, or ``None`` (see :func:`infer_weights`):
    each kind's unit-weight penalty (:func:`qsudoku.model.qubo.one_hot`) matched with the
    BQM's pairs through sorted pair tables.  Right for any groups, but slower."""
    from qsudoku.model.qubo import one_hot

    qi, qj, qb = quad
    keys, sums = _pair_table(np.asarray(qi, np.int64), np.asarray(qj, np.int64),
                             np.asarray(qb, float), V)
    cols = []
    for k in range(K):
        members = [g for g, x in zip(groups_idx, kid) if x == k]
        l1, (ri, rj, rb), o1 = one_hot(members, np.ones(len(members)), V)
        kk, ss = _pair_table(ri, rj, rb, V)
        at = np.searchsorted(keys, kk)
        if len(kk) and ((at >= len(keys)).any() or (keys[np.minimum(at, len(keys) - 1)] != kk).any()):
            return None  # a coupler the BQM lacks
        col = np.zeros(len(keys))
        col[at] = ss
        cols.append(np.concatenate([l1, col, [o1]]))
    A = np.stack(cols, axis=1)
    rhs = np.concatenate([np.asarray(lin, float), sums, [off]])
    w, *_ = np.linalg.lstsq(A, rhs, rcond=None)
    tol = 1e-7 * max(1.0, float(np.abs(rhs).max()))
    if not np.all(w > 0) or not np.allclose(A @ w, rhs, atol=tol, rtol=0):
        return None
    return w


def _group_layers(members, sizes, kid, K, V, max_layers=4):
    """Per layer, the group of each kind that holds each variable (``-1``: none).

    Args:
        members: The groups' variable indices, concatenated.
        sizes, kid: Size and kind index of each group.
        K, V: Numbers of kinds and of variables.
        max_layers: Most layers to build.

    Returns:
        ``(layers, V, K)`` ints: a variable in several groups of one kind (a Sudoku-X centre,
        on both diagonals) has one in each of as many layers.  ``None`` if a group repeats a
        variable or a variable lies in more than ``max_layers`` groups of one kind.
    """
    group = np.repeat(np.arange(len(sizes)), sizes)
    slot = members * K + kid[group]  # one slot per (variable, kind)
    layers = []
    while len(slot):
        if len(layers) == max_layers:
            return None
        gid = np.full(V * K, -1, np.int64)
        gid[slot] = group  # of the memberships of one slot, one wins: it is this layer's
        placed = gid[slot] == group
        if np.count_nonzero(gid >= 0) != np.count_nonzero(placed):
            return None  # two alike memberships (v, g): g repeats v
        layers.append(gid.reshape(V, K))
        slot, group = slot[~placed], group[~placed]
    return np.stack(layers) if layers else np.full((1, V, K), -1, np.int64)


def infer_weights(bqm, variables, groups_idx, kinds, members, sizes):
    """Per-group weights such that the BQM is ``sum_g w_g (sum q - 1)**2``, or ``None``.

    One weight per kind is fitted (least squares) to the linear biases, the couplers and the
    offset; every bias must then match the fit within ``1e-7 * max(1, max |bias|)`` and every
    weight be positive.  The fast path solves :func:`_infer_weights_exact`'s problem without
    sorting: a row (a variable, a coupler ``(u, v)``) counts per kind the groups holding the
    variable, or both ``u`` and ``v`` (see :func:`_group_layers`), as the digits of one code.
    The ``n`` rows ``a`` of one code (right-hand sides ``r_i``) merge into ``sqrt(n) a``
    (``sum r_i / sqrt(n)``): same minimiser and singular values.  As no group repeats a
    variable and the BQM holds each pair once, the couplers cover all pairs of all groups iff
    their counts add up to ``sum_g C(|g|, 2)``.  Zero (or NaN) couplers count as absent, and
    groups the layers cannot describe go to the exact method, so the decisions are its own.

    Args:
        bqm: The BINARY BQM; ``variables``: its variables in index order.
        groups_idx, kinds: Variable indices and kind of each group.
        members, sizes: ``np.concatenate(groups_idx)`` and the group sizes.
    """
    kind_names = sorted(set(kinds))
    index = {k: i for i, k in enumerate(kind_names)}
    kid = np.fromiter(map(index.__getitem__, kinds), np.int64, len(kinds))
    K, V = len(kind_names), len(variables)
    lin, (qi, qj, qb), off = bqm.to_numpy_vectors(variable_order=variables)
    lin, qb, sizes = np.asarray(lin, float), np.asarray(qb, float), np.asarray(sizes, np.int64)
    if not (np.isfinite(lin).all() and np.isfinite(qb).all() and np.isfinite(off)):
        return None  # a NaN coupler would otherwise count as absent, and energies be NaN
    layers = _group_layers(np.asarray(members, np.int64), sizes, kid, K, V)
    base = 1 + (len(layers) if layers is not None else 0)  # every count is below base
    if layers is None or base ** K > 1 << 16:  # (too many codes to count)
        w = _infer_weights_exact(V, lin, (qi, qj, qb), off, groups_idx, kid, K)
        return None if w is None else w[kid]
    powers = (base ** np.arange(K)).astype(float)  # float: BLAS products, exact here
    digits = np.arange(base ** K)[:, None] // base ** np.arange(K) % base  # (code, kind)
    lin_code = ((layers >= 0).sum(axis=0) @ powers).astype(np.int64)
    pair_code = np.zeros(len(qb), np.int64)
    qi, qj = np.asarray(qi, np.int32), np.asarray(qj, np.int32)  # half the memory traffic
    small = layers.astype(np.int32)  # group ids fit (a BQM holds far fewer variables)
    for a in small:  # kind by kind: 1-D gathers from a variable-long column (cache-resident)
        for k in range(K):
            gu = a[:, k][qi]
            ok = gu >= 0
            for b in small:
                pair_code[ok & (gu == b[:, k][qj])] += int(base ** k)
    nz = np.abs(qb) > 0
    if not nz.all():
        pair_code, qb = pair_code[nz], qb[nz]
    n_lin, n_pair = (np.bincount(c, minlength=len(digits)) for c in (lin_code, pair_code))
    if n_pair @ digits.sum(axis=1) != (sizes * (sizes - 1) // 2).sum():
        return None  # a pair of a group that the BQM does not couple
    ul, up = np.flatnonzero(n_lin), np.flatnonzero(n_pair)
    sl, sp = np.sqrt(n_lin[ul]), np.sqrt(n_pair[up])
    ng = np.bincount(kid, minlength=K)  # the offset row: groups per kind
    A = np.concatenate([-digits[ul] * sl[:, None], 2 * digits[up] * sp[:, None], ng[None, :]])
    rhs = np.concatenate([np.bincount(lin_code, lin, len(digits))[ul] / sl,
                          np.bincount(pair_code, qb, len(digits))[up] / sp, [off]])
    w = np.linalg.lstsq(A, rhs, rcond=np.finfo(float).eps * max(V + len(qb) + 1, K))[0]
    tol = 1e-7 * max(1.0, float(max(np.abs(lin).max(initial=0), np.abs(qb).max(initial=0),
                                    abs(off))))
    per_code = digits @ w  # each row's fitted value, through its code
    if (not np.all(w > 0) or not np.allclose(-per_code[lin_code], lin, atol=tol, rtol=0)
            or not np.allclose(2 * per_code[pair_code], qb, atol=tol, rtol=0)
            or not np.allclose(ng @ w, off, atol=tol, rtol=0)):
        return None
    return w[kid]
