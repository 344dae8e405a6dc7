"""SAT: the problem as CNF (exactly-one = one long clause + pairwise exclusions).

Variable ``i + 1`` of the CNF is variable ``i`` of the :class:`Problem`; the DIMACS
header lists what each stands for.  :func:`solve_sat` runs a python-sat solver and
:func:`count_sat` enumerates solutions with it.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = Problem.from_candidates(propagate(parse_puzzle("12.." "34.." "...." "...."), rules=()))
>>> cls = clauses(p)
>>> len(cls), max(abs(x) for c in cls for x in c) == p.num_variables
(144, True)
>>> to_dimacs(p).splitlines()[2]
'c qsudoku exactly-one groups: 48 (cell 12, row 12, column 12, box 12, region 0, extra 0)'
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager, nullcontext
from typing import Iterator

import numpy as np

from qsudoku.errors import ConfigError
from qsudoku.exact.backends import BACKENDS
from qsudoku.exact.isolate import solve_isolated
from qsudoku.exact.problem import Outcome, Problem
from qsudoku.exact.search import SearchResult

__all__ = ["clauses", "clause_chunks", "to_dimacs", "solve_sat", "count_sat", "DEFAULT_SOLVER",
           "FIRST_CONFLICTS", "BIG_FROM_PAIRS", "SOLVER_OPTIONS", "BIG_OPTIONS",
           "INTERRUPTIBLE_SOLVER", "interruptible", "num_pairs", "solver_options"]

#: The ``sat`` backend's solver (CaDiCaL 1.9.5, from :data:`~qsudoku.exact.backends.BACKENDS`).
DEFAULT_SOLVER = BACKENDS["sat"].params["solver"]

#: Conflicts a solver that answers no interrupt may take here before a time-limited solve
#: moves to a child process (the hardest shared 9x9 and 16x16 puzzles need fewer).
FIRST_CONFLICTS = 2000

#: Pairs of candidates (:func:`num_pairs`) from which a formula is *big*: a time-limited
#: solve starts in the child (loading it twice would cost seconds) and the solver takes
#: :data:`BIG_OPTIONS` too.
BIG_FROM_PAIRS = 2_000_000

#: Options a python-sat solver is configured with, by name: CaDiCaL stays in its stable
#: mode, as its own ``--sat`` configuration does (puzzles are meant to have a solution).
SOLVER_OPTIONS = {"cadical195": {"stabilizeonly": 1}}

#: Options added for a big formula: CaDiCaL without its clause arena frees dead clauses
#: one by one instead of copying the live ones (a third less peak memory); smaller formulas
#: keep the arena, which solves faster.
BIG_OPTIONS = {"cadical195": {"arena": 0}}

#: The solver of a time-limited count (Glucose 4 answers interrupts).
INTERRUPTIBLE_SOLVER = "glucose4"


def interruptible(solver: str) -> bool:
    """Whether a python-sat solver answers an interrupt (every one but CaDiCaL).

    >>> interruptible("glucose4"), interruptible("cadical195")
    (True, False)
    """
    return not solver.startswith("cadical")


def solver_options(solver: str, pairs: int) -> dict:
    """The options ``solver`` is configured with for a formula of ``pairs`` pairs.

    >>> solver_options("cadical195", 10), solver_options("cadical195", BIG_FROM_PAIRS)
    ({'stabilizeonly': 1}, {'stabilizeonly': 1, 'arena': 0})
    >>> solver_options("glucose4", BIG_FROM_PAIRS)
    {}
    """
    big = BIG_OPTIONS.get(solver, {}) if pairs >= BIG_FROM_PAIRS else {}
    return {**SOLVER_OPTIONS.get(solver, {}), **big}


def num_pairs(problem: Problem) -> int:
    """Pairs of variables over all groups (at least the CNF's pairwise exclusions).

    >>> from qsudoku.io import parse_puzzle
    >>> from qsudoku.model.propagate import propagate
    >>> num_pairs(Problem.from_candidates(propagate(parse_puzzle("." * 16), rules=())))
    384
    """
    return sum(len(g.members) * (len(g.members) - 1) // 2 for g in problem.groups)


def clauses(problem: Problem) -> list[list[int]]:
    """Exactly-one per group: an at-least-one clause and pairwise at-most-one clauses (a
    pair in several groups written once, in the first)."""
    return [c for chunk in clause_chunks(problem) for c in chunk]


def clause_chunks(problem: Problem) -> Iterator[list[list[int]]]:
    """The clauses of :func:`clauses`, one group's at a time (loaded under a time limit,
    never all held as lists); a pair is skipped when an earlier group holds both ends,
    looked up in a table of each variable's groups."""
    groups = problem.groups
    if not groups:
        return
    sizes, flat = problem.flat()
    gid = np.repeat(np.arange(len(groups)), sizes)
    order = np.lexsort((gid, flat))  # by variable, then group
    per_var = np.bincount(flat, minlength=problem.num_variables)
    start = np.concatenate([[0], np.cumsum(per_var)[:-1]])
    table = np.full((problem.num_variables, max(1, int(per_var.max(initial=0)))), len(groups))
    table[flat[order], np.arange(len(order)) - np.repeat(start, per_var)] = gid[order]
    pairs: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for g, group in enumerate(groups):
        m = np.sort(np.asarray(group.members, np.int64))
        if len(m) not in pairs:
            pairs[len(m)] = np.triu_indices(len(m), 1)  # (i, j), i < j, row by row
        i, j = pairs[len(m)]
        a, b = table[m[i]], table[m[j]]  # each end's groups, ascending
        shared = ((a[:, :, None] == b[:, None, :]) & (a[:, :, None] < g)).any(axis=(1, 2))
        keep = ~shared
        chunk = [[v + 1 for v in group.members]]
        chunk.extend(np.stack([-(m[i][keep] + 1), -(m[j][keep] + 1)], axis=1).tolist())
        yield chunk


