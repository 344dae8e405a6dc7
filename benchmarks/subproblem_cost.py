"""What one ``decompose`` subproblem costs to build on a blank 49x49 (117,649 variables,
10.6 M interactions): 64 free variables, 2,000 fixed variables set to 1.

    PYTHONPATH=. python benchmarks/subproblem_cost.py

The first call includes building the adjacency list the later ones read.
"""

import time

import numpy as np

from qsudoku import Config
from qsudoku.model.puzzle import Puzzle
from qsudoku.solving import build
from qsudoku.samplers.dwave.subproblems import SubModel

_, m, _ = build(Puzzle.standard([0] * 49 ** 2), Config())
sub = SubModel(m.bqm)
rng = np.random.default_rng(0)
x = np.zeros(sub.n)
x[rng.choice(sub.n, 2000, replace=False)] = 1
t = time.perf_counter()
sub.subproblem(np.arange(64), x)
first = time.perf_counter() - t
t = time.perf_counter()
for _ in range(20):
    sub.subproblem(np.sort(rng.choice(sub.n, 64, replace=False)), x)
print(f"first call {first:.2f} s, then {(time.perf_counter() - t) / 20 * 1e3:.1f} ms per "
      "64-variable subproblem")
