"""Counting solutions: none, exactly one, or at least ``limit``.

>>> from qsudoku.io import parse_puzzle
>>> count_solutions(parse_puzzle("1..." "..2." ".3.." "...4"))
SolutionCount(count=1, at_least=False, complete=True)
>>> c = count_solutions(parse_puzzle("12.." "34.." "...." "...."))
>>> c.count, c.at_least, c.describe()
(2, True, 'at least 2 solutions')
>>> c.solutions[0] != c.solutions[1]
True
>>> len(count_solutions(parse_puzzle("1..." "..2." "...." "...."), 100, keep=100).solutions)
12
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from qsudoku.checks import need_real, need_type
from qsudoku.errors import ConfigError, ContradictionError
from qsudoku.model.propagate import DEFAULT_RULES, propagate
from qsudoku.model.puzzle import Puzzle
from qsudoku.exact.backends import BACKENDS, COUNT_METHODS
from qsudoku.exact.problem import Problem, need_count

__all__ = ["SolutionCount", "count_solutions"]


@dataclass
class SolutionCount:
    """How many solutions a puzzle has, as far as the count went.

    Attributes:
        count: Solutions found (at most ``limit``).
        at_least: True if the search stopped before proving there are no more
            (``count`` reached ``limit``, or the time limit ran out).
        complete: False only if the time limit stopped the count.
        solutions: The first ``keep`` solutions found (two by default), as row-major grids.
        stats: Search statistics (nodes, failures, seconds).
    """

    count: int
    at_least: bool
    complete: bool = True
    solutions: list[list[int]] = field(default_factory=list, repr=False)
    stats: dict = field(default_factory=dict, repr=False)

    @property
    def decided(self) -> bool:
        """False if the time limit stopped the count before it could tell one from several."""
        return self.complete or self.count >= 2

    @property
    def unique(self) -> bool:
        """True iff the puzzle has exactly one solution."""
        return self.count == 1 and not self.at_least

    def describe(self) -> str:
        """``"no solution"``, ``"unique"``, ``"2 solutions"`` or ``"at least 2 solutions"``."""
        if self.count == 0 and not self.at_least:
            return "no solution"
        if self.unique:
            return "unique"
        more = "at least " if self.at_least else ""
        return f"{more}{self.count} solution{'s' if self.count != 1 else ''}"


def count_solutions(puzzle: Puzzle, limit: int = 2, *, rules: Sequence[str] = DEFAULT_RULES,
                    time_limit: float | None = None, hall: bool = False,
                    method: str = "search", keep: int = 2) -> SolutionCount:
    """Count the solutions of ``puzzle`` up to ``limit``.

    Propagation never removes a solution, and both methods are complete: fewer than
    ``limit`` solutions within ``time_limit`` is the count.

    Args:
        puzzle: The puzzle.
        limit: Stop at this many solutions.
        rules: Propagation rules applied first.
        time_limit: Seconds before giving up (the count is then a lower bound).
        hall: Hall-set filtering in the search (``method="search"``).
        method: ``"search"`` (qsudoku's own), ``"sat"`` (python-sat, blocking clauses)
            or ``"auto"`` (``"sat"`` above 16x16 when python-sat is installed).
        keep: How many of the solutions found to keep in ``solutions``.

    Raises:
        ConfigError: If ``limit`` is not a positive integer.
        ContradictionError: If two givens clash (exit 2; other contradictions are 0).
    """
    need_type("puzzle", puzzle, Puzzle)
    need_count("limit", limit)
    need_real("time_limit", time_limit, low=0, allow_none=True)
    need_type("hall", hall, bool)
    need_type("method", method, str)
    need_count("keep", keep, 0)
    if method not in (*COUNT_METHODS, "auto"):
        raise ConfigError(f"method = {method!r}: use "
                          + ", ".join(repr(m) for m in COUNT_METHODS) + " or 'auto'")
    if method == "auto":
        big = puzzle.size > 16 and BACKENDS["sat"].available()
        method = "sat" if big else "search"
    puzzle.check_givens()
    try:
        cands = propagate(puzzle, rules)
    except ContradictionError as e:
        if e.exit_code == 2:
            raise
        return SolutionCount(0, False, True, [], {"reason": str(e)})
    problem = Problem.from_candidates(cands)
    count = BACKENDS[COUNT_METHODS[method]].count
    result = count(problem, limit=limit, time_limit=time_limit, hall=hall)
    grids = [problem.grid(s) for s in result.solutions[:keep]]
    return SolutionCount(len(result.solutions), not result.complete,
                         result.status != "time_limit", grids, result.stats)
