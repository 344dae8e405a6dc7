"""Model building: propagation and the reduced QUBO, on shipped sets and big seeded grids.

Replaces ``build_model.py``, ``propagation.py`` and ``big_models.py`` (at d8fa8bf):
``asv continuous main HEAD`` compares two commits, as ``build_model.py --against`` did.
"""

from __future__ import annotations

from benchmarks.common import SINGLES, seeded_puzzle, shipped

#: Cumulative propagation rule sets (what ``propagation.py`` tabulated).
RULE_SETS = {
    "givens": (),
    "singles": SINGLES,
    "locked": SINGLES + ("locked_candidates",),
    "pairs": SINGLES + ("locked_candidates", "naked_pair", "hidden_pair"),
    "triples": SINGLES + ("locked_candidates", "naked_pair", "hidden_pair", "naked_triple",
                          "hidden_triple"),
}
SETS = ["sudoku9/forum_hardest_1106.txt", "sudoku16/gecode.txt", "sudoku25/gecode.txt"]


class BuildModel:
    """``build_model`` on the first 10 puzzles of each shipped set, both encodings."""

    params = (SETS, ["one-hot", "domain-wall"])
    param_names = ["set", "encoding"]

    def setup(self, name, encoding):
        from qsudoku.model.propagate import propagate

        self.cands = [propagate(p, SINGLES) for p in shipped(name, 10)]

    def time_build_model(self, name, encoding):
        from qsudoku.model.qubo import build_model

        for c in self.cands:
            build_model(c, encoding=encoding)


class Propagation:
    """Propagation of the first 100 hardest 9x9 puzzles per rule set, and how far it
    shrinks the model (median variables left, share solved by propagation alone)."""

    params = [list(RULE_SETS)]
    param_names = ["rules"]

    def setup(self, rules):
        self.puzzles = shipped("sudoku9/forum_hardest_1106.txt", 100)

    def time_propagate(self, rules):
        from qsudoku.model.propagate import propagate

        for p in self.puzzles:
            propagate(p, RULE_SETS[rules])

    def track_median_variables(self, rules):
        import statistics

        from qsudoku.model.propagate import propagate

        return statistics.median(propagate(p, RULE_SETS[rules]).num_variables
                                 for p in self.puzzles)

    track_median_variables.unit = "variables"

    def track_solved_by_propagation(self, rules):
        from qsudoku.model.propagate import propagate

        return sum(propagate(p, RULE_SETS[rules]).solved for p in self.puzzles)

    track_solved_by_propagation.unit = "puzzles of 100"


class BigModel:
    """Propagation and the QUBO of a seeded n x n grid with 45% of its cells given: time
    and peak memory grow with the candidate variables and couplers, not with n^6."""

    params = ([36, 49], ["one-hot", "domain-wall"])
    param_names = ["size", "encoding"]
    timeout = 300

    def setup(self, n, encoding):
        from qsudoku.model.propagate import propagate

        self.puzzle = seeded_puzzle(n, 0.45)
        self.cands = propagate(self.puzzle, SINGLES)

    def time_propagate(self, n, encoding):
        from qsudoku.model.propagate import propagate

        propagate(self.puzzle, SINGLES)

    def time_build_model(self, n, encoding):
        from qsudoku.model.qubo import build_model

        build_model(self.cands, encoding=encoding)

    def peakmem_build_model(self, n, encoding):
        from qsudoku.model.qubo import build_model

        build_model(self.cands, encoding=encoding)

    def track_interactions(self, n, encoding):
        from qsudoku.model.qubo import build_model

        return build_model(self.cands, encoding=encoding).num_interactions

    track_interactions.unit = "couplers"