@contextmanager
def _interrupt_at(solver, deadline: float):
    """Interrupt ``solver`` at ``deadline`` (a :func:`time.perf_counter` value)."""
    timer = threading.Timer(max(0.0, deadline - time.perf_counter()), solver.interrupt)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _load(solver, problem: Problem, deadline: float | None) -> int | None:
    """Add the problem's clauses to ``solver``; their number, or ``None`` past ``deadline``."""
    n = 0
    for chunk in clause_chunks(problem):
        solver.append_formula(chunk)
        n += len(chunk)
        if deadline is not None and time.perf_counter() > deadline:
            return None
    return n


def _header(problem: Problem) -> list[str]:
    kinds = {k: 0 for k in ("cell", "row", "column", "box", "region", "extra")}
    for g in problem.groups:
        kinds[g.kind] = kinds.get(g.kind, 0) + 1
    lines = ["qsudoku: Sudoku as SAT over the candidates left by propagation",
             f"qsudoku variables: {problem.num_variables}",
             f"qsudoku exactly-one groups: {len(problem.groups)} ("
             + ", ".join(f"{k} {v}" for k, v in kinds.items()) + ")"]
    lines += [f"qsudoku {x}" for x in problem.about()]
    lines.append("qsudoku variable i = rRcC#D: cell (R, C) holds digit D (1-based)")
    for i, (r, c, d) in enumerate(problem.labels, start=1):
        lines.append(f"var {i} = r{r + 1}c{c + 1}#{d}")
    return lines


def to_dimacs(problem: Problem) -> str:
    """DIMACS CNF text with comment lines naming every variable."""
    cls = clauses(problem)
    lines = [f"c {x}" for x in _header(problem)]
    lines.append(f"p cnf {problem.num_variables} {len(cls)}")
    lines.extend(" ".join(map(str, c)) + " 0" for c in cls)
    return "\n".join(lines) + "\n"


