"""Exact minimisation of any BQM (no one-hot structure needed) with CP-SAT or HiGHS.

Each variable is a 0-1 column, each coupler ``b x_u x_v`` a product column ``y``
(``y <= x_u``, ``y <= x_v``, ``y >= x_u + x_v - 1``), the objective the BQM's energy.
CP-SAT scales the biases by the smallest power of ten (up to ``10**9``) making them
integers (``info["scale"]``).

>>> import dimod
>>> bqm = dimod.BQM({"a": 1.0, "b": -1.0}, {"ab": -1.5}, 0.5, "SPIN")
>>> sample, status, info = minimize_cpsat(bqm)
>>> status, sample, float(bqm.energy(sample)) == float(dimod.ExactSolver().sample(bqm).first.energy)
('solved', {'a': -1, 'b': -1}, True)
"""

from __future__ import annotations

import math
import time

from qsudoku.errors import ConfigError

__all__ = ["minimize_cpsat", "minimize_ilp", "integer_scale"]


def integer_scale(values) -> int:
    """The smallest power of ten (at most ``10**9``) making every value an integer.

    >>> integer_scale([1.0, 0.25, 2])
    100
    """
    for k in range(10):
        s = 10 ** k
        if all(abs(v * s - round(v * s)) <= 1e-9 * max(1.0, abs(v * s)) for v in values):
            return s
    return 10 ** 9


def _binary(bqm):
    import dimod

    return bqm if bqm.vartype is dimod.BINARY else bqm.change_vartype(dimod.BINARY, inplace=False)


def _answer(bqm, chosen: dict):
    import dimod

    if bqm.vartype is dimod.SPIN:
        return {v: 2 * x - 1 for v, x in chosen.items()}
    return chosen


def minimize_cpsat(bqm, time_limit: float | None = None, num_workers: int = 1,
                   seed: int = 0):
    """A minimum-energy sample of ``bqm`` by CP-SAT: ``(sample, status, info)``;
    ``status`` is ``"solved"`` (proved optimal), ``"feasible"`` (the time limit came
    first: the best found) or ``"time_limit"`` (no sample: ``None``)."""
    from ortools.sat.python import cp_model

    from qsudoku.exact.cp import run_cpsat

    t0 = time.perf_counter()
    b = _binary(bqm)
    labels = list(b.variables)
    lin = [b.get_linear(v) for v in labels]
    quad = list(b.quadratic.items())
    if not all(math.isfinite(x) for x in lin + [q for _, q in quad] + [b.offset]):
        raise ConfigError("cpsat: the BQM has a bias that is not a finite number")
    scale = integer_scale(lin + [q for _, q in quad])
    model = cp_model.CpModel()
    x = {v: model.NewBoolVar(f"x{i}") for i, v in enumerate(labels)}
    terms = [(round(c * scale), x[v]) for c, v in zip(lin, labels) if c]
    for k, ((u, v), c) in enumerate(quad):
        if not c:
            continue
        y = model.NewBoolVar(f"y{k}")
        model.AddMultiplicationEquality(y, [x[u], x[v]])
        terms.append((round(c * scale), y))
    model.Minimize(sum(c * t for c, t in terms) if terms else 0)
    solver, status, timing = run_cpsat(model, t0, time_limit, num_workers, seed)
    if solver is None:
        return None, "time_limit", {"solver": "cpsat", "timing": timing}
    info = {"solver": "cpsat", "cp_status": status, "scale": scale, "structure": "none",
            "timing": timing}
    if status not in ("OPTIMAL", "FEASIBLE"):
        return None, "time_limit", info
    chosen = {v: int(solver.Value(x[v])) for v in labels}
    return _answer(bqm, chosen), "solved" if status == "OPTIMAL" else "feasible", info


def minimize_ilp(bqm, time_limit: float | None = None, threads: int = 1):
    """A minimum-energy sample of ``bqm`` by HiGHS (0-1 programme with product columns):
    ``(sample, status, info)`` as :func:`minimize_cpsat`."""
    import highspy
    import numpy as np

    t0 = time.perf_counter()
    b = _binary(bqm)
    labels = list(b.variables)
    pos = {v: i for i, v in enumerate(labels)}
    quad = [(pos[u], pos[v], c) for (u, v), c in b.quadratic.items() if c]
    n = len(labels)
    cost = [b.get_linear(v) for v in labels] + [c for _, _, c in quad]
    if not all(math.isfinite(c) for c in cost):
        raise ConfigError("ilp: the BQM has a bias that is not a finite number")
    from qsudoku.exact.lp import new_highs

    h = new_highs(threads, None)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.0)
    ncol = n + len(quad)
    h.addVars(ncol, np.zeros(ncol), np.ones(ncol))
    h.changeColsCost(ncol, np.arange(ncol, dtype=np.int32), np.asarray(cost, float))
    h.changeColsIntegrality(ncol, np.arange(ncol, dtype=np.int32),
                            np.full(ncol, highspy.HighsVarType.kInteger))
    inf = highspy.kHighsInf
    for k, (i, j, _) in enumerate(quad):
        y = n + k
        h.addRow(-inf, 0.0, 2, np.array([y, i], np.int32), np.array([1.0, -1.0]))
        h.addRow(-inf, 0.0, 2, np.array([y, j], np.int32), np.array([1.0, -1.0]))
        h.addRow(-1.0, inf, 3, np.array([y, i, j], np.int32), np.array([1.0, -1.0, -1.0]))
    t1 = time.perf_counter()
    if time_limit is not None:
        left = float(time_limit) - (t1 - t0)
        if left <= 0:
            return None, "time_limit", {"solver": "ilp", "timing": {"model": t1 - t0}}
        h.setOptionValue("time_limit", left)
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    info = {"solver": "ilp", "highs_status": status, "structure": "none",
            "timing": {"model": t1 - t0, "solve": time.perf_counter() - t1}}
    values = h.getSolution().col_value
    if h.getModelStatus() == highspy.HighsModelStatus.kOptimal:
        state = "solved"
    elif len(values) == ncol and h.getInfo().primal_solution_status == 2:
        state = "feasible"
    else:
        return None, "time_limit", info
    chosen = {v: int(round(values[pos[v]])) for v in labels}
    return _answer(bqm, chosen), state, info
