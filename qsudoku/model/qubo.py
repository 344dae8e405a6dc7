"""The reduced QUBO: one ``w * (sum q - 1)**2`` penalty per open constraint.

Variables are the candidates left by propagation: ``q[(r, c, d)] = 1`` means
cell ``(r, c)`` holds digit ``d``.  There is one one-hot group per open cell
(``("cell", (r, c))``) and one per unit and digit still missing from it
(``("unit", unit_index, d)``).  Each group adds ``w * (sum q - 1)**2``, which for
binary ``q`` is ``-w`` per variable, ``+2w`` per pair and ``+w`` offset, so the
energy is 0 exactly for a valid completion and at least ``min(w)`` otherwise.

Every penalty goes through :func:`one_hot`, which writes all groups of the model
into numpy arrays at once; dimod takes them as arrays too.  The builder makes
the groups with numpy, for all units and digits at once, and hands them to
one_hot's array form ``_one_hot_flat`` already end to end; it takes the pairs in
pieces, so that a deadline can stop a build that takes seconds (49x49 grids).

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = parse_puzzle("12.." "34.." "...." "....")
>>> m = build_model(propagate(p, rules=()))
>>> m.num_variables, len(m.constraints)
(32, 48)
>>> m.energy_of_grid([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
0.0
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import NamedTuple, Sequence

import numpy as np

from qsudoku.checks import need_ints, need_real, need_type
from qsudoku.errors import ConfigError, TimeLimitError
from qsudoku.model.propagate import Candidates
from qsudoku.model.puzzle import Puzzle

__all__ = ["Weights", "Constraint", "QuboModel", "build_model", "one_hot", "MAX_WEIGHT"]

#: The largest penalty weight accepted.  Energies add up thousands of weighted terms in
#: float64; far larger weights overflow (``1e308`` gave ``inf`` energies and numpy warnings),
#: and a ratio of ``1e9`` between weights is already far beyond any useful one.
MAX_WEIGHT = 1e9


@dataclass(frozen=True)
class Weights:
    """Penalty weight per constraint kind (``region`` units use ``box``).

    >>> Weights(cell=2.0).for_kind("region")
    1.0
    """

    cell: float = 1.0
    row: float = 1.0
    column: float = 1.0
    box: float = 1.0
    extra: float = 1.0

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= MAX_WEIGHT):
                raise ConfigError(f"weight {f.name} = {v!r} must be a number > 0 and <= "
                                  f"{MAX_WEIGHT:g} (weights are relative: only their ratios "
                                  "matter)")
            object.__setattr__(self, f.name, float(v))

    def for_kind(self, kind: str) -> float:
        """Weight of a constraint of ``kind`` (``cell`` or a unit kind)."""
        return getattr(self, "box" if kind == "region" else kind)


@dataclass(frozen=True)
class Constraint:
    """A labelled one-hot group of the model.

    Attributes:
        label: ``("cell", (r, c))`` or ``("unit", unit_index, digit)``.
        kind: ``"cell"`` or the unit's kind (``row``, ``column``, ``box``, ``region``, ``extra``).
        variables: Indices into :attr:`QuboModel.variables`.
        weight: Its penalty weight.
    """

    label: tuple
    kind: str
    variables: np.ndarray
    weight: float

    def describe(self, puzzle) -> str:
        """Readable name, e.g. ``"cell r1c3"`` or ``"box 2 needs one 7"``."""
        if self.label[0] == "cell":
            r, c = self.label[1]
            return f"cell r{r + 1}c{c + 1}"
        unit, d = puzzle.units[self.label[1]], self.label[2]
        return f"{unit.label} needs one {puzzle.alphabet[d - 1]}"


def one_hot(groups: Sequence[np.ndarray], weights: Sequence[float], num_variables: int):
    """Linear, quadratic and offset terms of ``sum_g w_g * (sum_{i in g} q_i - 1)**2``.

    The pairs are made for all groups at once (no Python loop per group or per
    coupler); they come out smallest groups first (groups of one size in their
    given order), each group's pairs in ``triu_indices`` order.

    Returns:
        ``(linear, (rows, cols, biases), offset)`` ready for
        :meth:`dimod.BinaryQuadraticModel.from_numpy_vectors` (duplicate pairs add up).

    >>> lin, (i, j, b), off = one_hot([np.array([0, 1, 2])], [1.0], 3)
    >>> lin.tolist(), list(zip(i.tolist(), j.tolist(), b.tolist())), off
    ([-1.0, -1.0, -1.0], [(0, 1, 2.0), (0, 2, 2.0), (1, 2, 2.0)], 1.0)
    """
    sizes = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
    flat = (np.concatenate(groups).astype(np.int64) if len(groups) and sizes.sum()
            else np.zeros(0, np.int64))
    linear, pieces, offset = _one_hot_flat(flat, sizes, weights, num_variables)
    pieces = list(pieces)
    quad = tuple(np.concatenate([p[k] for p in pieces]) if pieces else np.zeros(0, dtype)
                 for k, dtype in enumerate((np.int64, np.int64, float)))
    return linear, quad, offset


#: Most pairs in one piece of :func:`_one_hot_flat`: bounds the memory of a piece and
#: the time between two deadline checks of :func:`build_model` (a piece of 2**20 pairs
#: takes dimod about 0.1 s on the reference machine).
PIECE_PAIRS = 1 << 20


def _one_hot_flat(flat: np.ndarray, sizes: np.ndarray, weights, num_variables: int,
                  piece: int | None = None):
    """:func:`one_hot` of the groups written end to end, its pairs in pieces.

    ``flat`` (int64) holds group ``g``'s ``sizes[g]`` variables right after those of
    groups ``0..g-1``.  Returns ``(linear, pieces, offset)``: ``pieces`` yields
    ``(rows, cols, biases)`` arrays of at most ``piece`` (default :data:`PIECE_PAIRS`)
    pairs, or one group's, which end to end are :func:`one_hot`'s.  Made lazily, so
    that a caller can stop between two pieces and never holds every pair at once.

    >>> lin, pieces, off = _one_hot_flat(np.array([0, 1, 2, 1, 2]), np.array([3, 2]),
    ...                                  [1.0, 0.5], 3, piece=2)
    >>> [(i.tolist(), j.tolist(), b.tolist()) for i, j, b in pieces]
    [([1], [2], [1.0]), ([0, 0, 1], [1, 2, 2], [2.0, 2.0, 2.0])]
    """
    weights = np.asarray(weights, dtype=float)
    linear = -np.bincount(flat, weights=np.repeat(weights, sizes), minlength=num_variables)
    piece = PIECE_PAIRS if piece is None else piece
    return linear, _pairs(flat, sizes, weights, piece), float(weights.sum())


def _pairs(flat: np.ndarray, sizes: np.ndarray, weights: np.ndarray, piece: int):
    """The pieces of :func:`_one_hot_flat`: runs of groups, smallest first."""
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
        a = _within(sizes[g[i:j]] - 1)
        span = sizes[row_g] - 1 - a  # pairs per row
        row = np.repeat(np.arange(len(row_g)), span)  # the row of each pair
        b = a[row] + 1 + _within(span)
        base = starts[row_g][row]
        yield flat[base + a[row]], flat[base + b], 2.0 * weights[row_g][row]
        i = j


def _within(counts: np.ndarray) -> np.ndarray:
    """``0..c-1`` for each count ``c``, end to end.

    >>> _within(np.array([2, 0, 3])).tolist()
    [0, 1, 0, 1, 2]
    """
    return np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)


class _Packed(NamedTuple):
    """A model's constraints end to end, for the decoder and :meth:`QuboModel.groups`."""

    members: np.ndarray  # every constraint's variable indices, concatenated (int64)
    bounds: list[int]  # constraint k's members are members[bounds[k]:bounds[k + 1]]
    starts: np.ndarray  # bounds[:-1]
    labels: list[tuple]
    kinds: list[str]


