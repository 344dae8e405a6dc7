"""A compact, dependency-free exact solver: exact cover with propagation.

Every group of a :class:`~qsudoku.exact.problem.Problem` gets exactly one variable.  The
search keeps each open group's live variables and after every decision propagates to a
fixpoint: a group with none fails, a group with one takes it (naked and hidden singles);
if group A's live variables all lie in group B, B's others go (*subsumption*); with
``hall=True``, Regin's filtering per AllDifferent unit (:mod:`~qsudoku.exact.alldiff`).

Branching takes the open group with the fewest live variables per failure weight
(dom/wdeg) and restarts with a growing node budget when one solution is wanted.  Changes
go on a trail undone on backtracking; the loop is iterative (no recursion limit).

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.exact.problem import Problem
>>> p = Problem.from_candidates(propagate(parse_puzzle("1..." "...." "...." "...."), rules=()))
>>> found = solve_cover(p, limit=3)
>>> len(found.solutions), found.status, p.check(found.solutions[0])
(3, 'limit', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from qsudoku.exact.alldiff import prune_alldiff, unit_graph
from qsudoku.exact.problem import Outcome, Problem

__all__ = ["SearchResult", "solve_cover", "solve_csp", "count_cover", "CoverSearch",
           "complete_grid"]


class _Fail(Exception):
    """A contradiction below the current decision."""


class _Restart(Exception):
    """The node budget of this restart is spent."""


class _TimeUp(Exception):
    """The time limit (or the node limit) is reached."""


@dataclass
class SearchResult:
    """Solutions found and how the search ended.

    Attributes:
        solutions: Each a sorted tuple of chosen variable indices.
        status: ``"solved"`` (search exhausted, at least one solution),
            ``"infeasible"`` (exhausted, none), ``"limit"`` (stopped at ``limit``
            solutions) or ``"time_limit"``.
        stats: ``nodes``, ``failures``, ``restarts``, ``seconds``.
    """

    solutions: list[tuple[int, ...]]
    status: str
    stats: dict = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True if the search space was exhausted (the solution count is exact)."""
        return self.status in ("solved", "infeasible")


class CoverSearch:
    """The exact-cover search state (see the module docstring)."""

    def __init__(self, problem: Problem, *, hall: bool = False, subsume: int = 6):
        self.problem = problem
        groups = [g.members for g in problem.groups]
        self.G = groups
        self.Y = [tuple(y) for y in problem.groups_of()]
        self.cell = problem.cell_of() if hall else None
        self.units = problem.units if self.cell is not None else ()
        self.unit_of = [-1] * len(groups)
        for k, unit in enumerate(self.units):
            for g in unit:
                self.unit_of[g] = k
        self.subsume = subsume
        self.weight = [1.0] * len(groups)
        self.nodes = self.failures = self.restarts = 0
        self.reset()

    # -- state ---------------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the root: every group open, every variable live."""
        self.X = {g: set(m) for g, m in enumerate(self.G)}
        self.trail: list = []
        self.dirty = set(self.X)
        self.dunits = set(range(len(self.units)))

    def _delete(self, v: int) -> None:
        X, unit_of, dirty = self.X, self.unit_of, self.dirty
        for g in self.Y[v]:
            s = X.get(g)
            if s is not None:
                s.discard(v)
                dirty.add(g)
                if unit_of[g] >= 0:
                    self.dunits.add(unit_of[g])
        self.trail.append(v)

    def _select(self, r: int) -> None:
        X = self.X
        for g in self.Y[r]:
            s = X.get(g)
            if s is None or r not in s:
                self.weight[g] += 1
                raise _Fail
        for g in self.Y[r]:
            for v in [v for v in X[g] if v != r]:
                self._delete(v)
        for g in self.Y[r]:
            self.trail.append((g, X.pop(g)))

    def _undo(self, mark: int) -> None:
        X, Y, trail = self.X, self.Y, self.trail
        while len(trail) > mark:
            t = trail.pop()
            if type(t) is int:
                for g in Y[t]:
                    s = X.get(g)
                    if s is not None:
                        s.add(t)
            else:
                X[t[0]] = t[1]

    def chosen(self) -> tuple[int, ...]:
        """Variables selected on the current path."""
        return tuple(sorted({next(iter(t[1])) for t in self.trail if type(t) is not int}))

    # -- propagation ---------------------------------------------------------------------
    def _propagate(self) -> None:
        X, Y, weight, dirty, subsume = self.X, self.Y, self.weight, self.dirty, self.subsume
        while True:
            while dirty:
                g = dirty.pop()
                s = X.get(g)
                if s is None:
                    continue
                size = len(s)
                if size == 0:
                    weight[g] += 1
                    raise _Fail
                if size == 1:
                    self._select(next(iter(s)))
                    continue
                if size <= subsume:
                    it = iter(s)
                    common = set(Y[next(it)])
                    for v in it:
                        common.intersection_update(Y[v])
                    common.discard(g)
                    for b in common:
                        sb = X.get(b)
                        if sb is not None and len(sb) > size:
                            for v in sb - s:
                                self._delete(v)
            if not self.dunits:
                return
            self._hall(self.dunits.pop())

    def _hall(self, k: int) -> None:
        """Regin's filtering of unit ``k`` (see :mod:`~qsudoku.exact.alldiff`)."""
        adj, open_groups = unit_graph(self.units[k], self.X, self.cell)
        if not open_groups:
            return
        drop = prune_alldiff(adj, len(open_groups))
        if drop is None:
            for g in open_groups:
                self.weight[g] += 1
            raise _Fail
        for v in drop:
            self._delete(v)

    # -- search --------------------------------------------------------------------------
    def run(self, limit: int = 1, time_limit: float | None = None, restarts: bool = True,
            node_limit: int | None = None) -> SearchResult:
        """Find up to ``limit`` solutions (restarts only when ``limit == 1``) within
        ``time_limit`` seconds and ``node_limit`` nodes (checked every 64 nodes)."""
        t0 = time.perf_counter()
        self.deadline = None if time_limit is None else t0 + time_limit
        self.node_limit = node_limit
        found: list[tuple[int, ...]] = []
        budget = 1000 if restarts and limit == 1 else None
        status = "time_limit"
        try:
            while True:
                try:
                    status = self._dfs(found, limit, budget)
                    break
                except _Restart:
                    self.restarts += 1
                    budget = int(budget * 1.5)
                    self.reset()
        except _TimeUp:
            over = self.node_limit is not None and self.nodes >= self.node_limit
            status = "node_limit" if over else "time_limit"
        stats = {"nodes": self.nodes, "failures": self.failures, "restarts": self.restarts,
                 "seconds": time.perf_counter() - t0}
        return SearchResult(found, status, stats)

    def _dfs(self, found, limit, budget) -> str:
        X, weight = self.X, self.weight
        start = self.nodes
        try:
            self._propagate()
        except _Fail:
            return "solved" if found else "infeasible"
        frames: list[list] = []
        while True:
            if X:
                c = min(X, key=lambda g: len(X[g]) / weight[g])
                frames.append([sorted(X[c]), 0, len(self.trail)])
            else:
                found.append(self.chosen())
                if len(found) >= limit:
                    return "limit"
            while frames:  # advance to the next viable child
                frame = frames[-1]
                options, i, mark = frame
                self._undo(mark)
                if i == len(options):
                    frames.pop()
                    continue
                frame[1] = i + 1
                self.nodes += 1
                if not self.nodes & 63:
                    if self.deadline is not None and time.perf_counter() > self.deadline:
                        raise _TimeUp
                    if self.node_limit is not None and self.nodes >= self.node_limit:
                        raise _TimeUp
                    if budget is not None and self.nodes - start > budget:
                        raise _Restart
                self.dirty = set()
                self.dunits = set()
                try:
                    self._select(options[i])
                    self._propagate()
                    break
                except _Fail:
                    self.failures += 1
            else:
                return "solved" if found else "infeasible"


