"""The experiment runner on Dask: speed-up with workers, per-task overhead, and a lost worker.

The same bench of 24 hard 9x9 puzzles (the first 24 of ``forum_hardest_1106``, which
propagation leaves open) with a fixed amount of work per task (``sa``, 8 reads x 4,000
sweeps, seeded), so every configuration does the same work:

1. in this process (``--jobs 1``), numba limited to one thread as in a worker;
2. a local Dask cluster of 1 single-threaded worker; 3. of 2 workers (as ``--jobs 2``).

Prints the wall time of each (cluster start-up apart), the speed-up 2 workers / 1 worker
(goal >= 1.8x on 2 cores) and the Dask overhead per task against in-process (goal <= 5%).
Then ``--kill``: a ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1, the
bench sent to the scheduler, one worker killed (SIGKILL) mid-run: are all rows there, once?

    python benchmarks/runner_scaling.py [--puzzles 24] [--repeat 1] [--kill]
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

from qsudoku.experiments.bench import machine_info, points
from qsudoku.config import Config
from qsudoku.io import load_puzzles
from qsudoku.experiments.table import read_rows
from qsudoku.experiments.runner import Source, make_tasks, run_to

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FILE = DATA / "sudoku9" / "forum_hardest_1106.txt"
CONFIG = Config().with_overrides(sampler="sa", reads=8, seed=1, params={"num_sweeps": 4000})


def tasks(n: int, repeat: int):
    sources = [(Source.file(str(FILE), i, "sudoku9/forum_hardest_1106"), p)
               for i, p in enumerate(load_puzzles(str(FILE))[:n])]
    return make_tasks(sources, points(CONFIG, ["sa"], [None]), repeat)


def timed_run(ts, out: str, **kw) -> tuple[float, list[dict]]:
    t = time.perf_counter()
    rows = run_to(out, ts, **kw)
    return time.perf_counter() - t, rows


def local_cluster(n: int):
    from distributed import LocalCluster

    t = time.perf_counter()
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=40,
                           env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
    return cluster, time.perf_counter() - t


def scaling(args, tmp: str) -> None:
    import numba

    ts = tasks(args.puzzles, args.repeat)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    run_to(None, ts[:1])  # compile / load the kernels in this process
    t_in, rows = timed_run(ts, os.path.join(tmp, "inproc.csv"))
    numba.set_num_threads(threads)
    work = sum(r["wall"] for r in rows)
    print(f"tasks: {len(ts)} ({args.puzzles} puzzles x {args.repeat} repeats), sa 8 reads x 4,000 "
          f"sweeps; summed task wall in-process {work:.2f} s")
    print(f"in-process (numba 1 thread): {t_in:.2f} s")
    walls = {}
    for n in (1, 2):
        cluster, t_start = local_cluster(n)
        try:
            # a first run warms each worker (imports, kernels), as the runner's setup does
            run_to(None, ts[:n], scheduler=cluster.scheduler_address)
            walls[n], rows_n = timed_run(ts, os.path.join(tmp, f"dask{n}.csv"),
                                         scheduler=cluster.scheduler_address)
        finally:
            cluster.close()
        assert len(rows_n) == len(ts) and len({r["key"] for r in rows_n}) == len(ts)
        print(f"Dask, {n} worker{'s' * (n > 1)}: {walls[n]:.2f} s (cluster start {t_start:.1f} s, "
              "not counted)")
    speed = walls[1] / walls[2]
    overhead = (walls[1] - t_in) / len(ts)
    print(f"speed-up 2 workers / 1 worker: {speed:.2f}x (goal >= 1.8x: "
          f"{'met' if speed >= 1.8 else 'MISSED'})")
    print(f"Dask overhead per task vs in-process: {overhead * 1e3:+.1f} ms = "
          f"{100 * overhead / (t_in / len(ts)):+.1f}% of a task (goal <= 5%: "
          f"{'met' if overhead / (t_in / len(ts)) <= 0.05 else 'MISSED'})")


def kill_one_worker(args, tmp: str) -> None:
    sched_file = os.path.join(tmp, "scheduler.json")
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                               "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
                               sched_file], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    try:
        deadline = time.time() + 60
        while not os.path.exists(sched_file) and time.time() < deadline:
            time.sleep(0.1)
        import json

        address = json.load(open(sched_file))["address"]
        workers = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                     "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
                                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for _ in range(2)]
        procs += workers
        ts = tasks(args.puzzles, max(2, args.repeat))
        out = os.path.join(tmp, "killed.csv")

        def killer():
            while len(read_rows(out)) < len(ts) // 4:
                time.sleep(0.05)
            os.kill(workers[0].pid, signal.SIGKILL)
            print(f"killed worker pid {workers[0].pid} after {len(read_rows(out))} rows")

        import threading

        th = threading.Thread(target=killer, daemon=True)
        th.start()
        t, rows = timed_run(ts, out, scheduler=address)
        kept = read_rows(out)
        keys = [r["key"] for r in kept]
        print(f"cluster over TCP on 127.0.0.1, one of 2 workers killed mid-run: {len(kept)} rows "
              f"of {len(ts)} tasks, {len(set(keys))} distinct keys, {t:.1f} s "
              f"({'complete, each once' if len(set(keys)) == len(keys) == len(ts) else 'INCOMPLETE'})")
    finally:
        for p in procs:
            p.kill()
            p.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--puzzles", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--kill", action="store_true", help="also the lost-worker run")
    args = ap.parse_args()
    info = machine_info()
    print(f"machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}; "
          f"dask {info['packages'].get('dask')}, distributed {info['packages'].get('distributed')}; "
          f"load average at start {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        scaling(args, tmp)
        if args.kill:
            kill_one_worker(args, tmp)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
