"""The exactly-one structure every exact backend reads.

A :class:`Problem` is the reduced Sudoku as *exactly-one groups* over candidate
variables ``(row, col, digit)``: one per open cell and one per unit and missing digit,
the structure the QUBO penalises (SAT reads it as clauses, ILP as rows, clingo as
cardinality rules, the search as exact cover).  Built from a propagated puzzle
(:meth:`Problem.from_candidates`, the groups of :meth:`qsudoku.model.qubo.QuboModel.groups`
in the same order) or from a sampler's ``groups=`` (:meth:`Problem.from_groups`).

*Units* (for AllDifferent) are tuples of unit-digit groups.  From bare groups they are
recovered per kind as the groups linked by shared cells, kept only when their digits are
distinct, so AllDifferent over the cells follows from the groups (two diagonals crossing
at an open cell fail the test and keep only their groups).

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = Problem.from_candidates(propagate(parse_puzzle("12.." "34.." "...." "...."), rules=()))
>>> len(p.labels), len(p.groups), len(p.units)
(32, 48, 11)
>>> q = Problem.from_groups([(g.kind, [p.labels[i] for i in g.members]) for g in p.groups])
>>> q.labels == p.labels, len(q.units)
(True, 13)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import chain
from typing import Iterable, Sequence

import numpy as np

from qsudoku.errors import ConfigError, TimeLimitError
from qsudoku.model.propagate import Candidates

__all__ = ["Group", "Problem", "Outcome", "need_count"]

Label = tuple[int, int, int]

#: Group members :meth:`Problem.from_groups` reads between two deadline checks.
CHECK_EVERY = 50_000


@dataclass(frozen=True)
class Group:
    """One exactly-one constraint.

    Attributes:
        kind: ``"cell"`` or a unit kind (``row``, ``column``, ``box``, ``region``, ``extra``).
        members: Indices into :attr:`Problem.labels`.
        name: Readable name (``"cell r1c3"``, ``"row 2 needs 7"``) for exports.
    """

    kind: str
    members: tuple[int, ...]
    name: str = ""


@dataclass(frozen=True)
class Outcome:
    """What an exact backend found.

    Attributes:
        chosen: Indices of the variables set to 1, or ``None`` if no solution was found.
        status: ``"solved"``, ``"infeasible"`` or ``"time_limit"``.
        info: Backend details (solver name, statistics, seconds).
    """

    chosen: tuple[int, ...] | None
    status: str
    info: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    """Exactly-one groups over candidate variables.

    Attributes:
        labels: ``(row, col, digit)`` of each variable (0-based row/col, digits ``1..n``).
        groups: The exactly-one groups; cell groups first.
        units: AllDifferent units as tuples of group indices (one group per digit).
        candidates: The propagation result it came from, if any (puzzle, fixed cells).
    """

    labels: tuple[Label, ...]
    groups: tuple[Group, ...]
    units: tuple[tuple[int, ...], ...] = ()
    candidates: Candidates | None = field(default=None, compare=False, repr=False)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_candidates(cls, cands: Candidates) -> "Problem":
        """The reduced problem of a propagated puzzle (the QUBO's groups, same order).

        Variables by cell, then digit; each unit's groups by digit, their members in the
        unit's cell order (all at once with numpy).
        """
        puzzle = cands.puzzle
        n = puzzle.size
        grid = np.asarray(cands.grid, dtype=np.int64)
        bits = cands.open_bits()
        var_cell, d0 = np.nonzero(bits)  # by cell, then digit
        nv = len(var_cell)
        labels = tuple(zip((var_cell // n).tolist(), (var_cell % n).tolist(),
                           (d0 + 1).tolist()))
        index = np.full((n * n, n), -1, dtype=np.int64)
        index[var_cell, d0] = np.arange(nv)
        bounds = np.searchsorted(var_cell, np.arange(n * n + 1)).tolist()
        groups = [Group("cell", tuple(range(bounds[c], bounds[c + 1])),
                        f"cell r{c // n + 1}c{c % n + 1}")
                  for c in np.flatnonzero(grid == 0).tolist()]
        units = []
        for unit in puzzle.units:
            sub = index[np.asarray(unit.cells, dtype=np.int64)].T  # (digit, cell)
            sizes = (sub >= 0).sum(axis=1)
            flat = sub[sub >= 0].tolist()
            ids, start, label = [], 0, unit.label
            for d0_, size in enumerate(sizes.tolist()):
                if size:
                    ids.append(len(groups))
                    groups.append(Group(unit.kind, tuple(flat[start:start + size]),
                                        f"{label} needs {puzzle.alphabet[d0_]}"))
                    start += size
            if ids:
                units.append(tuple(ids))
        return cls(labels, tuple(groups), tuple(units), cands)

    @classmethod
    def from_groups(cls, groups: Iterable[tuple[str, Sequence]], labels: Sequence | None = None,
                    *, deadline: float | None = None) -> "Problem":
        """The problem behind a sampler's ``groups=[(kind, [labels...]), ...]``.

        Args:
            groups: ``(kind, labels)`` pairs, as :meth:`qsudoku.model.qubo.QuboModel.groups` gives.
            labels: Variable order to use (e.g. ``bqm.variables``); default: order of
                first appearance in ``groups``.
            deadline: A :func:`time.perf_counter` value, checked every
                :data:`CHECK_EVERY` group members (``None`` = none).

        Raises:
            ConfigError: If ``groups`` is empty or names a variable outside ``labels``.
            TimeLimitError: If the deadline passed before the problem was complete.
        """
        groups = [(str(kind), list(members)) for kind, members in (groups or [])]
        if not groups:
            raise ConfigError("exact backends need the model's one-hot groups: "
                              "sample(bqm, groups=[(kind, [labels...]), ...]) "
                              "(the pipeline passes them)")
        if labels is None:
            seen: dict = {}
            for _, members in groups:
                for v in members:
                    seen.setdefault(_as_label(v), None)
            labels = list(seen)
        labels = _int_labels(labels)
        index = dict(zip(labels, range(len(labels))))
        out, done = [], 0
        for kind, members in groups:
            done += len(members)
            if done > CHECK_EVERY:
                _check_deadline(deadline)
                done = 0
            try:  # labels equal to int tuples (the common case) need no conversion
                out.append(Group(kind, tuple(map(index.__getitem__, members))))
            except (KeyError, TypeError):
                try:
                    out.append(Group(kind, tuple(index[_as_label(v)] for v in members)))
                except KeyError as e:
                    raise ConfigError(f"group of kind {kind!r} names variable {e.args[0]!r}, "
                                      "which is not a variable of the model") from None
        out.sort(key=lambda g: g.kind != "cell")  # stable: cell groups first
        _check_deadline(deadline)
        units = _recover_units(labels, out)
        _check_deadline(deadline)
        return cls(tuple(labels), tuple(out), units)

    # -- derived ------------------------------------------------------------------------
    @property
    def num_variables(self) -> int:
        return len(self.labels)

    @property
    def size(self) -> int:
        """Grid size ``n`` (from the puzzle, else the largest row, column or digit seen)."""
        if self.candidates is not None:
            return self.candidates.puzzle.size
        return max((max(r + 1, c + 1, d) for r, c, d in self.labels), default=0)

    def about(self) -> list[str]:
        """The ``puzzle:`` and ``propagated:`` lines of an export's header (none without a
        puzzle)."""
        c = self.candidates
        return [] if c is None else [f"puzzle: {c.puzzle.format()}", f"propagated: {c.format()}"]

    def groups_of(self) -> list[list[int]]:
        """The groups holding each variable, ascending."""
        out: list[list[int]] = [[] for _ in self.labels]
        for g, group in enumerate(self.groups):
            for v in group.members:
                out[v].append(g)
        return out

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """Each group's size and every group's members, one group after another."""
        return _flat(self.groups)

    def cell_of(self) -> list[int] | None:
        """Index of each variable's cell group, or ``None`` unless each has exactly one."""
        out = [-1] * len(self.labels)
        for g, group in enumerate(self.groups):
            if group.kind == "cell":
                for v in group.members:
                    if out[v] != -1:
                        return None
                    out[v] = g
        return None if -1 in out else out

    def grid(self, chosen: Iterable[int]) -> list[int]:
        """Row-major grid: the propagated cells plus the ``chosen`` variables."""
        n = self.size
        grid = list(self.candidates.grid) if self.candidates is not None else [0] * (n * n)
        for v in chosen:
            r, c, d = self.labels[v]
            grid[r * n + c] = d
        return grid

    def check(self, chosen: Iterable[int]) -> bool:
        """True iff ``chosen`` puts exactly one variable in every group."""
        on = set(chosen)
        return all(sum(1 for v in g.members if v in on) == 1 for g in self.groups)


