"""Model building: qsudoku.model.qubo.build_model vs. sympy expansion vs. pyqubo compile.

The same penalties, ``w * (sum q - 1)**2`` per open one-hot group, built three ways:

* ours: :func:`qsudoku.model.qubo.build_model` (numpy, one BQM constructor call);
* sympy, as the original QUBO write-up did: ``expand((sum q - 1)**2)`` per group, the
  coefficients collected (``q**2 = q`` for binaries) into a ``dimod.BQM``;
* pyqubo: ``Binary`` per variable, ``H = sum w * (sum q - 1)**2``, ``H.compile().to_bqm()``.

The reference routes are handed the groups ready-made (our builder derives them from the
candidates inside its timed call), so their ratios are conservative.  When the full sympy
route would take too long, a seeded random subset of the groups is timed and the total
extrapolated (said so in the output).  The three BQMs are checked equal (energies on
random samples).  Goals: >= 10,000x faster than sympy, >= 20x faster than pyqubo, a 25x25
with about 70% blanks built in under 50 ms.

    python benchmarks/build_model.py [--sympy-budget 20]

``--against REV`` times instead ``build_model`` against the one of git revision ``REV``
(loaded from ``git show REV:qsudoku/model/qubo.py``) on blank grids of ``--sizes`` (the largest
models of each size), calls alternating, and checks the two BQMs equal:

    python benchmarks/build_model.py --against e0ba708 --sizes 9,16,25,36,49
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

import numpy as np

from qsudoku.experiments.bench import machine_info
from qsudoku.io import load_puzzles
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.qubo import build_model

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
RULES = ("naked_single",)


def groups_of(cands) -> list[tuple[list[tuple[int, int, int]], float]]:
    """The one-hot groups in plain Python (as a write-up would list them), weight 1."""
    p, n = cands.puzzle, cands.puzzle.size
    open_cells = [c for c in range(n * n) if cands.grid[c] == 0]
    out = [([(c // n, c % n, d) for d in cands.digits(c)], 1.0) for c in open_cells]
    for unit in p.units:
        for d in range(1, n + 1):
            g = [(c // n, c % n, d) for c in unit.cells if cands.grid[c] == 0 and d in cands.digits(c)]
            if g:
                out.append((g, 1.0))
    return out


def sympy_terms(groups):
    """Expand each group with sympy; returns (linear, quadratic, offset) dicts over labels."""
    import sympy

    sym = {}
    lin: dict = {}
    quad: dict = {}
    off = 0.0
    for labels, w in groups:
        qs = [sym.setdefault(v, sympy.Symbol("q_%d_%d_%d" % v)) for v in labels]
        expr = sympy.expand(w * (sympy.Add(*qs) - 1) ** 2)
        for term, coef in expr.as_coefficients_dict().items():
            coef = float(coef)
            if term == 1:
                off += coef
                continue
            factors = term.as_powers_dict()
            vs = [tuple(int(x) for x in str(s).split("_")[1:]) for s in factors]
            if len(vs) == 1:  # q or q**2 (= q for a binary)
                lin[vs[0]] = lin.get(vs[0], 0.0) + coef
            else:
                key = tuple(sorted(vs))
                quad[key] = quad.get(key, 0.0) + coef
    return lin, quad, off


def sympy_accumulated(groups):
    """The write-up style: one expression ``H += expand(...)`` per group, then its coefficients."""
    import dimod
    import sympy

    sym, h = {}, sympy.Integer(0)
    for labels, w in groups:
        qs = [sym.setdefault(v, sympy.Symbol("q_%d_%d_%d" % v)) for v in labels]
        h = h + sympy.expand(w * (sympy.Add(*qs) - 1) ** 2)
    lin, quad, off = {}, {}, 0.0
    for term, coef in h.as_coefficients_dict().items():
        if term == 1:
            off += float(coef)
            continue
        vs = [tuple(int(x) for x in str(s).split("_")[1:]) for s in term.as_powers_dict()]
        target, key = (lin, vs[0]) if len(vs) == 1 else (quad, tuple(sorted(vs)))
        target[key] = target.get(key, 0.0) + float(coef)
    return dimod.BinaryQuadraticModel(lin, quad, off, dimod.BINARY)


def sympy_route(groups):
    import dimod

    lin, quad, off = sympy_terms(groups)
    return dimod.BinaryQuadraticModel(lin, quad, off, dimod.BINARY)


def pyqubo_route(groups):
    import dimod
    from pyqubo import Binary

    qs = {}
    h = 0
    for labels, w in groups:
        s = sum(qs.setdefault(v, Binary("%d,%d,%d" % v)) for v in labels)
        h += w * (s - 1) ** 2
    t = time.perf_counter()
    bqm = h.compile().to_bqm()
    t_compile = time.perf_counter() - t
    bqm = bqm.relabel_variables({k: tuple(int(x) for x in k.split(",")) for k in bqm.variables},
                                inplace=False)
    return dimod.BinaryQuadraticModel(bqm.linear, bqm.quadratic, bqm.offset, dimod.BINARY), t_compile


def same_energies(a, b, samples: int = 200, seed: int = 0) -> bool:
    """Equal energies of ``a`` and ``b`` on random 0/1 samples over ``a``'s variables."""
    if set(a.variables) != set(b.variables):
        return False
    order = list(a.variables)
    x = np.random.default_rng(seed).integers(0, 2, size=(samples, len(order)))
    return bool(np.allclose(a.energies((x, order)), b.energies((x, order)), atol=1e-9))


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """``(min, median, last result)`` of ``repeat`` calls."""
    ts, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return min(ts), statistics.median(ts), out


