"""qsudoku.experiments.engine on real Dask: in-process, a local cluster, a scheduler with workers as
separate processes (one of them killed mid-run), an unreachable scheduler, interrupts."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from qsudoku.experiments.engine import WORKER_ENV, run_batches
from qsudoku.errors import BackendUnavailableError, ConfigError
from qsudoku.experiments.table import RowWriter, read_rows

import _engine_tasks as tasks

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _our_children(before: set[int], wait: float = 10.0) -> list[str]:
    """Processes started since ``before`` that are still alive after at most ``wait`` s
    (multiprocessing's resource tracker, one per interpreter, does not count)."""
    deadline = time.time() + wait
    while True:
        alive = []
        for p in psutil.Process().children(recursive=True):
            try:
                if p.pid in before or p.status() == psutil.STATUS_ZOMBIE:
                    continue
                cmd = " ".join(p.cmdline())
            except psutil.NoSuchProcess:
                continue
            if "resource_tracker" not in cmd:
                alive.append(f"{p.pid}: {cmd[:100]}")
        if not alive or time.time() > deadline:
            return alive
        time.sleep(0.2)


@pytest.fixture
def no_leftover_processes():
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    yield
    assert _our_children(before) == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- in this process -------------------------------------------------------------------

@pytest.mark.slow
def test_in_process_runs_in_order_with_setup_once_and_without_dask():
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "import _engine_tasks as t\n"
        "from qsudoku.experiments.engine import run_batches\n"
        "notes = []\n"
        "out = list(run_batches(t.where, [[0, 1], [2]], setup=t.setup, setup_args=('w',),"
        " on_start=notes.append))\n"
        "import json, os; print(json.dumps([out, t.SETUPS, notes, os.getpid(),"
        " [m for m in ('dask', 'distributed') if m in sys.modules]]))\n" % str(HERE))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=REPO)
    assert res.returncode == 0, res.stderr
    out, setups, notes, pid, imported = json.loads(res.stdout)
    assert [pos for pos, _ in out] == [0, 1]
    assert [r["key"] for _, rows in out for r in rows] == [0, 1, 2]
    assert {r["pid"] for _, rows in out for r in rows} == {pid}
    assert setups == ["w"] and all(r["setups"] == 1 for _, rows in out for r in rows)
    assert notes == ["in this process"] and imported == []


def test_in_process_setup_errors_are_ignored_and_batch_errors_raised():
    assert list(run_batches(tasks.boom, [[1], [2]], setup=tasks.failing_setup)) == [
        (0, [1]), (1, [2])]
    with pytest.raises(ZeroDivisionError, match="batch 3"):
        list(run_batches(tasks.boom, [[1], [3]]))
    assert list(run_batches(tasks.boom, [])) == []
    with pytest.raises(ConfigError):
        run_batches(tasks.boom, [[1]], jobs=-1)


# -- a local Dask cluster ----------------------------------------------------------------

@pytest.mark.slow
def test_local_cluster_two_workers_one_numba_thread_setup_once(no_leftover_processes):
    notes: list[str] = []
    batches = [[i] for i in range(12)]
    out = list(run_batches(tasks.where, batches, jobs=2, setup=tasks.setup,
                           setup_args=("warm",), on_start=notes.append))
    assert sorted(pos for pos, _ in out) == list(range(12))  # each batch exactly once
    rows = [r for _, rs in out for r in rs]
    assert sorted(r["key"] for r in rows) == list(range(12))
    assert len({r["pid"] for r in rows}) == 2 and os.getpid() not in {r["pid"] for r in rows}
    assert {r["numba"] for r in rows} == {WORKER_ENV["NUMBA_NUM_THREADS"]} == {"1"}
    assert {r["setups"] for r in rows} == {1}  # once per worker, before its tasks
    assert len(notes) == 1 and notes[0].startswith("local Dask cluster: 2 workers, memory "
                                                   "limit ")  # "auto": the machine's share
    assert tasks.SETUPS == [] or "warm" not in tasks.SETUPS  # not in this process


@pytest.mark.slow
def test_local_cluster_reraises_a_batch_error_and_stops(no_leftover_processes):
    with pytest.raises(ZeroDivisionError, match="batch 3"):
        for _ in run_batches(tasks.boom, [[i] for i in range(6)], jobs=2,
                             setup=tasks.failing_setup):
            pass


