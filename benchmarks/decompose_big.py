"""``decompose`` on 36x36 and 49x49 grids, offline: the mock QPU inside the solve path.

Each puzzle goes through :func:`qsudoku.solve` with ``sampler = "decompose"``, its QPU
sampler the ``mock-qpu`` emulator (Pegasus P16, simulated-annealing physics, clique
embeddings cached), the default subproblem size, a wall-time budget and no exact fallback
(``--strategy`` picks decompose's way of choosing cells; default ``construct``).  Per
puzzle: the variables left after propagation, solved or not, the QPU calls, the estimated
QPU access time (D-Wave's timing model: what a real QPU run of those calls would be
charged), the wall time and the peak memory of the process so far.

    python benchmarks/decompose_big.py --budget 120 \\
        /work/shared/lewis/sudoku36/lewis_p45.txt:1 /work/shared/lewis/sudoku49/lewis_p00.txt:1

Each argument is ``FILE[:LINE]`` (1-based line of a tuple-list or grid file; default 1).
Wall times depend on the machine's load: the script prints the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from qsudoku import Config, solve
from qsudoku.io import load_puzzles


def run(spec: str, budget: float, seed: int, strategy: str) -> str:
    path, _, line = spec.partition(":")
    puzzle = load_puzzles(path)[int(line or 1) - 1]
    given = 1 - puzzle.num_blanks / len(puzzle.givens)
    config = Config().with_overrides(sampler="decompose", seed=seed, params={"strategy": strategy},
                                     options={"qpu_sampler": "mock-qpu"},
                                     route={"exact_fallback": ""})
    t = time.perf_counter()
    r = solve(puzzle, config, budget=budget)
    wall = time.perf_counter() - t
    info = r.info or {}
    qpu_s = float(info.get("estimated_qpu_access_time", 0.0) or 0.0) / 1e6
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (f"{puzzle.size}x{puzzle.size} | {os.path.basename(path)}:{line or 1} | {given:.0%} | "
            f"{r.num_variables or 0} | {'yes' if r.valid else 'no'} | {info.get('qpu_calls', 0)} | "
            f"{qpu_s:.1f} | {r.timings.get('build', 0):.1f} | {wall:.1f} | {peak:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("puzzles", nargs="+", help="FILE[:LINE]")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds of sampling per puzzle")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--strategy", default="construct", help="decompose's strategy")
    args = ap.parse_args()
    print(f"decompose ({args.strategy}), mock QPU (Pegasus P16), budget {args.budget:g} s, "
          f"seed {args.seed}, no exact fallback; load average {os.getloadavg()[0]:.2f}")
    print("grid | puzzle | given | variables | solved | QPU calls | est. QPU access s | "
          "build s | wall s | peak RSS MB")
    for spec in args.puzzles:
        print(run(spec, args.budget, args.seed, args.strategy), flush=True)


if __name__ == "__main__":
    main()
