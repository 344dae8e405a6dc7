"""The one table of exact backends and of the classical formulations they export.

Every place that picks an exact backend by name reads :data:`BACKENDS`: the
samplers ``sat``, ``cpsat``, ``ilp``, ``asp`` and ``csp``
(:mod:`qsudoku.samplers.exact`), solution counting
(:func:`~qsudoku.exact.count.count_solutions`, through :data:`COUNT_METHODS`),
the child process of :mod:`~qsudoku.exact.isolate` and ``qsudoku export``
(through :data:`EXPORTS`).  The callables in the table are :class:`Lazy`: a
``"module:function"`` name imported on first call, so importing this table
imports no solver module and no solver library, and no module it names needs to
import it back.

>>> sorted(BACKENDS)
['asp', 'cpsat', 'csp', 'ilp', 'sat']
>>> b = BACKENDS["sat"]
>>> b.module, b.extra, b.solve, b.exports
('pysat', None, Lazy('qsudoku.exact.cnf:solve_sat'), ('cnf',))
>>> [name for name, e in EXPORTS.items() if e.backend is None]
['mzn', 'tptp']
>>> all(EXPORTS[f].backend == b.name for b in BACKENDS.values() for f in b.exports)
True
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

__all__ = ["Lazy", "ExactBackend", "ExactExport", "BACKENDS", "EXPORTS", "COUNT_METHODS"]


@dataclass(frozen=True)
class Lazy:
    """A function named ``"module:function"``, imported when first called.

    >>> Lazy("math:hypot")(3.0, 4.0)
    5.0
    """

    target: str

    def resolve(self) -> Callable:
        """Import the module and return the function."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Lazy({self.target!r})"


@dataclass(frozen=True)
class ExactBackend:
    """One exact backend: how to solve, count and export with it.

    Attributes:
        name: Registry name of its sampler (``--sampler NAME``).
        summary: One line for ``qsudoku samplers``.
        module: The optional library it imports (``None``: no dependency).
        solve: ``solve(problem, **params) -> Outcome``.
        params: The parameters of ``solve`` with their defaults.
        count: ``count(problem, *, limit, time_limit=None, hall=False) -> SearchResult``
            (all solutions up to ``limit``), or ``None`` if it cannot count.
        exports: Formats of :data:`EXPORTS` that write its formulation.
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


@dataclass(frozen=True)
class ExactExport:
    """One classical formulation written as text (``qsudoku export --to NAME``).

    Attributes:
        name: The format (``--to NAME``).
        summary: What the file is, for the ``export`` help.
        extensions: File extensions that select it.
        write: ``write(problem) -> (text, what it holds)`` for a problem built from a
            propagated puzzle (:meth:`~qsudoku.exact.problem.Problem.from_candidates`).
        backend: The backend of :data:`BACKENDS` that solves this formulation in
            process (``None``: only an outside solver reads it).
    """

    name: str
    summary: str
    extensions: tuple[str, ...]
    write: Callable
    backend: str | None = None


def _size(problem) -> str:
    return f"{problem.num_variables} variables, {len(problem.groups)} groups"


def _write_cnf(problem) -> tuple[str, str]:
    from qsudoku.exact.cnf import to_dimacs

    text = to_dimacs(problem)
    header = next(line for line in text.splitlines() if line.startswith("p cnf "))
    return text, f"{_size(problem)}, {header.split()[3]} clauses"


def _write_lp(problem) -> tuple[str, str]:
    from qsudoku.exact.lp import to_lp

    return to_lp(problem), _size(problem)


def _write_mps(problem) -> tuple[str, str]:
    from qsudoku.exact.lp import to_mps

    return to_mps(problem), _size(problem)


def _write_asp(problem) -> tuple[str, str]:
    from qsudoku.exact.asp import program

    cands = problem.candidates
    puzzle = cands.puzzle
    comment = (f"qsudoku: {puzzle.kind}\npuzzle: {puzzle.format()}\n"
               f"propagated: {cands.format()}\nsolve with: clingo FILE")
    return program(problem, comment), _size(problem)


def _write_mzn(problem) -> tuple[str, str]:
    from qsudoku.exact.mzn import to_minizinc

    cands = problem.candidates
    return to_minizinc(cands), f"{len(cands.puzzle.units)} AllDifferent units"


def _write_tptp(problem) -> tuple[str, str]:
    from qsudoku.exact.tptp import to_tptp

    text = to_tptp(problem.candidates.puzzle)
    return text, f"{text.count('fof(')} formulas"


#: Format -> :class:`ExactExport`, in the order ``qsudoku export --help`` lists them.
EXPORTS: dict[str, ExactExport] = {e.name: e for e in (
    ExactExport("cnf", "DIMACS CNF for SAT solvers (exactly-one clauses over the candidates)",
                (".cnf", ".dimacs"), _write_cnf, "sat"),
    ExactExport("lp", "CPLEX LP: 0-1 integer programme, one equality row per group",
                (".lp",), _write_lp, "ilp"),
    ExactExport("mps", "free MPS of the same 0-1 programme", (".mps",), _write_mps, "ilp"),
    ExactExport("mzn", "MiniZinc model (AllDifferent per unit) with the puzzle's data",
                (".mzn",), _write_mzn),
    ExactExport("lp-asp", "clingo facts and rules (answer-set programme)",
                (".asp", ".clingo"), _write_asp, "asp"),
    ExactExport("tptp", "TPTP first-order problem for a finite model finder (Paradox)",
                (".p", ".tptp"), _write_tptp),
)}

#: Sampler name -> :class:`ExactBackend`.
BACKENDS: dict[str, ExactBackend] = {b.name: b for b in (
    ExactBackend("sat", "exact: SAT over the candidates (python-sat, exactly-one clauses)",
                 "pysat", Lazy("qsudoku.exact.cnf:solve_sat"),
                 {"solver": "glucose4", "time_limit": None},
                 count=Lazy("qsudoku.exact.cnf:count_sat"), exports=("cnf",)),  # core dependency
    ExactBackend("cpsat", "exact: CP with AllDifferent per unit (OR-Tools CP-SAT)",
                 "ortools", Lazy("qsudoku.exact.cp:solve_cpsat"),
                 {"time_limit": None, "num_workers": 1, "seed": 0}, extra="classical"),
    ExactBackend("ilp", "exact: 0-1 integer programme, one row per group (HiGHS)",
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
