"""Peak memory of ``qsudoku bench`` over a large puzzle input: is the input streamed?

Writes a puzzle file of about ``--mb`` MB (the lines of ``forum_hardest_1106`` repeated)
in a temporary directory, runs ``qsudoku bench FILE --sampler sa --reads 1 --param
num_sweeps=10 --out rows.csv --quiet [--jobs N]`` for ``--seconds`` seconds, then stops it
with SIGINT (the rows so far are kept), sampling every 0.1 s the resident memory of the
whole process tree (the CLI and its Dask workers, with psutil).  Prints the peak, the
rows written and the input's size: a streamed input keeps the peak far below the file's
size (reading it whole took 2.1-2.2 GB for 200 MB).

    python benchmarks/stream_memory.py [--mb 200] [--seconds 60] [--jobs 1]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
HARD = ROOT.parent / "shared" / "data" / "sudoku9" / "forum_hardest_1106.txt"


def tree_rss(proc: psutil.Process) -> int:
    """Resident bytes of ``proc`` and all its descendants (0 for those gone meanwhile)."""
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            continue
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200.0, help="size of the puzzle input (MB)")
    ap.add_argument("--seconds", type=float, default=60.0, help="run time before SIGINT")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--source", default=str(HARD), help="puzzle file whose lines are repeated")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="qsudoku-stream-") as tmp:
        big = os.path.join(tmp, "big.txt")
        text = Path(args.source).read_text()
        with open(big, "w") as f:
            while f.tell() < args.mb * 1024 * 1024:
                f.write(text)
        size = os.path.getsize(big)
        out = os.path.join(tmp, "rows.csv")
        cmd = [sys.executable, "-m", "qsudoku", "bench", big, "--sampler", "sa", "--reads", "1",
               "--param", "num_sweeps=10", "--out", out, "--quiet", "--jobs", str(args.jobs)]
        env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        child = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
        proc = psutil.Process(child.pid)
        peak, start = 0, time.monotonic()
        while child.poll() is None and time.monotonic() - start < args.seconds:
            peak = max(peak, tree_rss(proc))
            time.sleep(0.1)
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
        err = child.communicate(timeout=120)[1]
        with open(out, "rb") as f:
            rows = max(0, sum(1 for _ in f) - 1)
        print(f"input {size / 2**20:.0f} MB, --jobs {args.jobs}, {time.monotonic() - start:.0f} s: "
              f"peak RSS of the process tree {peak / 2**20:.0f} MB, {rows} rows kept, "
              f"exit {child.returncode}")
        if err.strip():
            print(err.strip(), file=sys.stderr)


if __name__ == "__main__":
    main()
