"""The one table of the classical formulations ``qsudoku export`` writes.

>>> [name for name, e in EXPORTS.items() if e.backend is None]
['mzn', 'tptp']
>>> EXPORTS["cnf"].backend, EXPORTS["cnf"].extensions
('sat', ('.cnf', '.dimacs'))
"""

from __future__ import annotations

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


def _size(problem) -> str:
    return f"{problem.num_variables} variables, {len(problem.groups)} groups"


def _write_cnf(problem) -> tuple[str, str]:
    from qsudoku.exact.cnf import to_dimacs

    text = to_dimacs(problem)
    header = next(line for line in text.splitlines() if line.startswith("p cnf "))
    return text, f"{_size(problem)}, {header.split()[3]} clauses"


def _with_size(target: str) -> Callable:
    """A writer of ``target(problem)`` (``"module:function"``) and the problem's size."""
    return lambda problem: (Lazy(target)(problem), _size(problem))


def _write_asp(problem) -> tuple[str, str]:
    from qsudoku.exact.asp import program

    comment = [f"qsudoku: {problem.candidates.puzzle.kind}", *problem.about(),
               "solve with: clingo FILE"]
    return program(problem, "\n".join(comment)), _size(problem)


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
                (".lp",), _with_size("qsudoku.exact.lp:to_lp"), "ilp"),
    ExactExport("mps", "free MPS of the same 0-1 programme", (".mps",),
                _with_size("qsudoku.exact.lp:to_mps"), "ilp"),
    ExactExport("mzn", "MiniZinc model (AllDifferent per unit) with the puzzle's data",
                (".mzn",), _write_mzn),
    ExactExport("lp-asp", "clingo facts and rules (answer-set programme)",
                (".asp", ".clingo"), _write_asp, "asp"),
    ExactExport("tptp", "TPTP first-order problem for a finite model finder (Paradox)",
                (".p", ".tptp"), _write_tptp),
)}