def need_count(name: str, value, low: int = 1) -> int:
    """``value`` if it is an ``int`` (not a ``bool``) ``>= low``, else a :class:`ConfigError`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name} = {value!r} must be an integer >= {low}")
    return value


def _as_label(v) -> Label:
    try:
        r, c, d = v
        return (int(r), int(c), int(d))
    except (TypeError, ValueError):
        raise ConfigError(f"exact backends need (row, col, digit) variable labels, got {v!r}"
                          ) from None


def _check_deadline(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeLimitError("reading the one-hot groups stopped at the deadline")


def _int_labels(labels: Sequence) -> list[Label]:
    """``labels`` as ``(int, int, int)`` tuples (through numpy when they are integers).

    Raises:
        ConfigError: A label that is not three integers.
    """
    try:
        arr = np.array(labels, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        arr = None
    if arr is None or arr.shape != (len(labels), 3):
        return [v if type(v) is tuple and len(v) == 3 and all(type(x) is int for x in v)
                else _as_label(v) for v in labels]
    return list(zip(*arr.T.tolist())) if len(labels) else []


def _flat(groups: Sequence[Group]) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.fromiter((len(g.members) for g in groups), np.int64, len(groups))
    members = np.fromiter(chain.from_iterable(g.members for g in groups), np.int64,
                          int(sizes.sum()))
    return sizes, members


def _components(num: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smallest node of each node's connected component (edges ``a[i] -- b[i]``).

    Hooks each root to the smallest root it is linked to, then jumps pointers, until every
    edge joins one component.

    >>> _components(5, np.array([3, 1]), np.array([4, 3])).tolist()
    [0, 1, 2, 1, 1]
    """
    parent = np.arange(num)
    while True:
        pa, pb = parent[a], parent[b]
        if (pa == pb).all():
            return parent
        low = np.minimum(pa, pb)
        np.minimum.at(parent, pa, low)
        np.minimum.at(parent, pb, low)
        while True:
            up = parent[parent]
            if (up == parent).all():
                break
            parent = up


