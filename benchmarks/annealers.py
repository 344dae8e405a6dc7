"""The annealers ``sa``, ``sqa``, ``rotor``, ``pt`` and ``pa`` on the seed004 puzzle: success
per read with their registered defaults, against dwave-samplers' own defaults (the table
in ``docs/annealers.md``).

For each seed, each backend takes one fixed sample of its registered ``num_reads`` (one
sampler call, no rounds: :func:`qsudoku.experiments.fairness.fairness` on a puzzle with
one solution, whose valid reads are the hits), and ``qsudoku.solve`` runs with the
backend and the exact fallback off (did the sampler itself solve it?).  The library rows
call dwave-samplers' classes with nothing but ``num_reads=100`` and the seed on the same
reduced QUBO.  p per read is valid reads over reads, pooled over seeds, with a 95%
Wilson interval.

    python benchmarks/annealers.py [--seeds 10] [--puzzle data/seeds/seeds.tsv]
"""

from __future__ import annotations

import argparse
import os
import time

from qsudoku import Config, solve
from qsudoku.experiments.fairness import fairness
from qsudoku.io import load_puzzles
from qsudoku.solving import build

from fairness import default_seeds

BACKENDS = ("sa", "sqa", "rotor", "pt", "pa")


def wilson(k: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of ``k`` successes in ``n`` trials (scipy.stats)."""
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    return ci.low, ci.high


def library_rows(puzzle, seeds: int) -> list[tuple]:
    """dwave-samplers' classes with their own defaults (100 reads) on the reduced QUBO."""
    import dwave.samplers as ds

    _, model, _ = build(puzzle, Config())
    rows = []
    for label, cls in (("sa (library defaults)", ds.SimulatedAnnealingSampler),
                       ("path-integral (library defaults)", ds.PathIntegralAnnealingSampler),
                       ("rotor (library defaults)", ds.RotorModelAnnealingSampler)):
        valid = reads = 0
        t = time.perf_counter()
        for s in range(seeds):
            ss = cls().sample(model.bqm, num_reads=100, seed=s)
            energies = model.bqm.energies(ss)  # rotor reports pre-projection energies
            valid += int((abs(energies) < 1e-9).sum())
            reads += len(ss)
        rows.append((label, valid, reads, (time.perf_counter() - t) / reads, None))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--puzzle", default=str(default_seeds()))
    ap.add_argument("--name", default="seed004_quantum_annealing")
    args = ap.parse_args()
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    puzzle = next(p for p in load_puzzles(args.puzzle) if p.name == args.name)
    rows = library_rows(puzzle, args.seeds)
    for name in BACKENDS:
        valid = reads = solved = 0
        seconds = 0.0
        for s in range(args.seeds):
            f = fairness(puzzle, Config(), reads=_reads(name), seed=s, sampler=name)
            valid, reads, seconds = valid + f.num_valid, reads + f.num_reads, seconds + f.seconds
            cfg = Config().with_overrides(sampler=name, seed=s, route={"exact_fallback": ""})
            solved += solve(puzzle, cfg).solved_by.startswith(name)
        rows.append((name, valid, reads, seconds / reads, solved))
    print("| backend | valid / reads | p per read [95% Wilson] | s per read | solve, fallback "
          f"off: solved of {args.seeds} seeds |")
    print("|---|---|---|---|---|")
    for label, valid, reads, per_read, solved in rows:
        low, high = wilson(valid, reads)
        print(f"| {label} | {valid} / {reads} | {valid / reads:.3f} [{low:.3f}, {high:.3f}] | "
              f"{per_read:.4f} | {'-' if solved is None else solved} |")
    print(f"\n{time.perf_counter() - t0:.0f} s; load average {load0:.2f} at start, "
          f"{os.getloadavg()[0]:.2f} at end; {os.cpu_count()} CPUs")


def _reads(name: str) -> int:
    """The registered ``num_reads`` of ``name``."""
    from qsudoku.samplers import default_params

    return int(default_params(name).get("num_reads", 1))


if __name__ == "__main__":
    main()
