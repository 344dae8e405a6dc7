"""The numba kernels of the structured samplers (``aco``'s colony, ``swap``'s replica
exchange, ``swap-tabu``'s walks) and dwave-samplers' SA beside them, on the reduced QUBOs
of three hardest 9x9 puzzles that propagation leaves open.

Each call is a fixed amount of work (a fixed number of reads, seeded), so that a time is
comparable between commits; the compiled kernels are loaded in ``setup`` (their compile
time is :mod:`benchmarks.startup`'s).  ``track_valid_reads`` counts the valid grids among
those reads: a kernel that got faster by doing less shows there.
"""

from __future__ import annotations

from benchmarks.common import open_models

#: Registry name -> the reads of one timed call per puzzle (the rest: registered defaults).
READS = {"aco": 20, "swap": 2, "swap-tabu": 20, "sa": 20}


class Kernels:
    params = [list(READS)]
    param_names = ["sampler"]
    timeout = 300

    def setup(self, name):
        from qsudoku.samplers import get_sampler, get_spec

        self.models = open_models("sudoku9/forum_hardest_1106.txt", 3)
        self.sampler = get_sampler(name)
        self.params = {k: v for k, v in get_spec(name).defaults.items() if k != "num_reads"}
        if hasattr(self.sampler, "warm_up"):
            self.sampler.warm_up()

    def _sample(self, name):
        extra = {} if name == "sa" else {"groups": None}
        out = []
        for i, m in enumerate(self.models):
            if "groups" in extra:
                extra["groups"] = m.groups()
            out.append((m, self.sampler.sample(m.bqm, num_reads=READS[name], seed=i,
                                               **self.params, **extra)))
        return out

    def time_sample(self, name):
        self._sample(name)

    def track_valid_reads(self, name):
        from qsudoku.model.decode import decode

        return sum(d.valid for m, ss in self._sample(name) for d in decode(m, ss))

    track_valid_reads.unit = "valid reads"
