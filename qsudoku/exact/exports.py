"""The one table of the classical formulations ``qsudoku export`` writes.

>>> [name for name, e in EXPORTS.items() if e.backend is None]
['mzn', 'tptp']
>>> EXPORTS["cnf"].backend, EXPORTS["cnf"].extensions
('sat', ('.cnf', '.dimacs'))
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from qsudoku.exact.lazy import Lazy

__all__ = ["ExactExport", "EXPORTS"]


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


def _size(problem, text: str = "") -> str:
    return f"{problem.num_variables} variables, {len(problem.groups)} groups"


def _clauses(problem, text: str) -> str:
    clauses = re.findall(r"^p cnf \d+ (\d+)$", text, re.MULTILINE)[0]
    return f"{_size(problem)}, {clauses} clauses"


def _writer(target: str, held: Callable = _size, arg: Callable = lambda problem: problem
            ) -> Callable:
    """``write(problem)``: the text of ``target(arg(problem))`` (a ``"module:function"``)
    and ``held(problem, text)``."""
    def write(problem) -> tuple[str, str]:
        text = Lazy(target)(arg(problem))
        return text, held(problem, text)
    return write


#: Format -> :class:`ExactExport`, in the order ``qsudoku export --help`` lists them.
EXPORTS: dict[str, ExactExport] = {e.name: e for e in (
    ExactExport("cnf", "DIMACS CNF for SAT solvers (exactly-one clauses over the candidates)",
                (".cnf", ".dimacs"), _writer("qsudoku.exact.cnf:to_dimacs", _clauses), "sat"),
    ExactExport("lp", "CPLEX LP: 0-1 integer programme, one equality row per group",
                (".lp",), _writer("qsudoku.exact.lp:to_lp"), "ilp"),
    ExactExport("mps", "free MPS of the same 0-1 programme", (".mps",),
                _writer("qsudoku.exact.lp:to_mps"), "ilp"),
    ExactExport("mzn", "MiniZinc model (AllDifferent per unit) with the puzzle's data",
                (".mzn",), _writer("qsudoku.exact.mzn:to_minizinc", lambda p, _: (
                    f"{len(p.candidates.puzzle.units)} AllDifferent units"), lambda p: p.candidates)),
    ExactExport("lp-asp", "clingo facts and rules (answer-set programme)",
                (".asp", ".clingo"), _writer("qsudoku.exact.asp:to_asp"), "asp"),
    ExactExport("tptp", "TPTP first-order problem for a finite model finder (Paradox)",
                (".p", ".tptp"), _writer("qsudoku.exact.tptp:to_tptp",
                                         lambda p, text: f"{text.count('fof(')} formulas",
                                         lambda p: p.candidates.puzzle)),
)}
