"""Propagation, QUBO build and decoding at 36x36 to 64x64: time and peak memory.

For each size and encoding (one-hot, domain wall), a blank grid and a seeded puzzle with
45% of its cells given (a valid grid, digits relabelled at random, cells removed at random)
are propagated with the default rules, built into a BQM, and 100 reads (the solution) get their BQM energies (dimod's
``energies``, what a sampler computes) and are decoded.  Each
case runs in a fresh process, which reports its own peak resident memory (``ru_maxrss``:
the interpreter and imports included, about 0.15 GB), so the cases do not share a heap.
What should hold: time and memory grow with the number of candidate variables and
couplers, not with n^6 or dense matrices.

    python benchmarks/big_models.py [--sizes 36,49,64] [--out benchmarks/results/big_models.txt]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ALPHABET = ("123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&*+=?@")


def puzzle(n: int, fraction: float, seed: int = 1):
    """A ``n x n`` puzzle (boxes as square as the size allows) with ``fraction`` of its
    cells given, from a seeded valid grid."""
    import numpy as np

    from qsudoku.model.puzzle import Puzzle

    rng = np.random.default_rng(seed)
    r = int(n ** 0.5)
    while n % r:
        r -= 1
    c = n // r  # boxes of r rows and c columns
    grid = [(c * (row % r) + row // r + col) % n for row in range(n) for col in range(n)]
    relabel = rng.permutation(n) + 1
    full = [int(relabel[d]) for d in grid]
    keep = rng.random(n * n) < fraction
    givens = [d if k else 0 for d, k in zip(full, keep)]
    return Puzzle.standard(givens, box=(r, c), alphabet=ALPHABET[:n]), full


def case(n: int, fraction: float, encoding: str) -> dict:
    """One measurement (run in its own process by :func:`main`)."""
    import resource

    import numpy as np

    from qsudoku.model.decode import decode_array
    from qsudoku.model.propagate import propagate
    from qsudoku.model.qubo import build_model

    p, full = puzzle(n, fraction)
    t = time.perf_counter()
    cands = propagate(p, ("naked_single", "hidden_single"))
    t_prop = time.perf_counter() - t
    t = time.perf_counter()
    model = build_model(cands, encoding=encoding)
    t_build = time.perf_counter() - t
    reads = np.repeat(model.sample_of_grid(full)[None, :], 100, axis=0)
    t = time.perf_counter()
    energies = model.bqm.energies((reads, model.variables))  # a sample set carries these
    t_energy = time.perf_counter() - t
    t = time.perf_counter()
    decoded = decode_array(model, reads, energies)
    t_decode = time.perf_counter() - t
    assert all(d.valid for d in decoded)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB -> GB
    return {"size": n, "given": fraction, "encoding": encoding,
            "variables": model.num_variables, "interactions": model.num_interactions,
            "propagate_s": round(t_prop, 3), "build_s": round(t_build, 3),
            "energies100_s": round(t_energy, 3), "decode100_s": round(t_decode, 3), "peak_gb": round(peak, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="36,49,64")
    ap.add_argument("--out")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        n, fraction, encoding = args.case.split(",")
        print(json.dumps(case(int(n), float(fraction), encoding)))
        return
    lines = [f"# python benchmarks/big_models.py --sizes {args.sizes}",
             f"# load average at start: {os.getloadavg()}"]
    header = ("size  given  encoding      variables  interactions  propagate  build   "
              "energies100  decode100  peak GB")
    lines.append(header)
    print(header, flush=True)
    for n in map(int, args.sizes.split(",")):
        for fraction in (0.0, 0.45):
            for encoding in ("one-hot", "domain-wall"):
                out = subprocess.run([sys.executable, __file__, "--case",
                                      f"{n},{fraction},{encoding}"],
                                     capture_output=True, text=True, check=True)
                r = json.loads(out.stdout)
                line = (f"{n:4d}  {fraction:5.2f}  {encoding:12s}  {r['variables']:9d}  "
                        f"{r['interactions']:12d}  {r['propagate_s']:8.2f}s "
                        f"{r['build_s']:6.2f}s  {r['energies100_s']:10.2f}s  "
                        f"{r['decode100_s']:8.2f}s  {r['peak_gb']:6.2f}")
                lines.append(line)
                print(line, flush=True)
    lines.append(f"# load average at end: {os.getloadavg()}")
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
