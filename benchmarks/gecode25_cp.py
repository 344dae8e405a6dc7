"""A reference for the Gecode 25x25 puzzles: complete searches, with and without learning.

The route's learning ants solve 4 of the 12 Gecode 25x25 puzzles within 20 s at best
(``benchmarks/gecode25.py``); the exact fallback (CDCL SAT) solves each within 13 s.  This
benchmark asks where a classical complete search that does *not* learn clauses stands:
Choco (through ``pychoco``, not a qsudoku dependency: ``pip install pychoco``) with one
``all_different`` per unit of :attr:`Puzzle.units` at arc consistency (Régin's matching
filter: every naked and hidden subset of every size), the givens as equalities, and one of
Choco's variable orders:

- ``default``: the search Choco picks when none is set;
- ``mindom``: smallest domain first, smallest value first (plain depth-first search);
- ``wdeg``: domain over weighted degree (failures weigh the constraints involved);
- ``chs``: conflict history search.

With ``--lcg`` the same models and searches run with Choco's lazy clause generation
(``Model(lcg=True)``): the propagators explain their removals and the solver learns
clauses from its conflicts, the one thing the runs without it lack.

Per puzzle: solved within the budget or not, seconds, and Choco's failure count.  With
``--exact NAME ...`` qsudoku's own exact backends (``sat``: CaDiCaL, CDCL with clause
learning, the route's fallback; ``cpsat``: OR-Tools CP-SAT, one worker, which learns clauses
too; ``csp``: qsudoku's exact-cover search) run on the same puzzles after the route's
propagation, for the other side of the comparison.  One search runs at a time, on one
core; a Choco search's clock starts once its model is built.

    pip install pychoco
    python benchmarks/gecode25_cp.py --shared /work/shared                  # default search
    python benchmarks/gecode25_cp.py --shared /work/shared --search mindom wdeg chs
    python benchmarks/gecode25_cp.py --shared /work/shared --search default wdeg --lcg
    python benchmarks/gecode25_cp.py --shared /work/shared --search --exact sat cpsat csp
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import time
from pathlib import Path

from qsudoku.io import load_puzzles

ROOT = Path(__file__).resolve().parents[1]
SEARCHES = ("default", "mindom", "wdeg", "chs")


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def cp_model(puzzle, lcg: bool = False):
    """A Choco model of ``puzzle``: ``(model, cell variables)``."""
    from pychoco import Model

    m = Model(lcg=lcg)
    cells = [m.intvar(1, puzzle.size) for _ in puzzle.givens]
    for cell, digit in enumerate(puzzle.givens):
        if digit:
            m.arithm(cells[cell], "=", digit).post()
    for unit in puzzle.units:
        m.all_different([cells[c] for c in unit.cells], "AC").post()
    return m, cells


def solve(puzzle, search: str, budget: float, lcg: bool = False) -> tuple[bool, float, str]:
    """``(solved, seconds, "N failures")`` of one Choco search on ``puzzle``."""
    m, cells = cp_model(puzzle, lcg)
    s = m.get_solver()
    with contextlib.redirect_stdout(io.StringIO()):  # pychoco 0.4 prints from a setter
        if search == "mindom":
            s.set_min_dom_lb_search(*cells)
        elif search == "wdeg":
            s.set_dom_over_w_deg_search(*cells)
        elif search == "chs":
            s.set_conflict_history_search(*cells)
    s.limit_time(f"{budget}s")
    t = time.perf_counter()
    found = s.find_solution()
    took = time.perf_counter() - t
    ok = found is not None and puzzle.is_solution([found.get_int_val(v) for v in cells])
    return ok, took, f"{int(s.get_fail_count()):8d} failures"


def solve_exact(puzzle, name: str, budget: float) -> tuple[bool, float, str]:
    """``(solved, seconds, status)`` of qsudoku's exact backend ``name`` on ``puzzle``."""
    from qsudoku.exact.backends import BACKENDS
    from qsudoku.exact.problem import Problem
    from qsudoku.model.propagate import propagate
    from qsudoku.config import DEFAULTS

    backend = BACKENDS[name]
    t = time.perf_counter()
    problem = Problem.from_candidates(propagate(puzzle, DEFAULTS["propagate"]["rules"]))
    out = backend.solve(problem, **{**backend.params, "time_limit": budget})
    took = time.perf_counter() - t
    ok = out.chosen is not None and puzzle.is_solution(problem.grid(out.chosen))
    return ok, took, out.status


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--file", default="data/sudoku25/gecode.txt")
    ap.add_argument("--first", type=int, default=None, help="only the first N puzzles")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per search")
    ap.add_argument("--search", nargs="*", choices=SEARCHES, default=["default"])
    ap.add_argument("--exact", nargs="*", default=[], help="qsudoku exact backends too")
    ap.add_argument("--lcg", action="store_true", help="Choco with lazy clause generation")
    args = ap.parse_args()
    if args.search:
        try:
            import pychoco  # noqa: F401
        except ImportError:
            raise SystemExit("the Choco searches need pychoco: pip install pychoco")
    puzzles = load_puzzles(args.shared / args.file)[: args.first]
    print(f"# {args.file}: {len(puzzles)} puzzles, {args.budget:g} s each (Choco: one "
          f"all_different (AC) per unit{', lazy clause generation' if args.lcg else ''}); "
          f"load average {load()}")
    choco = functools.partial(solve, lcg=args.lcg)
    runs = [(name, choco) for name in args.search] + [(name, solve_exact) for name in args.exact]
    for name, run in runs:
        solved = 0
        for i, p in enumerate(puzzles):
            ok, took, detail = run(p, name, args.budget)
            solved += ok
            print(f"{name:8s} #{i:<3d} {'solved' if ok else 'open  '} {took:6.2f} s  {detail}",
                  flush=True)
        print(f"{name}: {solved}/{len(puzzles)} within {args.budget:g} s; load average "
              f"{load()}", flush=True)


if __name__ == "__main__":
    main()
