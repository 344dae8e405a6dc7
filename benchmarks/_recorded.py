"""Run a benchmark's tasks through the experiment runner and record where it ran.

Shared by the benchmarks that write a results table (``end_to_end.py``,
``samplers.py``): the rows go through :func:`qsudoku.experiments.runner.run_to`, and
``<out>.machine.json`` records the machine, the job count, the wall time and the
load average at the start and the end, because the machines are shared and a
figure without its load cannot be compared with another.
"""

from __future__ import annotations

import json
import os
import time

from qsudoku.experiments.bench import machine_info
from qsudoku.io.output import write_text
from qsudoku.experiments.table import read_rows
from qsudoku.experiments.runner import run_to


def run_recorded(out: str, tasks: list, *, jobs: int, resume: bool) -> list[dict]:
    """Run ``tasks`` into the table ``out`` (resuming it or starting afresh); return its rows.

    Prints one line with the row count, the wall time and the load average at the end.
    """
    info = machine_info()
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    run_to(out, tasks, resume=resume, overwrite=not resume, jobs=jobs, progress=True)
    rows = read_rows(out)
    elapsed = time.perf_counter() - t0
    load1 = os.getloadavg()[0]
    write_text(out + ".machine.json", json.dumps(
        {**info, "jobs": jobs, "seconds": round(elapsed, 1), "load_average_start": round(load0, 2),
         "load_average_end": round(load1, 2)}, indent=1))
    print(f"{len(rows)} rows in {elapsed:.0f} s; load average at end {load1:.2f}")
    return rows


def print_machine(jobs: int) -> None:
    """Print the machine, the packages measured and the load average before the run."""
    info = machine_info()
    print(f"machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}, "
          f"{info['system']}; jobs {jobs}; load average at start {os.getloadavg()[0]:.2f}")
    print("packages: " + ", ".join(f"{k} {v}" for k, v in info["packages"].items()))
