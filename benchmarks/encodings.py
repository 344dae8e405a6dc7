"""One-hot against domain wall on the shipped 9x9 and 16x16 puzzles (the README's
"Encodings" figures).

1. Variables on every shipped 9x9 and 16x16 puzzle (every file under ``data/``), with the default propagation and with none: the domain wall takes
   sum(k - 1) variables where one-hot takes sum(k), so it must use fewer on every puzzle
   that leaves an open cell; the script counts the puzzles where it does not.
2. The seed puzzles on a perfect Pegasus P16 (mock Advantage) graph: variables,
   interactions, coefficient range, qubits and longest chain (minorminer, random_seed 1,
   cached in ``--cache-dir``).
3. Success per read of ``sa`` and ``sqa`` (path-integral annealing) at the same number of
   sweeps, one fixed sample of ``--reads`` reads per seed (no rounds, no fallback).

    python benchmarks/encodings.py [--cache-dir DIR] [--reads 50] [--seeds 3] [--sweeps 500]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from qsudoku import Config, solve
from qsudoku.io import load_puzzles
from qsudoku.plots.encodings import ENCODING_ORDER, embedding_row, model_rows

DATA = Path(__file__).resolve().parent.parent / "data"
#: Every shipped puzzle file (not its ``.ids``/``.solutions`` companions); part 1 keeps the
#: 9x9 and 16x16 puzzles of each.
SETS = sorted(str(f.relative_to(DATA)) for f in [*DATA.rglob("*.txt"), *DATA.rglob("*.tsv")]
              if not f.name.endswith((".ids.txt", ".solutions.txt")))
SIZES = (9, 16)
FIXED = {"enabled": False, "exact_fallback": ""}  # one round: the sampler's own reads


def count_variables(config: Config, label: str) -> None:
    """Part 1: per set, puzzles where the domain wall has fewer / equal / more variables."""
    print(f"\n## variables, {label}\n")
    print("| set | puzzles | dw < oh | dw = oh (both 0) | dw >= oh > 0 | median oh | median dw |")
    print("|---|---|---|---|---|---|---|")
    for name in SETS:
        less = same = more = 0
        oh, dw = [], []
        for p in load_puzzles(str(DATA / name)):
            if p.size not in SIZES:
                break
            a, b = (r["variables"] for r in model_rows(p, config))
            oh.append(a)
            dw.append(b)
            less, same, more = less + (b < a), same + (b == a == 0), more + (b >= a and a > 0)
        if not oh:
            continue
        print(f"| {name} | {len(oh)} | {less} | {same} | {more} | {statistics.median(oh):g} | "
              f"{statistics.median(dw):g} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache-dir", help="embedding cache (default: a fresh temporary directory)")
    ap.add_argument("--reads", type=int, default=50)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sweeps", type=int, default=500)
    ap.add_argument("--skip", default="", help="parts to skip, e.g. 1 or 1,3")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    base = Config()
    if "1" not in skip:
        count_variables(base, "default propagation (naked + hidden singles)")
        count_variables(base.with_overrides(rules=[]), "no propagation")
    seeds = [p for p in load_puzzles(str(DATA / "seeds" / "seeds.tsv"))]
    models = {(r["puzzle"], r["encoding"]): r for p in seeds for r in model_rows(p, base)}
    sampled = [p for p in seeds if models[p.name, "one-hot"]["model"] is not None]
    if "2" not in skip:
        from qsudoku.samplers.dwave.embedding import EmbeddingCache
        from qsudoku.samplers.dwave.qpu import mock_child

        cache = EmbeddingCache(args.cache_dir or tempfile.mkdtemp(prefix="qsudoku-enc-"))
        child = mock_child("pegasus")
        print("\n## seed puzzles on Pegasus P16 (minorminer random_seed 1)\n")
        print("| puzzle | encoding | variables | interactions | coefficient range | qubits | "
              "longest chain | mean chain |")
        print("|---|---|---|---|---|---|---|---|")
        for p in seeds:
            for enc in ENCODING_ORDER:
                r = models[p.name, enc]
                if r["model"] is None:
                    print(f"| {p.name} | {enc} | 0 (solved by propagation) | | | | | |")
                    continue
                e = embedding_row(r["model"], child, cache, seed=1)
                print(f"| {p.name} | {enc} | {r['variables']} | {r['interactions']} | "
                      f"{r['coefficient_range']:g} | {e['qubits']} | {e['longest_chain']} | "
                      f"{e['mean_chain']:.2f} |", flush=True)
    if "3" not in skip:
        print(f"\n## success per read at {args.sweeps} sweeps ({args.reads} reads x "
              f"{args.seeds} seeds, one fixed sample each)\n")
        print("| puzzle | sampler | " + " | ".join(f"p {e} (valid/reads)" for e in ENCODING_ORDER)
              + " |")
        print("|---|---|" + "---|" * len(ENCODING_ORDER))
        for p in sampled:
            for sampler in ("sa", "sqa"):
                cells = []
                for enc in ENCODING_ORDER:
                    valid = reads = 0
                    for s in range(args.seeds):
                        cfg = base.with_overrides(sampler=sampler, encoding=enc, seed=s,
                                                  reads=args.reads, route=FIXED,
                                                  params={"num_sweeps": args.sweeps})
                        r = solve(p, cfg)
                        valid, reads = valid + r.num_valid, reads + r.num_reads
                    cells.append(f"{valid / reads:.3f} ({valid}/{reads})")
                print(f"| {p.name} | {sampler} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{time.perf_counter() - t0:.0f} s; load average {load0:.2f} at start, "
          f"{os.getloadavg()[0]:.2f} at end; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