@pytest.mark.slow
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "close"])
def test_interrupt_stops_every_worker_and_keeps_written_rows(tmp_path, how,
                                                             no_leftover_processes):
    out = str(tmp_path / "r.csv")
    written = []
    batches = [[i] for i in range(40)]

    def consume(results, w):
        for _, rows in results:
            for row in rows:
                assert w.write(row)
                written.append(str(row["key"]))
            if len(written) >= 3:
                if how == "ctrl-c":
                    raise KeyboardInterrupt
                if how == "sigterm":
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(5)  # the handler raises KeyboardInterrupt here
                    pytest.fail("SIGTERM did not interrupt")
                return

    with RowWriter(out, ("key",)) as w:
        if how == "close":  # the consumer stops early and closes the generator
            gen = run_batches(tasks.sleepy, batches, jobs=2)
            consume(gen, w)
            gen.close()
        else:
            with pytest.raises(KeyboardInterrupt):
                consume(run_batches(tasks.sleepy, batches, jobs=2), w)
    assert 3 <= len(written) < 40
    assert [r["key"] for r in read_rows(out)] == written
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # handler restored


# -- a scheduler and workers as separate processes ---------------------------------------

@pytest.fixture
def dask_cluster(tmp_path):
    """A ``dask scheduler`` and two single-threaded nanny-less ``dask worker`` processes,
    all on 127.0.0.1; yields ``(address, [worker Popen], scheduler Popen)``."""
    sched_file = tmp_path / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(HERE), str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    logs = open(tmp_path / "dask.log", "w")
    procs = [subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", "0", "--no-dashboard", "--scheduler-file", str(sched_file)],
        env=env, cwd=tmp_path, stdout=logs, stderr=subprocess.STDOUT)]
    try:
        deadline = time.time() + 30
        while not sched_file.exists() or not sched_file.read_text().strip():
            assert time.time() < deadline and procs[0].poll() is None, "no scheduler"
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        workers = [subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
             "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"],
            env=env, cwd=tmp_path, stdout=logs, stderr=subprocess.STDOUT) for _ in range(2)]
        procs += workers
        from distributed import Client

        with Client(address, timeout=30, set_as_default=False) as c:
            c.wait_for_workers(2, timeout=30)
        yield address, workers, procs[0]
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        logs.close()


@pytest.mark.slow
def test_worker_killed_mid_run_every_batch_exactly_once(tmp_path, dask_cluster):
    address, workers, _ = dask_cluster
    notes: list[str] = []
    out = str(tmp_path / "rows.csv")
    positions, pids = [], set()
    killed = None
    made: list[int] = []

    def batches():  # taken as the run needs them: at most `window` in flight
        for i in range(20):
            made.append(i)
            yield [i]

    with RowWriter(out, ("key",)) as w:
        for pos, rows in run_batches(tasks.sleepy, batches(), window=3,
                                     scheduler=address, setup=tasks.setup, setup_args=("x",),
                                     on_start=notes.append):
            positions.append(pos)
            assert len(made) <= len(positions) + 3
            for row in rows:
                w.write(row)
                pids.add(row["pid"])
            if killed is None and len(positions) == 4:
                killed = workers[0].pid
                os.kill(killed, signal.SIGKILL)  # the worker is lost mid-run
    assert workers[0].wait(timeout=10) == -signal.SIGKILL
    assert notes == [f"Dask scheduler {address}: 2 workers, 2 threads"]
    assert sorted(positions) == list(range(20))  # every batch, exactly once
    keys = [r["key"] for r in read_rows(out)]
    assert sorted(keys, key=int) == [str(i) for i in range(20)]
    assert len(pids) == 2  # both ran batches; the survivor finished the run


@pytest.mark.slow
def test_losing_the_scheduler_is_a_backend_error_not_a_hang(dask_cluster):
    address, _, scheduler = dask_cluster
    done = []
    with pytest.raises(BackendUnavailableError) as e:
        for pos, _ in run_batches(tasks.sleepy, [[i] for i in range(30)], scheduler=address):
            done.append(pos)
            if len(done) == 2:
                scheduler.kill()
    assert address in str(e.value) and "\n" not in str(e.value) and len(done) < 30


@pytest.mark.slow
def test_unreachable_scheduler_is_one_line_within_seconds():
    address = f"tcp://127.0.0.1:{_free_port()}"
    t0 = time.time()
    with pytest.raises(BackendUnavailableError) as e:
        list(run_batches(tasks.where, [[1]], scheduler=address, timeout=3))
    assert time.time() - t0 < 10
    assert address in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ConfigError, match="not valid"):
        list(run_batches(tasks.where, [[1]], scheduler="tcp://127.0.0.1"))  # no port


def test_scheduler_comes_from_the_environment(monkeypatch):
    from qsudoku.experiments.engine import resolve_scheduler

    monkeypatch.setenv("QSUDOKU_SCHEDULER", "tcp://127.0.0.1:1")
    assert resolve_scheduler() == "tcp://127.0.0.1:1"
    assert resolve_scheduler("tcp://h:2") == "tcp://h:2"
    monkeypatch.setenv("QSUDOKU_SCHEDULER", "")
    assert resolve_scheduler() is None
