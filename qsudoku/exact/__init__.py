"""Exact reference solvers and exports of the classical formulations.

Every backend reads one :class:`~qsudoku.exact.problem.Problem` (exactly-one groups over
the propagated candidates): the search (:mod:`~qsudoku.exact.search`), SAT
(:mod:`~qsudoku.exact.cnf`), CP-SAT (:mod:`~qsudoku.exact.cp`), ILP (:mod:`~qsudoku.exact.lp`),
ASP (:mod:`~qsudoku.exact.asp`); MiniZinc and TPTP writers; counting in
:mod:`~qsudoku.exact.count`.  :data:`~qsudoku.exact.backends.BACKENDS` and
:data:`~qsudoku.exact.exports.EXPORTS` say which function solves, counts and exports;
solver libraries are imported only inside the functions that use them.
"""

from qsudoku.exact.count import SolutionCount, count_solutions
from qsudoku.exact.problem import Group, Outcome, Problem
from qsudoku.exact.search import SearchResult, solve_cover

__all__ = ["Problem", "Group", "Outcome", "solve_cover", "SearchResult", "count_solutions",
           "SolutionCount"]
