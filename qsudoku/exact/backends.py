"""The one table of exact backends.

Every place that picks an exact backend by name reads :data:`BACKENDS` (the samplers of
:mod:`qsudoku.samplers.exact`, counting through :data:`COUNT_METHODS`).  Its callables are
:class:`~qsudoku.exact.lazy.Lazy` ``"module:function"`` names imported on first call, so
importing the table imports no solver.

>>> sorted(BACKENDS)
['asp', 'cpsat', 'csp', 'ilp', 'sat']
>>> b = BACKENDS["sat"]
>>> b.module, b.extra, b.solve, b.exports
('pysat', None, Lazy('qsudoku.exact.cnf:solve_sat'), ('cnf',))
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from qsudoku.exact.lazy import Lazy

__all__ = ["Lazy", "ExactBackend", "BACKENDS", "COUNT_METHODS"]


@dataclass(frozen=True)
class ExactBackend:
    """One exact backend: how to solve, count and export with it.

    Attributes:
        name: Registry name of its sampler (``--sampler NAME``).
        summary: One line for ``qsudoku samplers``.
        module: The optional library it imports (``None``: no dependency).
        solve: ``solve(problem, **params) -> Outcome``.
        params: The parameters of ``solve`` with their defaults.
        count: ``count(problem, *, limit, time_limit=None, hall=False) -> SearchResult``,
            or ``None`` if it cannot count.
        exports: Formats of :data:`~qsudoku.exact.exports.EXPORTS` that write its formulation.
        extra: The pip extra that installs ``module`` (``None``: core).
    """

    name: str
    summary: str
    module: str | None
    solve: Callable
    params: Mapping[str, Any] = field(default_factory=dict)
    count: Callable | None = None
    exports: tuple[str, ...] = ()
    extra: str | None = None

    def available(self) -> bool:
        """True if its library is installed (checked without importing it).

        >>> BACKENDS["csp"].available()
        True
        """
        return self.module is None or importlib.util.find_spec(self.module) is not None


#: Sampler name -> :class:`ExactBackend`.
BACKENDS: dict[str, ExactBackend] = {b.name: b for b in (
    ExactBackend("sat", "exact: SAT over the candidates (python-sat, exactly-one clauses)",
                 "pysat", Lazy("qsudoku.exact.cnf:solve_sat"),
                 {"solver": "cadical195", "time_limit": None},
                 count=Lazy("qsudoku.exact.cnf:count_sat"), exports=("cnf",)),  # core dependency
    ExactBackend("cpsat", "exact: CP with AllDifferent per unit (OR-Tools CP-SAT); minimises any BQM "
                 "without one-hot structure",
                 "ortools", Lazy("qsudoku.exact.cp:solve_cpsat"),
                 {"time_limit": None, "num_workers": 1, "seed": 0}, extra="classical"),
    ExactBackend("ilp", "exact: 0-1 integer programme, one row per group (HiGHS); minimises "
                 "any BQM without one-hot structure",
                 "highspy", Lazy("qsudoku.exact.lp:solve_ilp"),
                 {"time_limit": None, "threads": 1}, exports=("lp", "mps"), extra="classical"),
    ExactBackend("asp", "exact: answer-set programme, one cardinality rule (clingo)",
                 "clingo", Lazy("qsudoku.exact.asp:solve_asp"),
                 {"time_limit": None, "seed": 0}, exports=("lp-asp",), extra="classical"),
    ExactBackend("csp", "exact: qsudoku's own exact-cover search (no dependencies)",
                 None, Lazy("qsudoku.exact.search:solve_csp"),
                 {"time_limit": None, "hall": False, "restarts": True},
                 count=Lazy("qsudoku.exact.search:count_cover")),
)}

#: ``count_solutions(method=...)`` -> the backend whose ``count`` it runs.
COUNT_METHODS: dict[str, str] = {"search": "csp", "sat": "sat"}