@dataclass
class QuboModel:
    """A compiled model: the BQM plus everything needed to decode it.

    Attributes:
        candidates: The propagation result it was built from.
        weights: The weights used.
        bqm: The :class:`dimod.BinaryQuadraticModel` (BINARY) over ``(r, c, d)`` labels.
        variables: Label of each variable index, ``(row, col, digit)``.
        var_cell: Flat cell of each variable.
        var_digit: Digit of each variable.
        constraints: The labelled one-hot groups.

    A model is not changed after building: :meth:`groups` and the decoder read the
    constraints through arrays made once per model.
    """

    candidates: Candidates
    weights: Weights
    bqm: object
    variables: list[tuple[int, int, int]]
    var_cell: np.ndarray
    var_digit: np.ndarray
    constraints: list[Constraint] = field(default_factory=list)

    @property
    def puzzle(self):
        return self.candidates.puzzle

    @property
    def fixed(self) -> list[int]:
        """The grid after propagation (0 = open)."""
        return self.candidates.grid

    @property
    def num_variables(self) -> int:
        return len(self.variables)

    @property
    def num_interactions(self) -> int:
        return self.bqm.num_interactions

    def groups(self) -> list[tuple[str, list[tuple[int, int, int]]]]:
        """Each one-hot group as ``(kind, [variable labels])`` for structure-aware samplers.

        The labels are looked up once per model (a model is not changed after
        building); each call returns new lists.
        """
        labels, b = self._member_labels, self._packed.bounds
        return [(kind, labels[i:j]) for kind, i, j in zip(self._packed.kinds, b, b[1:])]

    @cached_property
    def _packed(self) -> _Packed:
        """The constraints end to end, for the decoder and :meth:`groups`.

        Computed once (a model's constraints are not changed after building);
        :func:`build_model` sets it as it makes them.
        """
        cons = self.constraints
        sizes = [len(c.variables) for c in cons]
        members = (np.concatenate([c.variables for c in cons]).astype(np.int64) if sum(sizes)
                   else np.zeros(0, np.int64))
        bounds = np.cumsum([0] + sizes)
        return _Packed(members, bounds.tolist(), bounds[:-1], [c.label for c in cons],
                       [c.kind for c in cons])

    @cached_property
    def _member_labels(self) -> list[tuple[int, int, int]]:
        """The variable label of each entry of ``_packed.members``."""
        v = self.variables
        return [v[i] for i in self._packed.members.tolist()]

    def sample_of_grid(self, grid: Sequence[int]) -> np.ndarray:
        """The 0/1 vector (in variable-index order) that encodes a full ``grid``."""
        n = self.puzzle.size
        g = np.asarray(need_ints("grid", grid, low=0, high=n, length=n * n))
        return (g[self.var_cell] == self.var_digit).astype(np.int8)

    def energy_of_grid(self, grid: Sequence[int]) -> float:
        """BQM energy of the sample encoding ``grid`` (0.0 for a valid completion)."""
        x = self.sample_of_grid(grid)
        return float(self.bqm.energy((x, self.variables)))


