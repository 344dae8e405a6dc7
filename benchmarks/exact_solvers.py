"""Exact backends side by side on the shared 9x9 sets, and a uniqueness census of all shared data.

Two parts (each can be skipped):

1. ``solve``: for each ``sudoku9`` set, a seeded sample of ``--per-set`` puzzles (whole
   set if smaller).  Every backend (``sat``, ``cpsat``, ``ilp``, ``asp``, ``csp``) runs in
   its own fresh process, one after the other (so OR-Tools and highspy never share a
   process, and no two backends share the 2 cores).  Two measurements per puzzle:

   * ``sample``: the backend's ``sample()`` call on the *givens-only* model
     (``rules=()``: only the givens eliminate), so every backend solves every puzzle
     from the same reduced formulation; the groups are converted inside the call;
   * ``total``: ``qsudoku.solve`` end to end with the default rules (singles); puzzles that
     propagation alone solves never reach the backend and count with their total time.

   Each answer is compared with the listed solution.  Output: median ``sample`` per set and
   backend (ms), then overall median / p95 / max of both measures.
2. ``count``: ``count_solutions`` over every shared puzzle (qsudoku's search up to 16x16,
   a SAT solver with blocking clauses for 25x25) and the list of any puzzle that is not
   unique, or not the listed solution.

    python benchmarks/exact_solvers.py                     # both parts, 40 puzzles per set
    python benchmarks/exact_solvers.py --per-set 10 --parts solve
    python benchmarks/exact_solvers.py --backends sat,csp --sets norvig_top95,forum_hardest_1106

Wall times depend on the load of the machine: the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from pathlib import Path

from qsudoku.exact.backends import BACKENDS as EXACT_BACKENDS

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
BACKENDS = list(EXACT_BACKENDS)


def sets(names: str | None) -> list[Path]:
    files = sorted(f for f in (DATA / "sudoku9").glob("*.txt")
                   if not f.name.endswith((".solutions.txt", ".ids.txt")))
    if names:
        wanted = set(names.split(","))
        files = [f for f in files if f.stem in wanted]
    return files


def sample_of(path: Path, k: int):
    from qsudoku.io import load_puzzles

    ps = load_puzzles(str(path))
    return ps if len(ps) <= k else random.Random(path.stem).sample(ps, k)


def _worker(backend: str, paths: list[str], per_set: int, time_limit: float, queue) -> None:
    """Runs in a fresh process: every puzzle of the sample through one backend."""
    from qsudoku.config import Config
    from qsudoku.solving import solve
    from qsudoku.model.propagate import propagate
    from qsudoku.model.qubo import build_model
    from qsudoku.samplers import get_sampler

    sampler = get_sampler(backend)
    params = {"time_limit": time_limit}
    cfg = Config().with_overrides(sampler=backend, params=params)
    warm = build_model(propagate(sample_of(Path(paths[0]), 1)[0], rules=()))
    sampler.sample(warm.bqm, groups=warm.groups(), **params)  # imports, first-call costs
    for path in paths:
        for p in sample_of(Path(path), per_set):
            m = build_model(propagate(p, rules=()))
            groups = m.groups()
            t = time.perf_counter()
            ss = sampler.sample(m.bqm, groups=groups, **params)
            dt = time.perf_counter() - t
            grid = list(m.fixed)
            for (r, c, d), x in ss.first.sample.items():
                if x:
                    grid[r * p.size + c] = d
            r = solve(p, cfg, sampler=sampler)
            queue.put({"backend": backend, "set": Path(path).stem, "name": p.name,
                       "sample": dt, "ok": grid == list(p.solution),
                       "status": ss.info.get("status"), "isolated": bool(ss.info.get("isolated")),
                       "total": r.timings["total"], "total_ok": list(r.grid) == list(p.solution),
                       "by": r.solved_by})
    queue.put(None)


def run_solve(args) -> None:
    files = sets(args.sets)
    backends = args.backends.split(",")
    ctx = mp.get_context("spawn")
    rows = []
    t0 = time.time()
    for b in backends:
        q = ctx.Queue()
        proc = ctx.Process(target=_worker, args=(b, [str(f) for f in files], args.per_set,
                                                 args.time_limit, q))
        proc.start()
        while True:
            item = q.get()
            if item is None:
                break
            rows.append(item)
        proc.join()
        print(f"  {b}: done ({sum(1 for r in rows if r['backend'] == b)} puzzles, "
              f"{time.time() - t0:.0f} s so far)", file=sys.stderr, flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f)
    counts = {f.stem: sum(1 for r in rows if r["set"] == f.stem and r["backend"] == backends[0])
              for f in files}
    print(f"\nmedian sample() time per set, ms (givens-only model; n = puzzles sampled, "
          f"seeded, at most {args.per_set} per set)")
    head = f"{'set':28s} {'n':>4s} " + " ".join(f"{b:>8s}" for b in backends)
    print(head)
    for f in files:
        cells = []
        for b in backends:
            xs = [r["sample"] for r in rows if r["set"] == f.stem and r["backend"] == b]
            cells.append(f"{1000 * statistics.median(xs):8.1f}" if xs else f"{'-':>8s}")
        print(f"{f.stem:28s} {counts[f.stem]:4d} " + " ".join(cells))
    print("\nall sampled puzzles together")
    print(f"{'backend':8s} {'sample med':>11s} {'p95':>9s} {'max':>9s} {'wrong':>6s} "
          f"{'total med':>10s} {'total p95':>10s} {'by prop.':>9s} {'isolated':>8s}")
    for b in backends:
        rs = [r for r in rows if r["backend"] == b]
        if not rs:
            continue
        xs = sorted(r["sample"] for r in rs)
        ts = sorted(r["total"] for r in rs)
        wrong = sum(1 for r in rs if not r["ok"] or not r["total_ok"])
        prop = sum(1 for r in rs if r["by"] == "propagation")
        print(f"{b:8s} {_ms(statistics.median(xs)):>11s} {_ms(_pct(xs, 95)):>9s} "
              f"{_ms(xs[-1]):>9s} {wrong:6d} {_ms(statistics.median(ts)):>10s} "
              f"{_ms(_pct(ts, 95)):>10s} {prop:9d} {sum(r['isolated'] for r in rs):8d}")


def run_count(args) -> None:
    from qsudoku.exact import count_solutions
    from qsudoku.io import load_puzzles

    files = sorted(f for f in DATA.glob("*/*.txt")
                   if not f.name.endswith((".solutions.txt", ".ids.txt")))
    files.append(DATA / "seeds" / "seeds.tsv")
    total, odd = 0, []
    t0 = time.time()
    print("\nuniqueness census (count_solutions, limit 2)")
    for f in files:
        ps = load_puzzles(str(f))
        method = "sat" if ps and ps[0].size > 16 else "search"
        t = time.perf_counter()
        for p in ps:
            c = count_solutions(p, 2, method=method)
            total += 1
            if not c.unique or (p.solution is not None and c.solutions[0] != list(p.solution)):
                odd.append((p.name, c.describe()))
        rel = f.relative_to(DATA)
        print(f"  {str(rel):42s} {len(ps):5d} puzzles, {method:6s} {time.perf_counter() - t:7.1f} s",
              flush=True)
    print(f"{total} puzzles counted in {time.time() - t0:.0f} s; "
          f"not unique or not the listed solution: {len(odd)}")
    for name, what in odd:
        print(f"  {name}: {what}")


def _pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def _ms(x: float) -> str:
    return f"{1000 * x:.1f} ms" if x < 10 else f"{x:.1f} s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-set", type=int, default=40, help="puzzles per sudoku9 set (seeded)")
    ap.add_argument("--sets", help="comma-separated set names (default: every sudoku9 set)")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    ap.add_argument("--parts", default="solve,count", help="solve, count, or both")
    ap.add_argument("--json", help="also write the per-puzzle rows of the solve part here")
    args = ap.parse_args(argv)
    from qsudoku.experiments.bench import machine_info

    info = machine_info()
    print(f"machine: {json.dumps(info)}")
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    parts = args.parts.split(",")
    if "solve" in parts:
        run_solve(args)
    if "count" in parts:
        run_count(args)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
