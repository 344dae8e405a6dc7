"""Encodings: how a cell's candidate digits become binary variables.

The QUBO is written over *value indicators*, one per candidate slot ``(r, c, d)``.  An
encoding says which binary variables carry them, what each indicator is in those
variables, and its own penalty keeping a cell to one value; the builder and the decoder
go through this one seam, so nothing else branches on the encoding.

* ``one-hot`` (default): the indicator *is* the variable; a cell adds
  ``w_cell * (sum q - 1)**2``.  Its groups are the exact cover structure-aware samplers read.
* ``domain-wall`` (Chancellor, Quantum Sci. Technol. 4:045004, 2019): a cell with candidates
  ``d_0 < ... < d_{k-1}`` takes ``k - 1`` variables ``s_j`` = "the digit is ``>= d_j``"
  (``(r, c, ">=", d_j)``); with ``s_0 = 1``, ``s_k = 0`` the indicator of ``d_j`` is
  ``s_j - s_{j+1}`` and the chain ``w_cell * sum_j s_{j+1} (1 - s_j)`` is 0 exactly on a
  single wall, so a cell's indicators always sum to one.

Energy 0 <=> a valid grid holds for both (every term is non-negative).

>>> enc = ENCODINGS["domain-wall"]
>>> e = enc.encode(np.array([0, 0, 0, 1]), np.array([1, 2, 4, 3]), 2)
>>> e.labels
[(0, 0, '>=', 2), (0, 0, '>=', 4)]
>>> indicator_matrix(e, np.array([[1, 0], [1, 1], [0, 0]])).tolist()
[[0, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1]]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from qsudoku.errors import ConfigError

__all__ = ["Encoded", "Encoding", "OneHot", "DomainWall", "ENCODINGS", "DEFAULT_ENCODING",
           "get_encoding", "indicator_matrix", "variable_name"]


class Encoded(NamedTuple):
    """What an encoding made of a model's candidate slots.

    Attributes:
        encoding: The encoding's name.
        labels: Label of each binary variable.
        var_cell: Flat cell of each binary variable.
        var_digit: The digit of each variable (one-hot) or its wall's digit ``d_j``.
        ptr, var, coef, const: Slot ``s``'s indicator is ``const[s] + sum(coef[k] *
            x[var[k]] for k in range(ptr[s], ptr[s + 1]))``; ``None`` when every slot's
            indicator is its own variable (one-hot).
        chain: ``(first, second)`` variable pairs of the encoding's own penalty
            ``w * x_second * (1 - x_first)`` (empty for one-hot).
    """

    encoding: str
    labels: list
    var_cell: np.ndarray
    var_digit: np.ndarray
    ptr: np.ndarray | None = None
    var: np.ndarray | None = None
    coef: np.ndarray | None = None
    const: np.ndarray | None = None
    chain: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0, np.int64))

    @property
    def one_hot(self) -> bool:
        """True when the variables are the indicators (their groups are one-hot)."""
        return self.ptr is None


class Encoding:
    """An encoding: :meth:`encode` candidate slots, :meth:`sample_of_grid` a full grid."""

    name = ""

    def encode(self, slot_cell: np.ndarray, slot_digit: np.ndarray, n: int) -> Encoded:
        """Variables and indicators of the slots (sorted by cell, then digit) of an ``n x n``."""
        raise NotImplementedError

    def sample_of_grid(self, e: Encoded, grid: np.ndarray) -> np.ndarray:
        """The 0/1 vector (in variable order) that encodes a full flat ``grid``."""
        raise NotImplementedError


class OneHot(Encoding):
    """A variable per candidate slot; ``w_cell * (sum q - 1)**2`` per open cell.

    >>> e = OneHot().encode(np.array([0, 0, 1]), np.array([1, 2, 2]), 2)
    >>> e.labels, e.one_hot
    ([(0, 0, 1), (0, 0, 2), (0, 1, 2)], True)
    """

    name = "one-hot"

    def encode(self, slot_cell, slot_digit, n):
        labels = list(zip((slot_cell // n).tolist(), (slot_cell % n).tolist(),
                          slot_digit.tolist()))
        return Encoded(self.name, labels, slot_cell, slot_digit)

    def sample_of_grid(self, e, grid):
        return (grid[e.var_cell] == e.var_digit).astype(np.int8)


class DomainWall(Encoding):
    """``k - 1`` variables per cell of ``k`` candidates; one wall per cell (module docstring).

    >>> e = DomainWall().encode(np.array([0, 0, 0]), np.array([2, 5, 7]), 3)
    >>> [v.tolist() for v in e.chain], DomainWall().sample_of_grid(e, np.array([5])).tolist()
    ([[0], [1]], [1, 0])
    """

    name = "domain-wall"

    def encode(self, slot_cell, slot_digit, n):
        ns = len(slot_cell)
        first = np.ones(ns, bool)
        first[1:] = slot_cell[1:] != slot_cell[:-1]  # the first slot of each cell
        last = np.ones(ns, bool)
        last[:-1] = first[1:]
        # Slot s that is not its cell's first owns the wall variable s_j (j >= 1).
        owner = np.flatnonzero(~first)
        var_of = np.full(ns, -1, np.int64)
        var_of[owner] = np.arange(len(owner))
        var_cell, var_digit = slot_cell[owner], slot_digit[owner]
        labels = list(zip((var_cell // n).tolist(), (var_cell % n).tolist(),
                          [">="] * len(owner), var_digit.tolist()))
        # Indicator of slot s: +s_j (own variable, unless first) - s_{j+1} (next slot's
        # variable, unless last); a first slot adds the fixed s_0 = 1.
        plus = np.where(first, -1, var_of)
        minus = np.where(last, -1, np.roll(var_of, -1))
        count = (plus >= 0).astype(np.int64) + (minus >= 0)
        ptr = np.concatenate([[0], np.cumsum(count)])
        var = np.zeros(int(ptr[-1]), np.int64)
        coef = np.zeros(int(ptr[-1]))
        has_plus = plus >= 0
        var[ptr[:-1][has_plus]], coef[ptr[:-1][has_plus]] = plus[has_plus], 1.0
        at = ptr[:-1] + has_plus
        has_minus = minus >= 0
        var[at[has_minus]], coef[at[has_minus]] = minus[has_minus], -1.0
        const = first.astype(float)
        # The chain: consecutive variables of one cell, penalty x_second * (1 - x_first).
        same = np.flatnonzero(var_cell[1:] == var_cell[:-1]) if len(owner) else np.zeros(0, int)
        chain = (same.astype(np.int64), (same + 1).astype(np.int64))
        return Encoded(self.name, labels, var_cell, var_digit, ptr, var, coef, const, chain)

    def sample_of_grid(self, e, grid):
        return (grid[e.var_cell] >= e.var_digit).astype(np.int8)


#: The encodings by name (``[qubo] encoding``, ``--encoding``).
ENCODINGS = {enc.name: enc for enc in (OneHot(), DomainWall())}
#: The default encoding.
DEFAULT_ENCODING = "one-hot"


def get_encoding(name: str) -> Encoding:
    """The encoding called ``name``.

    >>> get_encoding("domain-wall").name
    'domain-wall'
    >>> get_encoding("binary")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: unknown encoding 'binary' (choose from domain-wall, one-hot)
    """
    try:
        return ENCODINGS[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown encoding {name!r} (choose from "
                          f"{', '.join(sorted(ENCODINGS))})") from None


def variable_name(label: tuple) -> str:
    """A variable's name in text outputs, 1-based: ``r1c3#7`` (one-hot) or ``r1c3>=7``.

    >>> variable_name((0, 2, 7)), variable_name((0, 2, ">=", 7))
    ('r1c3#7', 'r1c3>=7')
    """
    r, c, *rest = label
    return f"r{r + 1}c{c + 1}" + ("#" if len(rest) == 1 else "") + "".join(map(str, rest))


def indicator_matrix(e: Encoded, samples: np.ndarray) -> np.ndarray:
    """``(S, slots)`` indicator values of ``(S, variables)`` 0/1 samples (int64).

    Domain wall: in {-1, 0, 1}, -1 or a second 1 only where a chain is broken.
    """
    x = np.asarray(samples).astype(np.int64)
    if e.one_hot:
        return x
    S, slots = len(x), len(e.const)
    slot = np.repeat(np.arange(slots), np.diff(e.ptr))
    bins = (np.arange(S)[:, None] * slots + slot[None, :]).ravel()
    sums = np.bincount(bins, weights=(x[:, e.var] * e.coef[None, :]).ravel(),
                       minlength=S * slots).reshape(S, slots)
    return np.rint(sums).astype(np.int64) + e.const.astype(np.int64)[None, :]