def solve_sat(problem: Problem, solver: str = DEFAULT_SOLVER,
              time_limit: float | None = None) -> Outcome:
    """Solve with a python-sat solver (``solver`` is a pysat name, e.g. ``minisat22``).

    A solver that answers no interrupt (CaDiCaL) takes a time-limited problem
    :data:`FIRST_CONFLICTS` conflicts here, then goes on in a child process stopped at the
    limit; a big formula (:data:`BIG_FROM_PAIRS`) starts there.

    Raises:
        ConfigError: Unknown solver name.
    """
    from pysat.solvers import Solver, SolverNames

    known = sorted(k for k in vars(SolverNames) if not k.startswith("_"))
    if solver not in known:
        raise ConfigError(f"unknown SAT solver {solver!r}; python-sat knows {', '.join(known)}")
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    pairs = num_pairs(problem)
    if deadline is not None and not interruptible(solver) and pairs >= BIG_FROM_PAIRS:
        return _in_child(problem, solver, deadline, t0)
    ok, model, stats = None, None, {}
    options = solver_options(solver, pairs)
    with Solver(name=solver) as s:
        if options:
            s.configure(options)
        num_clauses = _load(s, problem, deadline)  # loading counts against the time limit
        t1 = time.perf_counter()
        if num_clauses is not None and deadline is None:
            ok = s.solve()
        elif num_clauses is not None and deadline > t1 and not interruptible(solver):
            s.conf_budget(FIRST_CONFLICTS)
            ok = s.solve_limited()
        elif num_clauses is not None and deadline > t1:
            with _interrupt_at(s, deadline):
                ok = s.solve_limited(expect_interrupt=True)
        model = s.get_model() if ok else None
        stats = dict(s.accum_stats() or {})
    t2 = time.perf_counter()
    if ok is None and num_clauses is not None and not interruptible(solver) and deadline > t2:
        return _in_child(problem, solver, deadline, t0)
    info = {"solver": f"sat:{solver}", "num_clauses": num_clauses, "stats": stats,
            "timing": {"model": t1 - t0, "solve": t2 - t1}}
    if ok is None:
        return Outcome(None, "time_limit", info)
    if not ok:
        return Outcome(None, "infeasible", info)
    chosen = tuple(x - 1 for x in model if x > 0)
    return Outcome(chosen, "solved", info)


def _in_child(problem: Problem, solver: str, deadline: float, t0: float) -> Outcome:
    """The rest of a time-limited solve in a child process, stopped at ``deadline``."""
    t = time.perf_counter()
    out = solve_isolated("qsudoku.exact.cnf:solve_sat", problem, {"solver": solver},
                         stop_after=deadline - t)
    timing = {**out.info.get("timing", {}), "here": t - t0}
    return Outcome(out.chosen, out.status, {"solver": f"sat:{solver}", **out.info,
                                            "timing": timing})


def count_sat(problem: Problem, *, limit: int, time_limit: float | None = None,
              hall: bool = False) -> SearchResult:
    """Up to ``limit`` solutions: solve, block the solution found, repeat.

    Args:
        problem: The exactly-one groups.
        limit: Stop at this many solutions.
        time_limit: Seconds before giving up (status ``"time_limit"``).
        hall: Accepted for the signature every backend's ``count`` shares; unused.

    Returns:
        A :class:`~qsudoku.exact.search.SearchResult` (``"limit"``, or
        ``"solved"``/``"infeasible"`` when there are no more).
    """
    from pysat.solvers import Solver

    t0 = time.perf_counter()
    name = "cadical153" if time_limit is None else INTERRUPTIBLE_SOLVER
    found: list[tuple[int, ...]] = []
    deadline = None if time_limit is None else t0 + time_limit
    with Solver(name=name) as s:
        complete = _load(s, problem, deadline) is not None
        with _interrupt_at(s, deadline) if complete and deadline is not None else nullcontext():
            while complete and len(found) < limit:
                ok = s.solve() if deadline is None else s.solve_limited(expect_interrupt=True)
                if ok is None:
                    complete = False
                    break
                if not ok:
                    break
                chosen = tuple(x - 1 for x in s.get_model() if x > 0)
                found.append(chosen)
                if not chosen:
                    break  # nothing to choose: the only solution
                s.add_clause([-(v + 1) for v in chosen])
    status = ("time_limit" if not complete else "limit" if len(found) >= limit
              else "solved" if found else "infeasible")
    stats = {"solver": f"sat:{name}", "seconds": time.perf_counter() - t0}
    return SearchResult(found, status, stats)
