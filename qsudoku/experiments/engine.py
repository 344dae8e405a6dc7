"""Run batches of work in this process, on a local Dask cluster or on a remote one.

:func:`run_batches` is the execution engine of :mod:`qsudoku.experiments.runner`: it sends
each batch to ``fn`` and yields the results as they finish (``docs/cluster.md``).  Batches
are taken as they are needed, at most ``window`` in flight.  A worker lost mid-run is
Dask's business (its tasks run again, each batch is yielded once); Ctrl-C, SIGTERM, an
exception, an early stop and completion all cancel what is left and shut a local cluster
down.

>>> list(run_batches(sum, [[1, 2], [3]]))
[(0, 3), (1, 3)]
>>> resolve_scheduler("tcp://10.0.0.5:8786")
'tcp://10.0.0.5:8786'
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import sys
import uuid
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator, cast

from qsudoku.config import MIN_WORKER_MEMORY, need_worker_memory
from qsudoku.errors import BackendUnavailableError, ConfigError
from qsudoku.experiments.scheduler import (check_waits, connect, resolve_scheduler,
                                           wait_for_workers)
from qsudoku.experiments.table import terminate_as_interrupt

__all__ = ["run_batches", "Cluster", "resolve_scheduler", "WORKER_ENV", "IN_FLIGHT_PER_WORKER"]

#: Environment of local worker processes: one thread per task, kernels included.
WORKER_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


#: Batches in flight per worker thread by default: the read-ahead of a streamed input.
IN_FLIGHT_PER_WORKER = 4


@dataclass(frozen=True)
class Cluster:
    """Where batches run: the keywords of :func:`run_batches` that name the cluster.

    Attributes:
        jobs: ``1``: in this process, in order, without Dask; ``N > 1``: a local Dask
            cluster of ``N`` single-threaded worker processes; ``0``: one per CPU;
            ignored when there is a scheduler.
        scheduler: Address of an existing Dask scheduler (``tcp://host:8786``); default
            from ``QSUDOKU_SCHEDULER``.
        timeout: Seconds the scheduler has to answer (default
            ``QSUDOKU_SCHEDULER_TIMEOUT`` or 15).
        window: Most batches in flight on a cluster (default:
            :data:`IN_FLIGHT_PER_WORKER` per worker thread, counted when the run starts).
        worker_timeout: Seconds to wait for a first worker of a scheduler that has none
            (default ``QSUDOKU_WORKER_TIMEOUT`` or 60).
        worker_memory: Memory limit of each local worker (``"auto"`` = the machine's
            memory shared equally, ``"2GiB"``, bytes, or 0 = none); past it Dask restarts
            the worker and retries the batch.  Ignored with a scheduler.
    """

    jobs: int = 1
    scheduler: str | None = None
    timeout: float | None = None
    window: int | None = None
    worker_timeout: float | None = None
    worker_memory: str | int = "auto"


def run_batches(fn: Callable[[Any], Any], batches: Iterable, *, setup: Callable | None = None,
                setup_args: tuple = (), on_start: Callable[[str], None] | None = None,
                **cluster) -> Iterator[tuple[int, Any]]:
    """Yield ``(batch_position, fn(batch))`` as batches finish, in completion order.

    Args:
        fn: A module-level (importable) function of one batch; batches and results
            must pickle unless the run is in-process.
        batches: The batches (each yielded exactly once), taken as they are needed.
        setup: Module-level function run as ``setup(*setup_args)`` once on every
            worker before its tasks, also on workers that join later (in-process: once,
            first); its exceptions are logged and ignored.
        setup_args: Picklable arguments of ``setup``.
        on_start: Called with a one-line description of where the batches run.
        **cluster: Where the batches run: the fields of :class:`Cluster`.

    Returns:
        A generator; the cluster starts on the first ``next``; ``close()`` (an early stop),
        exhaustion, Ctrl-C and SIGTERM (raised as :class:`KeyboardInterrupt`) cancel the
        rest and stop the workers.

    Raises:
        BackendUnavailableError: The scheduler cannot be reached or does not answer in
            time, has no worker in time, or was lost, or every worker that ran a batch
            died (one line each).
        ConfigError: ``jobs < 0``, a malformed scheduler address or a bad timeout.
        KeyboardInterrupt: Ctrl-C or SIGTERM, after every local worker has been stopped.
        Exception: Whatever a batch raised, re-raised here.
    """
    c = Cluster(**cluster)
    if c.jobs < 0:
        raise ConfigError(f"jobs = {c.jobs} must be >= 0 (0 = one per CPU)")
    memory = need_worker_memory("worker_memory", c.worker_memory)
    address = resolve_scheduler(c.scheduler)
    jobs = c.jobs
    if address is None:
        jobs = jobs or os.cpu_count() or 1
        if jobs == 1:
            return _in_process(fn, iter(batches), (setup, setup_args), on_start)
    timeout, worker_timeout = check_waits(c.timeout, c.worker_timeout)
    c = replace(c, jobs=jobs, scheduler=address, worker_memory=memory, timeout=timeout,
                worker_timeout=worker_timeout)
    return _on_dask(fn, iter(batches), c, (setup, setup_args), on_start)


_END = object()


def _peeked(batches):
    """``batches`` again, its first taken ahead (``None`` if there is none)."""
    first = next(batches, _END)
    return None if first is _END else itertools.chain([first], batches)


def _in_process(fn, batches, setup: tuple, on_start) -> Iterator[tuple[int, Any]]:
    batches = _peeked(batches)
    if batches is None:
        return
    with terminate_as_interrupt():
        if on_start is not None:
            on_start("in this process")
        if setup[0] is not None:
            _run_setup(*setup)
        for i, batch in enumerate(batches):
            yield i, fn(batch)


def _run_setup(setup, setup_args) -> None:
    try:
        setup(*setup_args)
    except Exception as e:  # noqa: BLE001 - the tasks report their own errors
        logging.getLogger(__name__).warning("setup %s failed: %s: %s",
                                            getattr(setup, "__name__", setup),
                                            type(e).__name__, e)


class _WorkerSetupMixin:
    """Worker plugin: one numba thread (unless the worker's environment says otherwise),
    SIGINT left to the client (local cluster), then ``setup(*args)``."""

    def __init__(self, setup=None, args: tuple = (), ignore_sigint: bool = False):
        self.setup_fn = setup
        self.args = tuple(args)
        self.ignore_sigint = ignore_sigint

    async def setup(self, worker) -> None:  # noqa: D102 - WorkerPlugin API
        import asyncio

        if "numba" not in sys.modules:
            for k, v in WORKER_ENV.items():
                os.environ.setdefault(k, v)
        if self.ignore_sigint:  # Ctrl-C reaches the whole process group: the client
            with contextlib.suppress(ValueError):  # stops the workers, cleanly
                signal.signal(signal.SIGINT, signal.SIG_IGN)
        if self.setup_fn is not None:  # in a thread: the worker keeps its heartbeats
            await asyncio.get_running_loop().run_in_executor(
                None, _run_setup, self.setup_fn, self.args)


def __getattr__(name: str):
    """``WorkerSetup``, a :class:`distributed.WorkerPlugin`, made on first use (no Dask
    import for ``jobs=1``); pickles by name."""
    if name != "WorkerSetup":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _worker_setup_class()


def _worker_setup_class() -> type:
    cls = globals().get("WorkerSetup")
    if cls is None:
        from distributed import WorkerPlugin

        cls = type("WorkerSetup", (_WorkerSetupMixin, WorkerPlugin),
                   {"__module__": __name__, "__doc__": _WorkerSetupMixin.__doc__})
        globals()["WorkerSetup"] = cls
    return cls


@contextlib.contextmanager
def _quiet_logs(level: int = logging.CRITICAL):
    """Dask's own logging (reconnects, lost workers, shutdown chatter) off during a run."""
    names = [n for n in list(logging.root.manager.loggerDict)
             if n.split(".")[0] in ("distributed", "tornado")]
    loggers = [logging.getLogger(n) for n in {"distributed", "tornado", "asyncio", *names}]
    old = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(level)
    try:
        yield
    finally:
        for lg, lv in zip(loggers, old):
            lg.setLevel(lv)


def _on_dask(fn, batches, c: Cluster, setup: tuple, on_start) -> Iterator[tuple[int, Any]]:
    batches = _peeked(batches)
    if batches is None:
        return
    from concurrent.futures import CancelledError

    from distributed import KilledWorker, as_completed

    cluster = client = None
    jobs, address, window = c.jobs, c.scheduler, c.window
    limit = 0  # each local worker's memory limit (bytes; 0 = none)
    plugin = f"qsudoku-setup-{uuid.uuid4().hex[:12]}"
    pending: dict = {}
    with terminate_as_interrupt(), _quiet_logs():
        try:
            if address is not None:
                client = connect(address, cast(float, c.timeout))  # resolved by run_batches
                nthreads = wait_for_workers(client, address, cast(float, c.worker_timeout),
                                            on_start)
                info = (f"Dask scheduler {address}: {len(nthreads)} workers, "
                        f"{sum(nthreads.values())} threads")
            else:
                cluster, client = _local_cluster(jobs, c.worker_memory)
                from dask.utils import format_bytes

                limit = next(iter(cluster.workers.values())).memory_manager.memory_limit or 0
                info = (f"local Dask cluster: {jobs} workers, memory limit "
                        f"{format_bytes(limit) if limit else 'none'} each")
                if 0 < limit < MIN_WORKER_MEMORY:  # "auto" over many jobs
                    raise ConfigError(
                        f"each of the {jobs} local Dask workers would get {format_bytes(limit)} "
                        f"of memory, below the {MIN_WORKER_MEMORY >> 20} MiB one needs to run "
                        "qsudoku; lower --jobs or set --worker-memory (0 = no limit)")
            local = address is None
            client.register_plugin(_worker_setup_class()(*setup, local), name=plugin)
            if on_start is not None:
                on_start(info)
            position: dict = {}
            done = as_completed(loop=client.loop)
            count = itertools.count()

            def submit() -> None:
                batch = next(batches, _END)
                if batch is not _END:
                    fut = client.submit(fn, batch, pure=False)
                    position[fut.key] = next(count)
                    pending[fut.key] = fut
                    done.add(fut)

            if window is None:
                window = IN_FLIGHT_PER_WORKER * (sum(nthreads.values()) if address else jobs)
            for _ in range(max(1, window)):
                submit()
            for fut in done:
                if pending.pop(fut.key, None) is None:
                    continue  # already yielded: never twice
                try:
                    result = fut.result()  # a batch's exception is raised here
                except (KilledWorker, CancelledError) as e:  # the cluster, not the batch
                    raise BackendUnavailableError(_lost(position[fut.key], address, e)
                                                  + _memory_hint(limit)) from None
                fut.release()
                submit()  # the next batch is read only now: a bounded window
                yield position.pop(fut.key), result
        except OSError as e:  # a comm closed under us: workers that died (memory), not a bug
            if type(e).__module__.split(".")[0] != "distributed":
                raise
            where = f"the Dask scheduler at {address}" if address else "the local Dask cluster"
            raise BackendUnavailableError(f"lost the connection to {where} ({type(e).__name__})"
                                          + _memory_hint(limit)) from None
        finally:
            _shutdown(client, cluster, list(pending.values()), plugin)


def _lost(position: int, address: str | None, e: BaseException) -> str:
    where = f"the Dask scheduler at {address}" if address else "the local Dask cluster"
    if type(e).__name__ == "KilledWorker":
        return (f"batch {position} was running on every worker that died "
                f"(distributed.scheduler.allowed-failures); {where} gave up on it")
    return f"batch {position} was cancelled: lost the connection to {where}"


def _memory_hint(limit: int) -> str:
    """What to say of a local worker's memory limit when workers died."""
    if not limit:
        return ""
    from dask.utils import format_bytes

    return (f"; a local worker is restarted when it passes 95% of its memory limit of "
            f"{format_bytes(limit)}: raise --worker-memory (0 = no limit)")


def _local_cluster(jobs: int, worker_memory: str | int = "auto"):
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                           memory_limit=worker_memory,
                           host="127.0.0.1", dashboard_address=None,
                           silence_logs=logging.CRITICAL, env=dict(WORKER_ENV),
                           # no dashboard; its health routes on a free loopback port
                           scheduler_kwargs={"dashboard": False,
                                             "dashboard_address": "127.0.0.1:0"})
    try:
        return cluster, Client(cluster, set_as_default=False)
    except BaseException:
        cluster.close()
        raise


def _shutdown(client, cluster, pending: list, plugin: str) -> None:
    """Cancel what is left and close the client and the local cluster (SIGINT ignored)."""
    old = None
    with contextlib.suppress(ValueError):
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        if client is not None:
            with contextlib.suppress(Exception):
                if pending:
                    client.cancel(pending, force=True)
            if cluster is None:  # a shared cluster: later workers need not run our setup
                with contextlib.suppress(Exception):
                    client.unregister_worker_plugin(plugin)
            with contextlib.suppress(Exception):
                client.close(timeout=10)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=10)
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)