def solve_cover(problem: Problem, *, limit: int = 1, time_limit: float | None = None,
                hall: bool = False, restarts: bool = True,
                node_limit: int | None = None) -> SearchResult:
    """Find up to ``limit`` solutions of ``problem`` (each a tuple of chosen variables).

    Args:
        problem: The exactly-one groups.
        limit: Stop after this many solutions.
        time_limit: Seconds before giving up (status ``"time_limit"``); ``None`` = no limit.
        hall: Hall-set (AllDifferent) filtering on the problem's units (fewer nodes, each
            slower).
        restarts: Restart with a growing node budget (only when ``limit == 1``).
        node_limit: Nodes before giving up (status ``"node_limit"``, the same on every
            machine); ``None`` = no limit.
    """
    t0 = time.perf_counter()
    search = CoverSearch(problem, hall=hall)
    if time_limit is not None:  # setting up counts against the limit
        time_limit = max(0.0, time_limit - (time.perf_counter() - t0))
    return search.run(limit, time_limit, restarts, node_limit)


def solve_csp(problem: Problem, time_limit: float | None = None, hall: bool = False,
              restarts: bool = True) -> Outcome:
    """One solution as an :class:`~qsudoku.exact.problem.Outcome`: the ``csp`` backend."""
    res = solve_cover(problem, limit=1, time_limit=time_limit, hall=hall, restarts=restarts)
    status = "solved" if res.status == "limit" else res.status
    stats = {k: v for k, v in res.stats.items() if k != "seconds"}  # (a time: in timing)
    info = {"solver": "csp:exact-cover", "stats": stats,
            "timing": {"solve": res.stats["seconds"]}}
    return Outcome(res.solutions[0] if res.solutions else None, status, info)


def count_cover(problem: Problem, *, limit: int, time_limit: float | None = None,
                hall: bool = False) -> SearchResult:
    """Up to ``limit`` solutions, without restarts: how ``csp`` counts."""
    return solve_cover(problem, limit=limit, time_limit=time_limit, hall=hall, restarts=False)


def complete_grid(cands, time_limit: float | None = None, hall: bool = False,
                  node_limit: int | None = None) -> list[int] | None:
    """A solution of a propagated puzzle by the search: the exact fallback of a solve.

    Args:
        cands: A :class:`~qsudoku.model.propagate.Candidates`.
        time_limit: Seconds before giving up.
        hall: Hall-set filtering (see :func:`solve_cover`).
        node_limit: Nodes before giving up (see :func:`solve_cover`).

    Returns:
        The full row-major grid, or ``None`` if ``time_limit`` or ``node_limit`` ran out
        first.

    Raises:
        ContradictionError: If the puzzle has no solution.
    """
    from qsudoku.errors import ContradictionError

    problem = Problem.from_candidates(cands)
    res = solve_cover(problem, time_limit=time_limit, hall=hall, node_limit=node_limit)
    if res.status == "infeasible":
        raise ContradictionError("no solution: csp (qsudoku's exact search) proved the reduced "
                                 "model infeasible", source=cands.puzzle.name or None)
    return problem.grid(res.solutions[0]) if res.solutions else None
