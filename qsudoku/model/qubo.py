"""The reduced QUBO: one ``w * (sum q - 1)**2`` penalty per open constraint.

The model is written over the candidates left by propagation: the *indicator*
``q[(r, c, d)]`` is 1 when cell ``(r, c)`` holds digit ``d``.  There is one group per
open cell (``("cell", (r, c))``) and one per unit and digit still missing from it
(``("unit", unit_index, d)``).  Each unit group adds ``w * (sum q - 1)**2``; each cell
group adds its encoding's own penalty (:mod:`qsudoku.model.encodings`): with one-hot,
the default, the indicators are the binary variables and a cell adds
``w * (sum q - 1)**2`` too (``-w`` per variable, ``+2w`` per pair and ``+w`` offset);
with the domain wall, a cell of ``k`` candidates takes ``k - 1`` variables and a chain
penalty.  Either way the energy is 0 exactly for a valid completion and at least
``min(w)`` otherwise.

Every squared penalty goes through one builder, :func:`qsudoku.model.penalty.penalty_terms`
(its one-hot case is :func:`one_hot`), all groups at once in numpy arrays, the pairs in
pieces so that a deadline can stop a build that takes seconds.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = parse_puzzle("12.." "34.." "...." "....")
>>> m = build_model(propagate(p, rules=()))
>>> m.num_variables, len(m.constraints)
(32, 48)
>>> m.energy_of_grid([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
0.0
>>> w = build_model(propagate(p, rules=()), encoding="domain-wall")
>>> w.num_variables, w.encoding, w.energy_of_grid([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
(20, 'domain-wall', 0.0)
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, Sequence

import numpy as np

from qsudoku.checks import need_ints, need_real, need_type
from qsudoku.errors import ConfigError, TimeLimitError
from qsudoku.model.encodings import DEFAULT_ENCODING, Encoded, get_encoding, indicator_matrix
from qsudoku.model.penalty import PIECE_PAIRS, one_hot, penalty_terms, within
from qsudoku.model.propagate import Candidates
from qsudoku.model.puzzle import Puzzle

if TYPE_CHECKING:
    import dimod

__all__ = ["Weights", "Constraint", "QuboModel", "build_model", "one_hot", "MAX_WEIGHT",
           "PIECE_PAIRS"]

#: The largest penalty weight accepted: far larger ones overflow float64 energies, and a
#: ratio of ``1e9`` between weights is far beyond any useful one.
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


class Packed(NamedTuple):
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
        bqm: The :class:`dimod.BinaryQuadraticModel` (BINARY) over the variable labels.
        variables: Label of each variable index: ``(row, col, digit)`` (one-hot) or
            ``(row, col, ">=", digit)`` (domain wall).
        var_cell: Flat cell of each variable.
        var_digit: Digit of each variable (the wall's digit for the domain wall).
        constraints: The labelled groups; their ``variables`` index the candidate slots
            (:attr:`slot_cell`, :attr:`slot_digit`), which are the variables in one-hot.
        encoded: What the encoding made of the slots (``None``: one-hot).
        slot_cell: Flat cell of each candidate slot (``None``: :attr:`var_cell`).
        slot_digit: Digit of each candidate slot (``None``: :attr:`var_digit`).

    A model is not changed after building (the decoder reads arrays made once).
    """

    candidates: Candidates
    weights: Weights
    bqm: dimod.BinaryQuadraticModel
    variables: list[tuple]
    var_cell: np.ndarray
    var_digit: np.ndarray
    constraints: list[Constraint] = field(default_factory=list)
    encoded: Encoded | None = None
    slot_cell: np.ndarray | None = None
    slot_digit: np.ndarray | None = None

    def __post_init__(self):
        if self.slot_cell is None:
            self.slot_cell, self.slot_digit = self.var_cell, self.var_digit

    @property
    def encoding(self) -> str:
        """The encoding's name (``one-hot`` or ``domain-wall``)."""
        return DEFAULT_ENCODING if self.encoded is None else self.encoded.encoding

    @property
    def one_hot(self) -> bool:
        """True when the variables are the indicators, so that :meth:`groups` exist."""
        return self.encoded is None or self.encoded.one_hot

    def indicators(self, samples: np.ndarray) -> np.ndarray:
        """``(S, slots)`` indicator values of ``(S, variables)`` samples."""
        if self.one_hot:
            return np.asarray(samples).astype(np.int64)
        return indicator_matrix(self.encoded, samples)

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

    def groups(self) -> list[tuple[str, list[tuple]]]:
        """Each one-hot group as ``(kind, [labels])`` for structure-aware samplers (new
        lists each call).

        One-hot: the labels are the model's variables.  The domain wall gives first one
        ``("wall", [the cell's variables])`` per open cell (in the order of the ``"cell"``
        groups), then the one-hot groups over the *candidate slots* ``(r, c, d)``, which
        are not the model's variables (slot ``j``'s indicator is wall ``j`` minus wall
        ``j + 1``).
        """
        labels, b = self._member_labels, self.packed.bounds
        one_hot = [(kind, labels[i:j]) for kind, i, j in zip(self.packed.kinds, b, b[1:])]
        if self.one_hot:
            return one_hot
        n = self.puzzle.size
        cells = [r * n + c for (_, (r, c)) in (lab for lab in self.packed.labels
                                                if lab[0] == "cell")]
        at = np.searchsorted(self.var_cell, np.concatenate([cells, np.asarray(cells) + 1]))
        lo, hi = at[:len(cells)].tolist(), at[len(cells):].tolist()
        return [("wall", self.variables[i:j]) for i, j in zip(lo, hi)] + one_hot

    @cached_property
    def packed(self) -> Packed:
        """The constraints end to end (:func:`build_model` sets it as it makes them)."""
        cons = self.constraints
        sizes = [len(c.variables) for c in cons]
        members = (np.concatenate([c.variables for c in cons]).astype(np.int64) if sum(sizes)
                   else np.zeros(0, np.int64))
        bounds = np.cumsum([0] + sizes)
        return Packed(members, bounds.tolist(), bounds[:-1], [c.label for c in cons],
                       [c.kind for c in cons])

    @cached_property
    def _member_labels(self) -> list[tuple[int, int, int]]:
        """The slot label ``(r, c, d)`` of each entry of ``packed.members``."""
        n = self.puzzle.size
        slots = self.slot_cell[self.packed.members]
        return list(zip((slots // n).tolist(), (slots % n).tolist(),
                        self.slot_digit[self.packed.members].tolist()))

    def sample_of_grid(self, grid: Sequence[int]) -> np.ndarray:
        """The 0/1 vector (in variable-index order) that encodes a full ``grid``."""
        n = self.puzzle.size
        g = np.asarray(need_ints("grid", grid, low=0, high=n, length=n * n))
        if self.encoded is None:
            return (g[self.var_cell] == self.var_digit).astype(np.int8)
        return get_encoding(self.encoding).sample_of_grid(self.encoded, g)

    def energy_of_grid(self, grid: Sequence[int]) -> float:
        """BQM energy of the sample encoding ``grid`` (0.0 for a valid completion)."""
        x = self.sample_of_grid(grid)
        return float(self.bqm.energy((x, self.variables)))


def build_model(candidates: Candidates, weights: Weights = Weights(), *,
                deadline: float | None = None, encoding: str = DEFAULT_ENCODING) -> QuboModel:
    """Build the reduced QUBO of a propagated puzzle.

    Args:
        candidates: Output of :func:`qsudoku.model.propagate.propagate`.
        weights: Penalty weight per constraint kind (``cell`` weighs the encoding's own
            penalty: the one-hot cell groups, or the domain wall's chains).
        deadline: A :func:`time.perf_counter` value, checked between two pieces of
            :data:`PIECE_PAIRS` couplers (``None`` = no limit).
        encoding: A name of :data:`qsudoku.model.encodings.ENCODINGS`.

    Raises:
        TimeLimitError: If the deadline passed before the model was complete.
        ConfigError: If ``encoding`` is unknown.
    """
    import dimod

    need_real("deadline", deadline, allow_none=True)
    if isinstance(candidates, Puzzle):
        raise TypeError("candidates must be Candidates (the result of propagate(puzzle)), "
                        "not a Puzzle")
    need_type("candidates", candidates, Candidates)
    need_type("weights", weights, Weights)
    enc = get_encoding(encoding)
    puzzle = candidates.puzzle
    n = puzzle.size
    grid = np.asarray(candidates.grid)
    slot_cell, d0 = np.nonzero(candidates.open_bits())  # by cell, then digit: a cell's slots are consecutive
    slot_digit = d0 + 1
    ns = len(slot_cell)
    index = np.full((n * n, n), -1, dtype=np.int64)
    index[slot_cell, d0] = np.arange(ns)

    # Cell groups, in cell order: together they are 0..ns-1.
    open_cells = np.flatnonzero(grid == 0)
    cell_start = np.searchsorted(slot_cell, np.arange(n * n + 1))
    cell_sizes = cell_start[open_cells + 1] - cell_start[open_cells]
    # Unit groups: sub[k, d, i] is the slot of digit d + 1 in unit k's i-th cell (-1: none);
    # sub[sub >= 0] lists them unit by unit, digit by digit, in the unit's cell order.
    units = puzzle.units
    unit_cells = np.array([u.cells for u in units], dtype=np.int64).reshape(len(units), n)
    sub = index[unit_cells].transpose(0, 2, 1)
    unit_sizes = (sub >= 0).sum(axis=2)
    uk, ud = np.nonzero(unit_sizes)
    members = np.concatenate([np.arange(ns), sub[sub >= 0]])
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

    encoded = enc.encode(slot_cell, slot_digit, n)
    nv = len(encoded.labels)
    linear, pieces, offset = _penalties(encoded, members, sizes, group_w, len(open_cells),
                                        weights.cell)
    # What BinaryQuadraticModel.from_numpy_vectors does, a piece at a time: couplers
    # added in the builder's order (so duplicates add up in the same order), then labels.
    bqm = dimod.BinaryQuadraticModel(dimod.BINARY)
    bqm.add_linear_from_array(linear)
    bqm.offset = offset
    for rows, cols, biases in pieces:
        _check_deadline(deadline, nv)
        bqm.data.add_quadratic_from_arrays(rows, cols, biases)  # as dimod's own from_file
    _check_deadline(deadline, nv)
    bqm.relabel_variables(dict(enumerate(encoded.labels)))
    model = QuboModel(candidates, weights, bqm, encoded.labels, encoded.var_cell,
                      encoded.var_digit, constraints,
                      None if encoded.one_hot else encoded, slot_cell, slot_digit)
    model.packed = Packed(members, bounds, starts, labels, kinds)
    return model


def _penalties(e: Encoded, members, sizes, group_w, num_cells: int, w_cell: float):
    """``(linear, pieces, offset)``: the squared penalties of the groups over the
    encoding's indicators (one-hot: every group; else only the unit groups, a cell's
    indicators summing to one by construction), then ``w_cell * x2 * (1 - x1)`` per link
    of the encoding's chains."""
    nv = len(e.labels)
    if e.one_hot:
        return penalty_terms(members, sizes, group_w, nv)
    first = int(sizes[:num_cells].sum())
    slots, g_sizes = members[first:], sizes[num_cells:]
    count = np.diff(e.ptr)[slots]  # terms per slot
    at = np.repeat(e.ptr[:-1][slots], count) + within(count)
    group = np.repeat(np.arange(len(g_sizes)), g_sizes)
    consts = np.bincount(group, weights=e.const[slots], minlength=len(g_sizes)) - 1.0
    term_sizes = np.bincount(group, weights=count, minlength=len(g_sizes)).astype(np.int64)
    linear, pieces, offset = penalty_terms(e.var[at], term_sizes, group_w[num_cells:], nv,
                                           coefs=e.coef[at], consts=consts)
    lo, hi = e.chain
    linear = linear + w_cell * np.bincount(hi, minlength=nv)
    chain = (lo, hi, np.full(len(lo), -w_cell))
    return linear, itertools.chain([chain] if len(lo) else [], pieces), offset


def _check_deadline(deadline: float | None, num_variables: int) -> None:
    """Raise :class:`TimeLimitError` once ``time.perf_counter()`` is past ``deadline``."""
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeLimitError(f"the QUBO of {num_variables} variables was not built "
                             "before the deadline", num_variables=num_variables)
