"""ILP: one 0-1 column per candidate, one ``sum = 1`` row per group (HiGHS).

Columns are named ``x_R_C_D`` (1-based) and rows after their groups.  :func:`to_lp` and
:func:`to_mps` write CPLEX-LP and free-MPS text without any solver library;
:func:`solve_ilp` solves with highspy (in a child process on a library clash,
:mod:`qsudoku.exact.isolate`).

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = Problem.from_candidates(propagate(parse_puzzle("12.." "34.." "...." "...."), rules=()))
>>> col_name(p.labels[0]), row_names(p)[:2]
('x_1_3_3', ['cell_r1c3', 'cell_r1c4'])
>>> to_lp(p).splitlines()[7]
' cell_r1c3: x_1_3_3 + x_1_3_4 = 1'
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time

from qsudoku.errors import ConfigError
from qsudoku.exact.isolate import call_isolated, may_isolate, solve_isolated
from qsudoku.exact.problem import Outcome, Problem, need_count

__all__ = ["new_highs", "col_name", "row_names", "to_lp", "to_mps", "solve_ilp", "read_solution"]


def col_name(label) -> str:
    """Column name of a variable: ``x_R_C_D`` (1-based)."""
    r, c, d = label
    return f"x_{r + 1}_{c + 1}_{d}"


def row_names(problem: Problem) -> list[str]:
    """A unique, LP-safe name per group (``cell_r1c3``, ``row_2_needs_7``, ...)."""
    out, seen = [], {}
    for k, g in enumerate(problem.groups):
        base = re.sub(r"[^A-Za-z0-9]+", "_", g.name).strip("_") or f"{g.kind}_{k}"
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(base if n == 0 else f"{base}_{n}")
    return out


def _comment(problem: Problem) -> list[str]:
    return ["qsudoku: Sudoku as a 0-1 integer programme over the candidates left by "
            "propagation", "x_R_C_D = 1: cell (R, C) holds digit D (1-based)", *problem.about()]


def to_lp(problem: Problem) -> str:
    """CPLEX LP text: a zero objective, one equality per group, binary columns."""
    cols = [col_name(x) for x in problem.labels]
    out = [f"\\ {x}" for x in _comment(problem)]
    out += ["Minimize", f" obj: 0 {cols[0]}" if cols else " obj:", "Subject To"]
    for name, g in zip(row_names(problem), problem.groups):
        terms = " + ".join(cols[v] for v in g.members) if g.members else "0 " + cols[0]
        out.append(f" {name}: {terms} = 1")
    out.append("Binaries")
    out += [f" {c}" for c in cols]
    out.append("End")
    return "\n".join(out) + "\n"


def to_mps(problem: Problem) -> str:
    """Free-MPS text of the same model (binary columns between INTORG/INTEND markers)."""
    cols = [col_name(x) for x in problem.labels]
    rows = row_names(problem)
    out = [f"* {x}" for x in _comment(problem)]
    out += ["NAME qsudoku", "ROWS", " N obj"] + [f" E {r}" for r in rows]
    out += ["COLUMNS", " MARKER 'MARKER' 'INTORG'"]
    for c, ks in zip(cols, problem.groups_of()):
        out.append(f" {c} obj 0")
        out += [f" {c} {rows[k]} 1" for k in ks]
    out += [" MARKER 'MARKER' 'INTEND'", "RHS"]
    out += [f" RHS {r} 1" for r in rows]
    out += ["BOUNDS"] + [f" BV BND {c}" for c in cols] + ["ENDATA"]
    return "\n".join(out) + "\n"


@contextlib.contextmanager
def _stdout_silenced():
    """Send what C code writes to file descriptor 1 to /dev/null for a moment (HiGHS
    prints a banner on creation, before ``output_flag`` can be set)."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no file descriptor 1 (embedded interpreters): nothing to protect
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def new_highs(threads: int, time_limit: float | None):
    import highspy

    with _stdout_silenced():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    return h


def _load(h, problem: Problem) -> None:
    import highspy
    import numpy as np

    nv = problem.num_variables
    if nv:
        h.addVars(nv, np.zeros(nv), np.ones(nv))
        h.changeColsIntegrality(nv, np.arange(nv, dtype=np.int32),
                                np.array([highspy.HighsVarType.kInteger] * nv))
    if problem.groups:
        sizes, index = problem.flat()
        ones = np.ones(len(sizes))
        h.addRows(len(sizes), ones, ones, len(index), (np.cumsum(sizes) - sizes).astype(np.int32),
                  index.astype(np.int32), np.ones(len(index)))


def solve_ilp(problem: Problem, time_limit: float | None = None, threads: int = 1) -> Outcome:
    """Solve the 0-1 programme with HiGHS (branch and cut)."""
    need_count("threads", threads)
    t0 = time.perf_counter()  # importing highspy (first call) counts against the limit
    try:
        import highspy
    except ImportError as e:
        if may_isolate(e):
            return solve_isolated("qsudoku.exact.lp:solve_ilp", problem, {"time_limit": time_limit, "threads": threads})
        raise
    h = new_highs(threads, time_limit)
    _load(h, problem)
    t1 = time.perf_counter()
    if time_limit is not None:  # loading the rows counts against the limit
        h.setOptionValue("time_limit", max(1e-3, float(time_limit) - (t1 - t0)))
    h.run()
    t2 = time.perf_counter()
    status = h.getModelStatus()
    info = {"solver": "ilp:highs", "highs_status": h.modelStatusToString(status),
            "mip_nodes": int(h.getInfo().mip_node_count),
            "timing": {"model": t1 - t0, "solve": t2 - t1}}
    S = highspy.HighsModelStatus
    if status == S.kOptimal:
        values = h.getSolution().col_value
        return Outcome(tuple(i for i, x in enumerate(values) if x > 0.5), "solved", info)
    if status == S.kInfeasible:
        return Outcome(None, "infeasible", info)
    if status in (S.kTimeLimit, S.kInterrupt, S.kIterationLimit):
        return Outcome(None, "time_limit", info)
    raise ConfigError(f"HiGHS ended with status {info['highs_status']!r}")


def read_solution(path: str, time_limit: float | None = None) -> tuple[str, dict[str, float]]:
    """Read an LP/MPS file into HiGHS, solve it, return ``(status, {column: value})``."""
    try:
        import highspy  # noqa: F401
    except ImportError as e:
        if may_isolate(e):
            status, values = call_isolated(read_solution, path, time_limit, timeout=time_limit)
            return status, values
        raise
    h = new_highs(1, time_limit)
    h.readModel(path)
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    names = list(h.allVariableNames()) if h.getNumCol() else []
    values = list(h.getSolution().col_value)
    return status, dict(zip(names, values))

