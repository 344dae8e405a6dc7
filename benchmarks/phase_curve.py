"""The easy-hard-easy curve: success and time to solution across the fraction of givens.

Lewis (J. Heuristics 13:387, 2007) found that a stochastic search needs most effort where
about 40-45% of a random-fraction grid's cells are given: with fewer, many completions
exist; with more, propagation does most of the work.  This script measures that curve for
``sa`` and ``sqa`` as fixed samples (``--reads`` reads per puzzle, all counted, no
fallback: the per-read success probability p with its 95% Wilson interval and the median
TTS99 over puzzles with its 95% bootstrap interval, see docs/measurement.md) and for the
default solve (sampling rounds within its 0.8 s budget, no exact fallback: the share of
puzzles it solves and its median wall time).  A puzzle that propagation solves enters no
sampler's p or TTS (column ``prop``).

Instances: ``data/generated/sudoku{N}/fraction_F.txt`` (shipped, made by ``qsudoku
generate``, 5 per fraction, not unique: any valid grid counts), or with ``--lewis DIR``
the ``lewis_pXX.txt`` files of ``DIR/sudoku{N}`` (``../shared/lewis``, 50 per fraction).

    python benchmarks/phase_curve.py --sizes 9                # ~5 min
    python benchmarks/phase_curve.py --sizes 16 --samplers solve,sa   # ~10 min
    python benchmarks/phase_curve.py --sizes 9 --lewis ../shared/lewis --limit 10

Each size writes ``benchmarks/results/phase_curve_{N}.csv`` (rows), its ``.summary.json``,
a table ``phase_curve_{N}.txt`` and the figure ``figures/phase_curve_{N}.png``, with the
load average (times depend on the machine's load; p does not).  ``--reuse`` redraws them
from the summaries without sampling.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path

from qsudoku.cli import main as qsudoku

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def fraction_files(size: int, lewis: str | None) -> list[tuple[float, Path]]:
    """``(fraction, file)`` of every fraction of ``size``, in order."""
    if lewis:
        found = Path(lewis, f"sudoku{size}").glob("lewis_p*.txt")
        pairs = [(int(re.search(r"_p(\d+)", f.stem).group(1)) / 100, f) for f in found]
    else:
        found = (ROOT / "data" / "generated" / f"sudoku{size}").glob("fraction_*.txt")
        pairs = [(float(f.stem.split("_")[1]), f) for f in found
                 if re.fullmatch(r"fraction_[0-9.]+", f.stem)]
    return sorted(pairs)


def measure(size: int, args) -> tuple[list[tuple[float, Path]], dict]:
    """Run ``qsudoku bench`` over every fraction file of ``size`` (or, with ``--reuse``,
    read the summary a former run wrote); its summary by set."""
    files = fraction_files(size, args.lewis)
    if not files:
        sys.exit(f"no fraction files for {size}x{size}")
    out = RESULTS / f"phase_curve_{size}.csv"
    if args.reuse and out.with_suffix(".summary.json").is_file():
        return files, _by_set(out)
    argv = ["bench", *map(str, (f for _, f in files)), "--first", str(args.limit),
            "--sampler", args.samplers, "--reads", str(args.reads), "--seed", "1",
            "--no-fallback", "--jobs", str(args.jobs), "-o", str(out), "--overwrite",
            "--no-progress", "--quiet"]
    code = qsudoku(argv)
    if code not in (0, 1):
        sys.exit(f"qsudoku {' '.join(argv)} exited {code}")
    return files, _by_set(out)


def _by_set(out: Path) -> dict:
    """``{set: {sampler: summary row}}`` of the summary written beside ``out``."""
    summary = json.loads(out.with_suffix(".summary.json").read_text())["summary"]
    by: dict = {}
    for row in summary:
        by.setdefault(row["set"].split("/")[-1], {})[row["sampler"]] = row
    return by


def ms(x) -> str:
    return "inf" if x is None or (isinstance(x, float) and math.isinf(x)) else f"{1e3 * x:.1f}"


def table(size: int, files, by: dict, samplers: list[str]) -> list[str]:
    lines = [f"\n{size}x{size}: fraction given | "
             + " | ".join("solve solved %, wall med ms" if s == "solve"
                          else f"{s} prop, p [95% CI], TTS99 med ms [95% CI]" for s in samplers)]
    for fraction, f in files:
        cells = []
        for s in samplers:
            r = by.get(f.stem, {}).get(s)
            if r is None:
                cells.append("-")
            elif s == "solve":
                cells.append(f"{r['solved_pct']:.0f}%, {ms(r['wall_median'])}")
            elif r.get("p_read") is None:
                cells.append(f"prop {r['propagation']}, -")
            else:
                cells.append(f"prop {r['propagation']}, {r['p_read']:.3f} "
                             f"[{r['p_read_low']:.3f}, {r['p_read_high']:.3f}], "
                             f"{ms(r['tts99_median'])} [{ms(r['tts99_median_low'])}, "
                             f"{ms(r['tts99_median_high'])}]")
        lines.append(f"  {fraction:.2f} | " + " | ".join(cells))
    return lines


def draw(curves: dict, samplers: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(curves), figsize=(5.5 * len(curves), 7), squeeze=False)
    for col, (size, (files, by)) in enumerate(sorted(curves.items())):
        top, bottom = axes[0][col], axes[1][col]
        for s in samplers:
            xs, ys, lo, hi, ts, tlo, thi, txs = [], [], [], [], [], [], [], []
            for fraction, f in files:
                r = by.get(f.stem, {}).get(s)
                if r is None:
                    continue
                if s == "solve":
                    xs.append(fraction)
                    ys.append(r["solved_pct"] / 100)
                    lo.append(0.0)
                    hi.append(0.0)
                    continue
                if r.get("p_read") is None:
                    continue
                xs.append(fraction)
                ys.append(r["p_read"])
                lo.append(r["p_read"] - r["p_read_low"])
                hi.append(r["p_read_high"] - r["p_read"])
                t = r["tts99_median"]
                if t is not None and math.isfinite(t):
                    txs.append(fraction)
                    ts.append(t)
                    tlo.append(t - r["tts99_median_low"])
                    high = r["tts99_median_high"]
                    thi.append((high - t) if high is not None and math.isfinite(high) else t * 9)
            label = "default solve: share solved" if s == "solve" else f"{s}: p per read"
            colour = f"C{samplers.index(s)}"  # one colour per sampler in both panels
            top.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=3, capsize=2, label=label,
                         color=colour)
            if ts:
                bottom.errorbar(txs, ts, yerr=[tlo, thi], marker="o", ms=3, capsize=2,
                                label=f"{s}: median TTS99", color=colour)
        top.set_title(f"{size}x{size}")
        top.set_ylabel("success")
        top.set_ylim(-0.05, 1.05)
        bottom.set_yscale("log")
        bottom.set_ylabel("median TTS99 (s)")
        bottom.set_xlabel("fraction of cells given")
        top.legend(fontsize=7)
        bottom.legend(fontsize=7)
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="9")
    ap.add_argument("--samplers", default="solve,sa,sqa")
    ap.add_argument("--reads", type=int, default=20)
    ap.add_argument("--limit", type=int, default=5, help="instances per fraction")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--lewis", help="a directory with sudoku{N}/lewis_pXX.txt")
    ap.add_argument("--reuse", action="store_true",
                    help="draw from the summaries a former run wrote, without sampling")
    args = ap.parse_args(argv)
    samplers = args.samplers.split(",")
    command = "python benchmarks/phase_curve.py " + " ".join(argv or sys.argv[1:])
    source = args.lewis or "data/generated"
    for size in map(int, args.sizes.split(",")):
        lines = [f"command: {command}", f"load average at start: {os.getloadavg()}"
                 + (" (--reuse: the rows and their load are in the .csv and its "
                    ".machine.json)" if args.reuse else "")]
        curve = measure(size, args)
        lines += table(size, *curve, samplers)
        lines.append(f"load average at end: {os.getloadavg()}")
        print("\n".join(lines), flush=True)
        (RESULTS / f"phase_curve_{size}.txt").write_text("\n".join(lines) + "\n")
        draw({size: curve}, samplers, RESULTS / "figures" / f"phase_curve_{size}.png",
             f"{command}\n{args.limit} instances per fraction from {source}; {args.reads} "
             f"reads per puzzle; 95% intervals; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
