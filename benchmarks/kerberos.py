"""Kerberos on D-Wave's own Sudoku formulation and on ours, side by side (offline mock QPU).

D-Wave's example (github.com/dwave-examples/sudoku) builds a SPIN model over all 729
``(row, col, digit)`` variables with ``dimod.generators.combinations(labels, 1)`` for
every cell, row, column and box, fixes each clue's variable to 1 and samples it with
``hybrid.KerberosSampler`` (``max_iter=10, convergence=3``).  The formulation is
rebuilt here from that description; qsudoku's is the reduced QUBO after singles.  Both
go through the same Kerberos settings and the same QPU branch (the ``kerberos``
backend's mock QPU: MockDWaveSampler on Pegasus P16 with SA physics, clique-embedded
subproblems), plus ``energy_threshold=0`` so a run stops at a valid grid.  Per
puzzle: valid or not, wall seconds, QPU calls; then totals.

    python benchmarks/kerberos.py --limit 10
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import dimod
from dimod.generators import combinations

from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.solving import build
from qsudoku.solving import sample_round
from qsudoku.samplers import get_sampler

DATA = Path(os.environ.get("QSUDOKU_DATA", "/work/shared/data"))


def dwave_example_bqm(puzzle) -> dimod.BinaryQuadraticModel:
    """D-Wave's formulation: one-of-n over every unit and cell, clue variables fixed to 1."""
    n = puzzle.size
    label = lambda r, c, d: (r, c, d)  # noqa: E731
    bqm = dimod.BinaryQuadraticModel({}, {}, 0.0, dimod.SPIN)
    for r in range(n):
        for c in range(n):
            bqm.update(combinations([label(r, c, d) for d in range(1, n + 1)], 1))
    for unit in puzzle.units:  # rows, columns and boxes: Puzzle.units is the geometry
        for d in range(1, n + 1):
            bqm.update(combinations([label(i // n, i % n, d) for i in unit.cells], 1))
    for i, v in enumerate(puzzle.givens):
        if v:
            bqm.fix_variable(label(i // n, i % n, v), 1)
    return bqm


def dwave_example_grid(puzzle, sample) -> list[int]:
    """The example's decoding: clues kept, any other cell takes a digit whose variable is 1."""
    n = puzzle.size
    grid = list(puzzle.givens)
    for (r, c, d), value in sample.items():
        if value == 1 and not grid[r * n + c]:
            grid[r * n + c] = d
    return grid


def puzzles(limit: int):
    seeds = []
    for line in (DATA / "seeds" / "seeds.tsv").read_text().splitlines():
        if line.startswith("#"):
            continue
        name, text, regions, _ = line.split("\t")
        if regions == "-":
            seeds.append((name, parse_puzzle(text)))
    top = [(f"top95[{i}]", p) for i, p in enumerate(
        load_puzzles(DATA / "sudoku9" / "norvig_top95.txt")[:limit])]
    return seeds + top


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=10, help="first N of norvig_top95")
    ap.add_argument("--max-iter", type=int, default=10)
    ap.add_argument("--convergence", type=int, default=3)
    args = ap.parse_args()
    sampler = get_sampler("kerberos", qpu_sampler="mock-qpu")
    params = {"max_iter": args.max_iter, "convergence": args.convergence, "energy_threshold": 0.0,
              "qpu_params": {"num_sweeps": 1000}}
    print(f"Kerberos (max_iter={args.max_iter}, convergence={args.convergence}, energy_threshold=0),"
          f" mock QPU (P16, SA physics); load average {os.getloadavg()[0]:.2f}")
    print("puzzle | D-Wave formulation: vars, valid, s, QPU calls | qsudoku reduced: vars, valid, "
          "s, QPU calls")
    tot = {"theirs": [], "ours": []}
    for i, (name, puzzle) in enumerate(puzzles(args.limit)):
        bqm = dwave_example_bqm(puzzle)
        t = time.perf_counter()
        ss = sampler.sample(bqm, seed=i, **params)
        theirs = (bqm.num_variables, puzzle.is_solution(dwave_example_grid(puzzle, ss.first.sample)),
                  time.perf_counter() - t, ss.info["qpu_calls"])
        t = time.perf_counter()
        _, model, _ = build(puzzle)
        if model is None:
            ours = (0, True, time.perf_counter() - t, 0)
        else:
            rnd = sample_round(model, sampler, {**params, "seed": i})
            ours = (model.num_variables, rnd.best.valid, time.perf_counter() - t,
                    rnd.sampleset.info["qpu_calls"])
        tot["theirs"].append(theirs)
        tot["ours"].append(ours)
        print(f"{name} | {theirs[0]}, {theirs[1]}, {theirs[2]:.1f}, {theirs[3]} | "
              f"{ours[0]}, {ours[1]}, {ours[2]:.1f}, {ours[3]}", flush=True)
    for key, rows in tot.items():
        print(f"{key}: solved {sum(r[1] for r in rows)}/{len(rows)}, median wall "
              f"{statistics.median(r[2] for r in rows):.1f} s, median QPU calls "
              f"{statistics.median(r[3] for r in rows):g}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
