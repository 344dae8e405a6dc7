"""CP: an integer variable per open cell and AllDifferent per unit (OR-Tools CP-SAT).

Each open cell gets an integer variable over its candidates.  A unit that is exactly a
permutation constraint (as many cells as missing digits, each digit group holding all of
that digit's candidates in those cells) becomes one ``AddAllDifferent``; any other group
is ``AddExactlyOne`` over the literals ``cell == digit``, so the model is always exact.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = Problem.from_candidates(propagate(parse_puzzle("12.." "34.." "...." "...."), rules=()))
>>> plan = plan_constraints(p)
>>> len(plan.alldifferent), len(plan.exactly_one)
(11, 0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from qsudoku.errors import ConfigError
from qsudoku.exact.isolate import may_isolate, solve_isolated
from qsudoku.exact.problem import Outcome, Problem, need_count

__all__ = ["CpPlan", "plan_constraints", "run_cpsat", "solve_cpsat"]


@dataclass
class CpPlan:
    """How the groups map onto CP constraints.

    Attributes:
        cells: Cell-group index of each integer variable (``None`` for a pure 0-1 model).
        alldifferent: Each a list of cell-group indices.
        exactly_one: Group indices posted as ExactlyOne over literals.
    """

    cells: list[int] | None
    alldifferent: list[list[int]]
    exactly_one: list[int]


def plan_constraints(problem: Problem) -> CpPlan:
    """Decide which groups become AllDifferent and which stay ExactlyOne."""
    cell_of = problem.cell_of()
    non_cell = [g for g, grp in enumerate(problem.groups) if grp.kind != "cell"]
    if cell_of is None:
        return CpPlan(None, [], [g for g, grp in enumerate(problem.groups)])
    labels, groups = problem.labels, problem.groups
    covered: set[int] = set()
    alldiff = []
    for unit in problem.units:
        cells = sorted({cell_of[v] for g in unit for v in groups[g].members})
        if len(cells) != len(unit):
            continue
        by_digit = {labels[groups[g].members[0]][2]: set(groups[g].members) for g in unit}
        expected: dict[int, set[int]] = {d: set() for d in by_digit}
        ok = True
        for c in cells:
            for v in groups[c].members:
                d = labels[v][2]
                if d not in expected:
                    ok = False
                    break
                expected[d].add(v)
        if ok and expected == by_digit:
            alldiff.append(cells)
            covered.update(unit)
    cells = [g for g, grp in enumerate(groups) if grp.kind == "cell"]
    return CpPlan(cells, alldiff, [g for g in non_cell if g not in covered])


#: Seconds per variable CP-SAT spends loading a model before its time limit applies.
LOAD_SECONDS_PER_VARIABLE = 4e-6


def run_cpsat(model, t0: float, time_limit: float | None, num_workers: int, seed: int,
              load: float = 0.0):
    """Solve a CP-SAT ``model`` built since ``t0`` (a :func:`time.perf_counter` value; the
    build and ``load`` seconds count against ``time_limit``): ``(solver, status name,
    timing)``, or ``(None, None, timing)`` if no time is left."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = int(num_workers)
    solver.parameters.random_seed = int(seed)
    t1 = time.perf_counter()
    timing = {"model": t1 - t0}
    if time_limit is not None:
        left = float(time_limit) - (t1 - t0) - load
        if left <= 0:
            return None, None, timing
        solver.parameters.max_time_in_seconds = left
    name = solver.StatusName(solver.Solve(model))
    timing["solve"] = time.perf_counter() - t1
    return solver, name, timing


def solve_cpsat(problem: Problem, time_limit: float | None = None, num_workers: int = 1,
                seed: int = 0) -> Outcome:
    """Solve with OR-Tools CP-SAT; ``num_workers`` search threads, seeded (in a child
    process on a library clash, :mod:`qsudoku.exact.isolate`)."""
    need_count("num_workers", num_workers)
    t0 = time.perf_counter()  # importing ortools (first call) counts against the limit
    try:
        from ortools.sat.python import cp_model
    except ImportError as e:
        if may_isolate(e):
            return solve_isolated("qsudoku.exact.cp:solve_cpsat", problem, {"time_limit": time_limit,
                                                     "num_workers": num_workers, "seed": seed})
        raise
    plan = plan_constraints(problem)
    labels, groups = problem.labels, problem.groups
    model = cp_model.CpModel()
    lit: dict[int, object] = {}
    xs: dict[int, object] = {}
    if plan.cells is None:
        for v in range(problem.num_variables):
            lit[v] = model.NewBoolVar(f"q{v}")
    else:
        for g in plan.cells:
            digits = sorted(labels[v][2] for v in groups[g].members)
            if not digits:
                return Outcome(None, "infeasible", {"solver": "cpsat", "reason": "empty cell"})
            r, c, _ = labels[groups[g].members[0]]
            xs[g] = model.NewIntVarFromDomain(cp_model.Domain.FromValues(digits), f"r{r + 1}c{c + 1}")
        cell_of = problem.cell_of()
        for g in plan.exactly_one:
            for v in groups[g].members:
                if v not in lit:
                    x, d = xs[cell_of[v]], labels[v][2]
                    b = model.NewBoolVar(f"q{v}")
                    model.Add(x == d).OnlyEnforceIf(b)
                    model.Add(x != d).OnlyEnforceIf(b.Not())
                    lit[v] = b
        for cells in plan.alldifferent:
            model.AddAllDifferent([xs[g] for g in cells])
    for g in plan.exactly_one:
        model.AddExactlyOne([lit[v] for v in groups[g].members])
    # CP-SAT loads and presolves the model before it watches the clock
    solver, name, timing = run_cpsat(model, t0, time_limit, num_workers, seed,
                                     LOAD_SECONDS_PER_VARIABLE * problem.num_variables)
    if solver is None:
        return Outcome(None, "time_limit", {"solver": "cpsat", "timing": timing})
    info = {"solver": "cpsat", "cp_status": name, "num_alldifferent": len(plan.alldifferent),
            "num_exactly_one": len(plan.exactly_one), "branches": solver.NumBranches(),
            "conflicts": solver.NumConflicts(), "timing": timing}
    if name in ("OPTIMAL", "FEASIBLE"):
        if plan.cells is None:
            chosen = tuple(v for v in range(problem.num_variables) if solver.Value(lit[v]))
        else:
            chosen = tuple(v for g in plan.cells for v in groups[g].members
                           if labels[v][2] == solver.Value(xs[g]))
        return Outcome(chosen, "solved", info)
    if name == "INFEASIBLE":
        return Outcome(None, "infeasible", info)
    if name == "UNKNOWN":
        return Outcome(None, "time_limit", info)
    raise ConfigError(f"CP-SAT rejected the model: {name}")