def interleaved(fns, repeat: int) -> list[tuple[float, float, object]]:
    """:func:`timed` for several functions, their calls alternating (same machine state)."""
    ts: list[list[float]] = [[] for _ in fns]
    outs: list = [None] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t = time.perf_counter()
            outs[k] = fn()
            ts[k].append(time.perf_counter() - t)
    return [(min(t), statistics.median(t), o) for t, o in zip(ts, outs)]


def blanked(p: Puzzle, fraction: float, seed: int) -> Puzzle:
    """``p``'s solution with a seeded ``fraction`` of the cells blanked."""
    sol = list(p.solution)
    rng = random.Random(seed)
    for c in rng.sample(range(len(sol)), round(fraction * len(sol))):
        sol[c] = 0
    return Puzzle(p.size, tuple(sol), p.units, p.kind, f"{p.name} blanked {fraction:.0%}",
                  tuple(p.solution), p.alphabet)


def cases():
    seed = load_puzzles(str(DATA / "seeds" / "seeds.tsv"))[0]
    p16 = load_puzzles(str(DATA / "sudoku16" / "gecode.txt"))[0]
    p25 = load_puzzles(str(DATA / "sudoku25" / "gecode.txt"))[0]
    p25b = blanked(p25, 0.70, seed=0)
    return [("seed004 9x9", seed, RULES), ("16x16 gecode:1", p16, RULES),
            ("25x25 gecode:1", p25, RULES), ("25x25 70% blank", p25b, RULES),
            ("25x25 70% blank, givens only", p25b, ())]