def _recover_units(labels: Sequence[Label], groups: Sequence[Group]
                   ) -> tuple[tuple[int, ...], ...]:
    """AllDifferent units from bare groups: per kind, groups linked by shared cells.

    A component is kept only if its digits are distinct (see the module docstring); kinds
    and components in order of their first group, each component's groups ascending.
    """
    ids = [g for g, group in enumerate(groups) if group.kind != "cell" and group.members]
    if not labels or not ids:
        return ()
    lab = np.array(labels, dtype=np.int64).reshape(-1, 3)
    sizes, members = _flat([groups[g] for g in ids])
    kinds = [groups[g].kind for g in ids]
    kind_of = {k: i for i, k in enumerate(dict.fromkeys(kinds))}
    gkind = np.array([kind_of[k] for k in kinds], np.int64)
    owner_g = np.repeat(np.arange(len(ids)), sizes)  # position in ids of each member's group
    starts = np.cumsum(sizes) - sizes
    digits = lab[members, 2]
    d_low, d_high = np.minimum.reduceat(digits, starts), np.maximum.reduceat(digits, starts)
    # a cell's first group of each kind: every other group of that kind holding it links to it
    rc = lab[:, :2] - lab[:, :2].min(axis=0)
    width = int(rc.max()) + 1
    key = (gkind[owner_g] * width + rc[members, 0]) * width + rc[members, 1]
    order = np.lexsort((owner_g, key))
    first = np.ones(len(order), bool)
    first[1:] = key[order][1:] != key[order][:-1]
    head = owner_g[order][np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))]
    root = _components(len(ids), owner_g[order], head)  # each component's least group
    by_root = np.argsort(root, kind="stable")  # components in order of their least group
    cuts = np.flatnonzero(np.diff(root[by_root])) + 1
    single = d_low == d_high
    out = []
    for comp in np.split(by_root, cuts):
        if single[comp].all() and len(np.unique(d_low[comp])) == len(comp):
            out.append((int(gkind[comp[0]]), int(comp[0]), tuple(ids[i] for i in comp.tolist())))
    return tuple(u for _, _, u in sorted(out))