def build_model(candidates: Candidates, weights: Weights = Weights(), *,
                deadline: float | None = None) -> QuboModel:
    """Build the reduced QUBO of a propagated puzzle.

    Args:
        candidates: Output of :func:`qsudoku.model.propagate.propagate`.
        weights: Penalty weight per constraint kind.
        deadline: A :func:`time.perf_counter` value: the build checks it between two
            pieces of :data:`PIECE_PAIRS` couplers (a blank 49x49 has 11 million),
            so that a time limit holds on grids whose model alone takes seconds.
            ``None`` = no limit.

    Raises:
        TimeLimitError: If the deadline passed before the model was complete.
    """
    import dimod

    need_real("deadline", deadline, allow_none=True)
    if isinstance(candidates, Puzzle):
        raise TypeError("candidates must be Candidates (the result of propagate(puzzle)), "
                        "not a Puzzle")
    need_type("candidates", candidates, Candidates)
    need_type("weights", weights, Weights)
    puzzle = candidates.puzzle
    n = puzzle.size
    grid = np.asarray(candidates.grid)
    if n < 63:
        masks = np.asarray(candidates.masks, dtype=np.int64)
        bits = (masks[:, None] >> np.arange(n)[None, :]) & 1
    else:  # a mask of 63 digits or more does not fit in an int64
        bits = np.array([[(m >> d) & 1 for d in range(n)] for m in candidates.masks], np.int64)
    bits[grid != 0] = 0
    var_cell, d0 = np.nonzero(bits)  # by cell, then digit: a cell's variables are consecutive
    var_digit = d0 + 1
    nv = len(var_cell)
    index = np.full((n * n, n), -1, dtype=np.int64)
    index[var_cell, d0] = np.arange(nv)
    variables = list(zip((var_cell // n).tolist(), (var_cell % n).tolist(), var_digit.tolist()))

    # Cell groups, in cell order: together they are 0..nv-1.
    open_cells = np.flatnonzero(grid == 0)
    cell_start = np.searchsorted(var_cell, np.arange(n * n + 1))
    cell_sizes = cell_start[open_cells + 1] - cell_start[open_cells]
    # Unit groups for all units at once: sub[k, d, i] is the variable of digit d + 1 in
    # unit k's i-th cell (-1: none).  A group per (unit, digit) with any; sub[sub >= 0]
    # lists them unit by unit, digit by digit, each in its unit's cell order.
    units = puzzle.units
    unit_cells = np.array([u.cells for u in units], dtype=np.int64).reshape(len(units), n)
    sub = index[unit_cells].transpose(0, 2, 1)
    unit_sizes = (sub >= 0).sum(axis=2)
    uk, ud = np.nonzero(unit_sizes)
    members = np.concatenate([np.arange(nv), sub[sub >= 0]])
    sizes = np.concatenate([cell_sizes, unit_sizes[uk, ud]])

    unit_kinds = [u.kind for u in units]
    unit_w = [weights.for_kind(kind) for kind in unit_kinds]
    uk, ud = uk.tolist(), ud.tolist()
    labels = ([("cell", (c // n, c % n)) for c in open_cells.tolist()]
              + [("unit", k, d + 1) for k, d in zip(uk, ud)])
    kinds = ["cell"] * len(open_cells) + [unit_kinds[k] for k in uk]
    group_w = [weights.cell] * len(open_cells) + [unit_w[k] for k in uk]
    starts = np.cumsum(sizes) - sizes
    bounds = starts.tolist() + [len(members)]
    arrays = [members[i:j] for i, j in zip(bounds, bounds[1:])]
    constraints = list(map(Constraint, labels, kinds, arrays, group_w))

    # What BinaryQuadraticModel.from_numpy_vectors does, a piece at a time: couplers
    # added in one_hot's order (so duplicates add up in the same order), then labels.
    linear, pieces, offset = _one_hot_flat(members, sizes, group_w, nv)
    bqm = dimod.BinaryQuadraticModel(dimod.BINARY)
    bqm.add_linear_from_array(linear)
    bqm.offset = offset
    for rows, cols, biases in pieces:
        _check_deadline(deadline, nv)
        bqm.data.add_quadratic_from_arrays(rows, cols, biases)  # as dimod's own from_file
    _check_deadline(deadline, nv)
    bqm.relabel_variables(dict(enumerate(variables)))
    model = QuboModel(candidates, weights, bqm, variables, var_cell, var_digit, constraints)
    model._packed = _Packed(members, bounds, starts, labels, kinds)
    return model


def _check_deadline(deadline: float | None, num_variables: int) -> None:
    """Raise :class:`TimeLimitError` once ``time.perf_counter()`` is past ``deadline``."""
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeLimitError(f"the QUBO of {num_variables} variables was not built "
                             "before the deadline", num_variables=num_variables)
