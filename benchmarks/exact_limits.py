"""Time limits of every exact backend on blank big grids, and of the default solve.

For each size and backend, three paths with ``--limit`` seconds (default 0.5):

1. ``groups``: the sampler on the reduced BQM with the model's labelled groups
   (``get_sampler(name).sample(bqm, groups=..., time_limit=L)``);
2. ``bare``: the same BQM with no groups (they are recognised from the couplers, within
   the same limit);
3. ``fallback``: :func:`qsudoku.solve` with ``exact_fallback = name``,
   ``fallback_time_limit = L`` and a 0.1 s budget for the rounds (the route a user runs).

Each line gives the seconds the call took against its limit and the answer's status.
Blank grids are not decided within these limits; what is measured is that the call
returns on time.  The first call of each backend pays its library's import, which counts
against the limit.

    python benchmarks/exact_limits.py                       # 49x49 and 64x64, all backends
    python benchmarks/exact_limits.py --sizes 36 --backends sat,csp --limit 1
"""

from __future__ import annotations

import argparse
import os
import time

from qsudoku import Config, Puzzle, solve
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.samplers import get_sampler

BACKENDS = "sat,cpsat,ilp,asp,csp"


def blank(n: int) -> Puzzle:
    """A blank n x n grid (CJK symbols as its alphabet, so any size reads)."""
    return Puzzle.standard([0] * n * n, alphabet="".join(chr(0x4E00 + i) for i in range(n)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="49,64")
    ap.add_argument("--backends", default=BACKENDS)
    ap.add_argument("--limit", type=float, default=0.5)
    args = ap.parse_args()
    print(f"exact backends on blank grids, limit {args.limit} s; "
          f"load average {os.getloadavg()[0]:.2f} at start", flush=True)
    print(f"{'size':>4s} {'backend':8s} {'path':9s} {'seconds':>8s} {'over':>7s}  status")
    for n in map(int, args.sizes.split(",")):
        puzzle = blank(n)
        model = build_model(propagate(puzzle, ()))
        for name in args.backends.split(","):
            sampler = get_sampler(name)
            for path in ("groups", "bare", "fallback"):
                t = time.perf_counter()
                if path == "fallback":
                    cfg = Config().with_overrides(rules=[], route={
                        "time_budget": 0.1, "exact_fallback": name,
                        "fallback_time_limit": args.limit})
                    r = solve(puzzle, cfg)
                    seconds, status = r.timings["fallback"], "valid" if r.valid else "open"
                else:
                    ss = sampler.sample(model.bqm, time_limit=args.limit,
                                        groups=model.groups() if path == "groups" else None)
                    seconds, status = time.perf_counter() - t, ss.info.get("status", "")
                print(f"{n:4d} {name:8s} {path:9s} {seconds:8.2f} "
                      f"{seconds - args.limit:+7.2f}  {status}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