def qubo_at(rev: str):
    """``qsudoku.model.qubo`` as it was at git revision ``rev`` (a module beside the current one)."""
    import importlib.util
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    src = (Path(rev).read_text() if Path(rev).is_file() else  # (a copy without .git)
           subprocess.run(["git", "show", f"{rev}:qsudoku/model/qubo.py"], cwd=root, check=True,
                          capture_output=True, text=True).stdout)
    spec = importlib.util.spec_from_loader("qsudoku._qubo_old", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "qsudoku"
    sys.modules[spec.name] = mod  # (dataclasses look their module up there)
    exec(compile(src, f"{rev}:qsudoku/model/qubo.py", "exec"), mod.__dict__)
    return mod


def blank_grid(n: int) -> Puzzle:
    """A blank ``n x n`` Sudoku (symbols beyond the default alphabet where needed)."""
    return Puzzle.standard([0] * (n * n), alphabet="".join(chr(0x100 + i) for i in range(n)))


def against(rev: str, sizes: list[int], repeat: int) -> None:
    """Current vs ``rev``'s ``build_model`` on the shared cases and blank grids, side by side."""
    import os

    old = qubo_at(rev)
    print(f"build_model now vs at {rev}: the shared-data cases (if present), then blank grids "
          f"(no propagation rules); min of {repeat} alternating calls (3 from 36x36 up); "
          f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{'case':>30s} {'vars':>7s} {'couplers':>9s} {'old ms':>9s} {'new ms':>9s} "
          f"{'old/new':>7s}  same BQM  load")
    shared = cases() if (DATA / "seeds").is_dir() else []
    blanks = [(f"blank {n}x{n}", blank_grid(n), ()) for n in sizes]
    for name, puzzle, rules in shared + blanks:
        cands = propagate(puzzle, rules)
        runs = repeat if puzzle.size < 36 else 3
        (t_old, _, m_old), (t_new, _, m_new) = interleaved(
            [lambda: old.build_model(cands, old.Weights()), lambda: build_model(cands)], runs)
        same = (list(m_old.bqm.variables) == list(m_new.bqm.variables)
                and m_old.bqm == m_new.bqm and m_old.bqm.offset == m_new.bqm.offset)
        del m_old
        print(f"{name:>30s} {m_new.num_variables:7d} {m_new.num_interactions:9d} "
              f"{t_old * 1e3:9.2f} {t_new * 1e3:9.2f} {t_old / t_new:7.2f}  {str(same):8s}  "
              f"{os.getloadavg()[0]:.2f}", flush=True)
        del m_new
    print("first build in a fresh process (what a CLI run pays), alternating old/new; "
          "peak RSS of the whole process")
    print(f"{'size':>7s} {'old ms':>9s} {'new ms':>9s} {'old/new':>7s} {'old MB':>7s} "
          f"{'new MB':>7s}  load")
    for n in sizes:
        runs = [[], []]
        for _ in range(3):
            for k, which in enumerate(("old", "new")):
                runs[k].append(cold_build(which, rev, n))
        (t_old, mb_old), (t_new, mb_new) = (min(r) for r in runs)
        print(f"{n:>3d}x{n:<3d} {t_old * 1e3:9.2f} {t_new * 1e3:9.2f} {t_old / t_new:7.2f} {mb_old:7.0f} "
              f"{mb_new:7.0f}  {os.getloadavg()[0]:.2f}", flush=True)


def cold_build(which: str, rev: str, n: int) -> tuple[float, float]:
    """``(seconds, peak RSS MB)`` of one build in a fresh Python process."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, __file__, "--cold-run", which, rev, str(n)],
                         check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def _cold_run(which: str, rev: str, n: int) -> None:
    qubo = qubo_at(rev) if which == "old" else None
    cands = propagate(blank_grid(n), ())
    build, weights = ((qubo.build_model, qubo.Weights()) if qubo else
                      (build_model, __import__("qsudoku.model.qubo").qubo.Weights()))
    import dimod  # noqa: F401  (imports are not the build)

    t = time.perf_counter()
    build(cands, weights)
    t = time.perf_counter() - t
    # VmHWM: ru_maxrss would include the parent's size at fork (kept across exec)
    hwm = next(int(line.split()[1]) for line in open("/proc/self/status")
               if line.startswith("VmHWM"))
    print(t, hwm / 1024)


def main() -> None:
    import os

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sympy-budget", type=float, default=20.0,
                    help="seconds: above this estimate, time a subset of groups and extrapolate")
    ap.add_argument("--repeat", type=int, default=30, help="timed calls of our builders")
    ap.add_argument("--against", metavar="REV",
                    help="time against build_model of this git revision on blank grids")
    ap.add_argument("--sizes", default="9,16,25,36,49", help="blank grid sizes for --against")
    ap.add_argument("--cold-run", nargs=3, metavar=("OLD|NEW", "REV", "SIZE"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cold_run:
        _cold_run(args.cold_run[0], args.cold_run[1], int(args.cold_run[2]))
        return
    if args.against:
        against(args.against, [int(x) for x in args.sizes.split(",")], args.repeat)
        return
    info = machine_info()
    print(f"machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}; "
          + ", ".join(f"{k} {v}" for k, v in info["packages"].items()
                      if k in ("qsudoku", "dimod", "numpy", "sympy", "pyqubo")))
    print(f"load average at start: {os.getloadavg()[0]:.2f} (other processes share the cores)")
    print("times: ours = min of %d calls (median in the JSON line), "
          "pyqubo = min of 3, sympy = one run" % args.repeat)
    print(f"{'case':30s} {'vars':>5s} {'inter':>6s} {'groups':>6s} {'ours ms':>8s} "
          f"{'pyqubo ms':>10s} {'sympy s':>8s} {'x sympy':>8s} {'x pyqubo':>8s}")
    rows, notes = [], []
    for name, puzzle, rules in cases():
        cands = propagate(puzzle, rules)
        build_model(cands)  # warm up imports
        ((t_ours, med_ours, model),) = interleaved([lambda: build_model(cands)], args.repeat)
        groups = groups_of(cands)
        probe = random.Random(1).sample(groups, min(20, len(groups)))
        t = time.perf_counter()
        sympy_terms(probe)
        estimate = (time.perf_counter() - t) / len(probe) * len(groups)
        if estimate <= args.sympy_budget:
            t = time.perf_counter()
            bqm_sympy = sympy_route(groups)
            t_sympy, how = time.perf_counter() - t, "full"
            same_sympy = same_energies(model.bqm, bqm_sympy)
        else:
            import dimod

            k = max(20, int(len(groups) * args.sympy_budget / estimate))
            subset = random.Random(2).sample(groups, k)
            t = time.perf_counter()
            bqm_sub = sympy_route(subset)
            t_sympy = (time.perf_counter() - t) * len(groups) / k
            how = f"{k} of {len(groups)} groups timed, extrapolated"
            ref = dimod.BinaryQuadraticModel(dimod.BINARY)
            for labels, w in subset:
                ref.add_linear_equality_constraint([(v, 1.0) for v in labels], w, -1.0)
            same_sympy = same_energies(ref, bqm_sub)
        t_py, med_py, (bqm_py, t_compile) = timed(lambda: pyqubo_route(groups), 3)
        same = {"sympy": same_sympy, "pyqubo": same_energies(model.bqm, bqm_py)}
        rows.append({"case": name, "ours": t_ours, "sympy": t_sympy, "pyqubo": t_py})
        print(f"{name:30s} {model.num_variables:5d} {model.num_interactions:6d} {len(groups):6d} "
              f"{t_ours * 1e3:8.2f} {t_py * 1e3:10.1f} {t_sympy:8.2f} "
              f"{t_sympy / t_ours:8.0f} {t_py / t_ours:8.1f}")
        notes.append(json.dumps({"case": name, "sympy": how, "same_bqm": same,
                                 "ours_median_ms": round(med_ours * 1e3, 3),
                                 "pyqubo_median_ms": round(med_py * 1e3, 2),
                                 "pyqubo_compile_ms": round(t_compile * 1e3, 2)}))
        if name.startswith("seed004"):
            t = time.perf_counter()
            bqm_acc = sympy_accumulated(groups)
            t_acc = time.perf_counter() - t
            notes.append(json.dumps({
                "case": name, "sympy_accumulated_s": round(t_acc, 3),
                "x_ours": round(t_acc / t_ours),
                "same_bqm": same_energies(model.bqm, bqm_acc)}))
    print("\n".join(notes))
    for label, key in (("current builder", "ours"),):
        worst_sympy = min(r["sympy"] / r[key] for r in rows)
        worst_py = min(r["pyqubo"] / r[key] for r in rows)
        big = max(r[key] for r in rows if r["case"].startswith("25x25 70%"))
        print(f"\n{label}: worst ratio vs sympy {worst_sympy:,.0f}x (goal >= 10,000x: "
              f"{'met' if worst_sympy >= 1e4 else 'MISSED'}); worst vs pyqubo (expression + "
              f"compile + to_bqm) {worst_py:.1f}x (goal >= 20x: "
              f"{'met' if worst_py >= 20 else 'MISSED'}); 25x25 with 70% blanks "
              f"{big * 1e3:.2f} ms (goal < 50 ms: {'met' if big < 0.05 else 'MISSED'})")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
