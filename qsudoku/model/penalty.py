"""Quadratic penalties of linear equalities: ``w * (sum_i a_i x_i + b)**2`` over binaries.

One builder for every equality of the QUBO; one-hot ``w * (sum q - 1)**2`` is the case
``a_i = 1, b = -1``, the domain wall passes its indicators' coefficients and constants:

* linear: ``w * (a_i**2 + 2 * a_i * b)`` (as ``x**2 = x`` for a binary ``x``),
* pairs: ``2 * w * a_i * a_j``,
* offset: ``w * b**2``.

The pairs are made for all groups at once, smallest groups first, in pieces of at most
:data:`PIECE_PAIRS` (a builder can stop between two at a deadline).  A group lists each
variable at most once.

>>> lin, (i, j, b), off = one_hot([np.array([0, 1, 2])], [1.0], 3)
>>> lin.tolist(), list(zip(i.tolist(), j.tolist(), b.tolist())), off
([-1.0, -1.0, -1.0], [(0, 1, 2.0), (0, 2, 2.0), (1, 2, 2.0)], 1.0)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["one_hot", "penalty_terms", "within", "PIECE_PAIRS"]

#: Most pairs in one piece of :func:`penalty_terms` (bounds memory and the time between
#: two deadline checks).
PIECE_PAIRS = 1 << 20


def one_hot(groups: Sequence[np.ndarray], weights: Sequence[float], num_variables: int):
    """Linear, quadratic and offset terms of ``sum_g w_g * (sum_{i in g} q_i - 1)**2``.

    The pairs come out smallest groups first (groups of one size in their given order),
    each group's pairs in ``triu_indices`` order.

    Returns:
        ``(linear, (rows, cols, biases), offset)`` ready for
        :meth:`dimod.BinaryQuadraticModel.from_numpy_vectors` (duplicate pairs add up).
    """
    sizes = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
    flat = (np.concatenate(groups).astype(np.int64) if len(groups) and sizes.sum()
            else np.zeros(0, np.int64))
    linear, pieces, offset = penalty_terms(flat, sizes, weights, num_variables)
    pieces = list(pieces)
    quad = tuple(np.concatenate([p[k] for p in pieces]) if pieces else np.zeros(0, dtype)
                 for k, dtype in enumerate((np.int64, np.int64, float)))
    return linear, quad, offset


def penalty_terms(flat: np.ndarray, sizes: np.ndarray, weights, num_variables: int,
                  piece: int | None = None, coefs: np.ndarray | None = None,
                  consts: np.ndarray | None = None):
    """The terms of ``sum_g w_g * (sum_i a_i x_i + b_g)**2``, groups written end to end.

    Args:
        flat: Group ``g``'s ``sizes[g]`` variable indices right after those of groups
            ``0..g-1`` (int64).
        sizes: Variables per group.
        weights: ``w_g`` per group.
        num_variables: Length of the linear vector.
        piece: Most pairs per piece (default :data:`PIECE_PAIRS`).
        coefs: ``a_i`` per entry of ``flat`` (default 1: the one-hot penalty).
        consts: ``b_g`` per group (default -1).

    Returns:
        ``(linear, pieces, offset)``: ``pieces`` yields ``(rows, cols, biases)`` arrays
        of at most ``piece`` pairs (or one group's), made lazily so that a caller can stop
        between two pieces and never holds every pair at once.

    >>> lin, pieces, off = penalty_terms(np.array([0, 1, 2, 1, 2]), np.array([3, 2]),
    ...                                  [1.0, 0.5], 3, piece=2)
    >>> [(i.tolist(), j.tolist(), b.tolist()) for i, j, b in pieces]
    [([1], [2], [1.0]), ([0, 0, 1], [1, 2, 2], [2.0, 2.0, 2.0])]

    ``(1 - x0 + x1 - 1)**2 = (x1 - x0)**2``, the square of a domain-wall difference:

    >>> lin, pieces, off = penalty_terms(np.array([0, 1]), np.array([2]), [1.0], 2,
    ...                                  coefs=np.array([-1.0, 1.0]), consts=np.array([0.0]))
    >>> lin.tolist(), [b.tolist() for _, _, b in pieces], off
    ([1.0, 1.0], [[-2.0]], 0.0)
    """
    weights = np.asarray(weights, dtype=float)
    piece = PIECE_PAIRS if piece is None else piece
    if coefs is None and consts is None:
        linear = -np.bincount(flat, weights=np.repeat(weights, sizes), minlength=num_variables)
        return linear, _pairs(flat, sizes, weights, piece, None), float(weights.sum())
    a = np.ones(len(flat)) if coefs is None else np.asarray(coefs, dtype=float)
    b = np.full(len(sizes), -1.0) if consts is None else np.asarray(consts, dtype=float)
    wb = np.repeat(weights, sizes), np.repeat(b, sizes)
    linear = np.bincount(flat, weights=wb[0] * (a * a + 2.0 * a * wb[1]),
                         minlength=num_variables)
    return linear, _pairs(flat, sizes, weights, piece, a), float((weights * b * b).sum())


def _pairs(flat: np.ndarray, sizes: np.ndarray, weights: np.ndarray, piece: int,
           coefs: np.ndarray | None):
    """The pieces of :func:`penalty_terms`: runs of groups, smallest first."""
    starts = np.cumsum(sizes) - sizes
    g = np.argsort(sizes, kind="stable")
    g = g[sizes[g] > 1]  # the groups with pairs, smallest first
    ends = np.cumsum(sizes[g] * (sizes[g] - 1) // 2)  # pairs of groups g[:k + 1]
    i = 0
    while i < len(g):
        done = int(ends[i - 1]) if i else 0
        j = max(i + 1, int(np.searchsorted(ends, done + piece, side="right")))
        # A group of m members has a row per first member a = 0..m-2, holding the pairs
        # (a, a+1), ..., (a, m-1): row by row, that is triu_indices(m, 1) order.
        row_g = np.repeat(g[i:j], sizes[g[i:j]] - 1)
        a = within(sizes[g[i:j]] - 1)
        span = sizes[row_g] - 1 - a  # pairs per row
        row = np.repeat(np.arange(len(row_g)), span)  # the row of each pair
        b = a[row] + 1 + within(span)
        base = starts[row_g][row]
        bias = 2.0 * weights[row_g][row]
        if coefs is not None:
            bias = bias * coefs[base + a[row]] * coefs[base + b]
        yield flat[base + a[row]], flat[base + b], bias
        i = j


def within(counts: np.ndarray) -> np.ndarray:
    """``0..c-1`` for each count ``c``, end to end.

    >>> within(np.array([2, 0, 3])).tolist()
    [0, 1, 0, 1, 2]
    """
    return np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
