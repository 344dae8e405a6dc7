"""Peak memory of ``qsudoku bench`` over a large puzzle input: is the input streamed?

Writes a puzzle file of about ``--mb`` MB (the lines of ``forum_hardest_1106`` repeated)
in a temporary directory, runs ``qsudoku bench FILE --sampler sa --reads 1 --param
num_sweeps=10 --out rows.csv --quiet [--jobs N]`` for ``--seconds`` seconds, then stops it
with SIGINT (the rows so far are kept), sampling every 0.1 s the resident memory of the
whole process tree (the CLI and its Dask workers, with psutil).  Prints the peak, the
rows written and the input's size: a streamed input keeps the peak far below the file's
size (reading it whole took 2.1-2.2 GB for 200 MB).

    python benchmarks/stream_memory.py [--mb 200] [--seconds 60] [--jobs 1]

With ``--results ROWS`` it measures instead the two places that read a whole results
file back: ``--resume`` rewriting the old rows into the new journal, and a ``.parquet``
output written from its journal when the run closes.  It writes a journal of ROWS rows
(the rows of ``--rows-from``, a real small bench output, repeated with their keys made
unique) and runs, each in its own process, whose peak RSS (``ru_maxrss``) it prints:

* ``resume``: ``RowWriter(rows.csv, ("key",), resume=True).close()``;
* ``parquet``: ``RowWriter(rows.parquet, ("key",), resume=True).close()`` over the
  journal ``rows.parquet.partial.csv`` (the resume rewrite, then the conversion);
* ``convert``: the conversion alone (``experiments.convert.write_parquet``, or where
  that module is missing, the whole-frame conversion ``RowWriter`` did before it).

The resume keeps the set of keys it read (the rows the run skips): that set, about
0.2 KB a row of ``bench``, is what grows with the file.

``--package DIR`` imports qsudoku from DIR (e.g. an export of an older commit), to
compare before and after.

    python benchmarks/stream_memory.py --results 1000000 --rows-from small.csv [--package DIR]
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


_MEASURE = ("import resource, sys\n"
            "from qsudoku.experiments.table import RowWriter\n"
            "RowWriter(sys.argv[1], ('key',), resume=True).close()\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
_CONVERT = ("import resource, sys\n"
            "journal, target = sys.argv[1] + '.partial.csv', sys.argv[1]\n"
            "try:\n"
            "    from qsudoku.experiments.convert import write_parquet\n"
            "except ImportError:  # before: one DataFrame of every row\n"
            "    import pandas as pd\n"
            "    from qsudoku.experiments.table import read_rows\n"
            "    df = pd.DataFrame(read_rows(journal))\n"
            "    for col in df.columns:\n"
            "        try:\n"
            "            df[col] = pd.to_numeric(df[col])\n"
            "        except (ValueError, TypeError):\n"
            "            pass\n"
            "    df.to_parquet(target, index=False, engine='pyarrow')\n"
            "else:\n"
            "    with open(target, 'wb') as f:\n"
            "        write_parquet(journal, f)\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")


def write_journal(path: str, source: str, rows: int) -> int:
    """Write ``rows`` rows to the CSV ``path``: the rows of ``source`` repeated, each copy's
    ``key`` made unique with ``#<copy>``; returns the file's size in bytes."""
    import csv

    with open(source, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        base = list(reader)
    at = header.index("key")
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")  # as csv.DictWriter writes rows
        w.writerow(header)
        for i in range(rows):
            row = list(base[i % len(base)])
            row[at] = f"{row[at]}#{i // len(base)}"
            w.writerow(row)
    return os.path.getsize(path)


def measure_results(args) -> None:
    """Peak RSS of the resume rewrite and of the Parquet conversion of a large journal."""
    package = os.path.abspath(args.package)
    env = {**os.environ, "PYTHONPATH": package}
    with tempfile.TemporaryDirectory(prefix="qsudoku-results-", dir=args.tmp) as tmp:
        for name, target, journal, code in (
                ("resume", "rows.csv", "rows.csv", _MEASURE),
                ("parquet", "rows.parquet", "rows.parquet.partial.csv", _MEASURE),
                ("convert", "rows.parquet", "rows.parquet.partial.csv", _CONVERT)):
            if name not in args.only:
                continue
            size = write_journal(os.path.join(tmp, journal), args.rows_from, args.results)
            start = time.monotonic()
            proc = subprocess.run([sys.executable, "-c", code, os.path.join(tmp, target)],
                                  env=env, capture_output=True, text=True)
            took = time.monotonic() - start
            if proc.returncode != 0:
                print(f"{name}: exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
                continue
            peak = int(proc.stdout.split()[-1]) * 1024
            out = os.path.getsize(os.path.join(tmp, target))
            print(f"{name}: {args.results} rows, journal {size / 2**20:.0f} MB -> {target} "
                  f"{out / 2**20:.0f} MB in {took:.0f} s, peak RSS {peak / 2**20:.0f} MB "
                  f"(qsudoku from {package}; load average "
                  f"{' '.join(f'{x:.2f}' for x in os.getloadavg())})")
            for p in os.listdir(tmp):
                os.remove(os.path.join(tmp, p))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200.0, help="size of the puzzle input (MB)")
    ap.add_argument("--seconds", type=float, default=60.0, help="run time before SIGINT")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--source", default=str(HARD), help="puzzle file whose lines are repeated")
    ap.add_argument("--results", type=int, metavar="ROWS",
                    help="measure the resume rewrite and the Parquet conversion of ROWS rows")
    ap.add_argument("--rows-from", help="a small real results CSV whose rows are repeated")
    ap.add_argument("--package", default=str(ROOT), help="directory qsudoku is imported from")
    ap.add_argument("--tmp", default=None, help="directory for the temporary files")
    ap.add_argument("--only", default="resume,parquet,convert",
                    help="which of resume,parquet,convert to measure")
    args = ap.parse_args()
    if args.results:
        if not args.rows_from:
            ap.error("--results needs --rows-from")
        measure_results(args)
        return
    with tempfile.TemporaryDirectory(prefix="qsudoku-stream-") as tmp:
        big = os.path.join(tmp, "big.txt")
        text = Path(args.source).read_text()
        with open(big, "w") as f:
            while f.tell() < args.mb * 1024 * 1024:
                f.write(text)
        size = os.path.getsize(big)
        out = os.path.join(tmp, "rows.csv")
        cmd = [sys.executable, "-m", "qsudoku", "bench", big, "--sampler", "sa", "--reads", "1",
               "--param", "num_sweeps=10", "-o", out, "--quiet", "--jobs", str(args.jobs)]
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
