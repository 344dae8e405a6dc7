"""Fair sampling of Sudoku solutions: ``sa``, ``sqa``, ``pt``, ``mock-qpu`` and the default
solve on puzzles with 2 to about 20 solutions (the table in ``docs/fairness.md``).

Puzzles: from each seed puzzle named (``data/seeds/seeds.tsv``), a start grid (``--start``:
its solution, the default, which keeps the reduced QUBOs small enough for the annealers
to find valid grids; its grid after naked and hidden singles; or its own givens) loses
givens one at a time, counting the solutions after each
removal (exact search): each step removes the given that brings the count closest to the
next target without passing it, leaving the smallest reduced QUBO (further ties broken by
a seeded shuffle), and for every target
the first puzzle with at least that many solutions is kept (removing givens never removes
a solution, so counts only grow).

Each backend then takes one fixed sample of ``--reads`` reads per puzzle
(:func:`qsudoku.experiments.fairness.fairness`: no rounds, no fallback; ``solve`` is
``--reads`` default solves), and the table gives valid reads, how many solutions were hit,
the largest share of one solution (uniform would be 1/k), and the chi-square p-value
against uniform.  The load average at the start and the end is printed with the table.

    python benchmarks/fairness.py [--seeds data/seeds/seeds.tsv] [--reads 100]
        [--names seed004_quantum_annealing,seed001_paradox_fol] [--targets 2,5,10,20]
        [--backends sa,sqa,pt,mock-qpu,solve] [--seed 1] [--start solution|singles|givens]
        [--out benchmarks/results/fairness.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from qsudoku import Config
from qsudoku.exact.count import count_solutions
from qsudoku.experiments.fairness import fairness
from qsudoku.io import load_puzzles
from qsudoku.model.propagate import DEFAULT_RULES, propagate
from qsudoku.model.puzzle import Puzzle

ROOT = Path(__file__).resolve().parents[1]


def default_seeds() -> Path:
    """``data/seeds/seeds.tsv`` of the repository, else the developers' shared copy."""
    shipped = ROOT / "data" / "seeds" / "seeds.tsv"
    return shipped if shipped.exists() else ROOT.parent / "shared" / "data" / "seeds" / "seeds.tsv"


def start_grid(puzzle: Puzzle, start: str) -> tuple[int, ...]:
    """The grid whose cells are removed: the solution, the grid after singles, or the
    givens."""
    if start == "solution":
        return tuple(puzzle.solution or count_solutions(puzzle, 1, keep=1).solutions[0])
    if start == "singles":
        return tuple(propagate(puzzle, DEFAULT_RULES).grid)
    return puzzle.givens


def with_removed(puzzle: Puzzle, targets: list[int], seed: int) -> list[tuple[int, Puzzle]]:
    """``(solutions, puzzle)`` puzzles made by removing givens of ``puzzle`` one at a time,
    each step removing the given (ties broken by a seeded shuffle) that brings the count
    closest to the next target without passing it (else the smallest increase); one
    puzzle per target, the first with at least that many solutions."""
    rng = np.random.default_rng(seed)
    limit = 2 * max(targets) + 1  # counts below it are exact
    current, found = puzzle, []
    for target in sorted(targets):
        while True:
            count = count_solutions(current, limit).count
            if count >= limit:  # not an exact count: stop here
                return found
            if count >= target:
                if not found or found[-1][0] != count:
                    found.append((count, current))
                break
            cells = [i for i, v in enumerate(current.givens) if v]
            options = []
            for cell in rng.permutation(cells):
                givens = list(current.givens)
                givens[int(cell)] = 0
                p = replace(current, givens=tuple(givens), solution=None)
                size = propagate(p, DEFAULT_RULES).num_variables
                options.append((count_solutions(p, limit).count, -size, p))
            below = [o for o in options if o[0] <= target]
            current = (max(below, key=lambda o: o[:2]) if below
                       else min(options, key=lambda o: (o[0], -o[1])))[2]
    return found


def row_of(name: str, k: int, f) -> dict:
    valid = f.num_valid
    return {"puzzle": name, "solutions": k, "backend": f.sampler, "reads": f.num_reads,
            "valid": valid, "hit": sum(1 for c in f.counts if c),
            "max_share": max(f.counts) / valid if valid else None, "p_value": f.p_value,
            "chi2": f.chi2, "seed": f.seed, "seconds": round(f.seconds, 2),
            "counts": f.counts}


def markdown(rows: list[dict]) -> str:
    lines = ["| puzzle | solutions k | backend | valid / reads | solutions hit | largest share "
             "(uniform 1/k) | chi-square p | seconds |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        share = "-" if r["max_share"] is None else f"{r['max_share']:.2f} ({1 / r['solutions']:.2f})"
        p = "-" if r["p_value"] is None else f"{r['p_value']:.2g}"
        lines.append(f"| {r['puzzle']} | {r['solutions']} | {r['backend']} | {r['valid']} / "
                     f"{r['reads']} | {r['hit']} / {r['solutions']} | {share} | {p} | "
                     f"{r['seconds']} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default=str(default_seeds()))
    ap.add_argument("--names", default="seed004_quantum_annealing,seed001_paradox_fol")
    ap.add_argument("--targets", default="2,5,10,20")
    ap.add_argument("--backends", default="sa,sqa,pt,mock-qpu,solve")
    ap.add_argument("--reads", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="benchmarks/results/fairness.jsonl")
    ap.add_argument("--start", choices=("solution", "singles", "givens"), default="solution",
                    help="remove cells from the puzzle's solution (default), from its grid "
                         "after naked and hidden singles, or from its own givens")
    args = ap.parse_args()
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    wanted = args.names.split(",")
    puzzles = {p.name: p for p in load_puzzles(args.seeds)}
    rows = []
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as out:
        for name in wanted:
            base = next(p for key, p in puzzles.items() if name in key)
            base = replace(base, givens=start_grid(base, args.start))
            for k, puzzle in with_removed(base, [int(t) for t in args.targets.split(",")],
                                          args.seed):
                label = f"{name.split('_')[0]} k={k}"
                for backend in args.backends.split(","):
                    f = fairness(puzzle, Config(), reads=args.reads, max_solutions=k,
                                 seed=args.seed, sampler=backend)
                    row = row_of(label, k, f)
                    row["grid"] = puzzle.format()
                    rows.append(row)
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    print(markdown([row]).splitlines()[-1], flush=True)
    print()
    print(markdown(rows))
    print(f"\n{len(rows)} rows in {time.perf_counter() - t0:.0f} s; load average "
          f"{load0[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
