"""Exact reference solvers and exports of the classical formulations.

One structure, :class:`~qsudoku.exact.problem.Problem` (exactly-one groups over the
propagated candidates), read by every backend: our own search
(:mod:`~qsudoku.exact.search`, its AllDifferent filtering in
:mod:`~qsudoku.exact.alldiff`), SAT (:mod:`~qsudoku.exact.cnf`), CP-SAT
(:mod:`~qsudoku.exact.cp`), ILP (:mod:`~qsudoku.exact.lp`) and ASP
(:mod:`~qsudoku.exact.asp`); writers for MiniZinc (:mod:`~qsudoku.exact.mzn`) and TPTP
(:mod:`~qsudoku.exact.tptp`); solution counting in :mod:`~qsudoku.exact.count`.
One table, :data:`~qsudoku.exact.backends.BACKENDS` (with
:data:`~qsudoku.exact.backends.EXPORTS`), says which function solves, counts and
exports for each backend; everything that picks a backend by name reads it.
Solver libraries are imported only inside the functions that use them.
"""

from qsudoku.exact.count import SolutionCount, count_solutions
from qsudoku.exact.problem import Group, Outcome, Problem
from qsudoku.exact.search import SearchResult, solve_cover

__all__ = ["Problem", "Group", "Outcome", "solve_cover", "SearchResult", "count_solutions",
           "SolutionCount"]
