"""Reaching a Dask scheduler within a real deadline.

:func:`connect` first asks the scheduler who it is (:func:`probe`) with a deadline of
its own, because a :class:`distributed.Client` to a listener that accepts and never
answers waits forever; then it makes the Client.  :func:`wait_for_workers` reports a
scheduler without workers and waits a bounded time for one.  The waits come from
``QSUDOKU_SCHEDULER_TIMEOUT`` and ``QSUDOKU_WORKER_TIMEOUT`` (:func:`check_waits`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import sys

from qsudoku.errors import BackendUnavailableError, ConfigError
from qsudoku.samplers.redact import redact, url_secrets

__all__ = ["SCHEDULER_ENV", "TIMEOUT_ENV", "WORKER_TIMEOUT_ENV", "MAX_WAIT", "DEFAULT_TIMEOUT",
           "DEFAULT_WORKER_TIMEOUT", "seconds_from_env", "resolve_scheduler", "check_waits",
           "connect", "probe", "wait_for_workers"]

#: Environment variable naming the default scheduler address.
SCHEDULER_ENV = "QSUDOKU_SCHEDULER"
#: Environment variable with the seconds a scheduler has to answer (default 15).
TIMEOUT_ENV = "QSUDOKU_SCHEDULER_TIMEOUT"
#: Environment variable with the seconds to wait for a first worker (default 60).
WORKER_TIMEOUT_ENV = "QSUDOKU_WORKER_TIMEOUT"
#: Longest wait either variable may ask for (one day).
MAX_WAIT = 86400.0
DEFAULT_TIMEOUT = 15.0
DEFAULT_WORKER_TIMEOUT = 60.0


def seconds_from_env(name: str, default: float) -> float:
    """A wait in seconds from the environment variable ``name`` (``default`` if unset).

    Raises:
        ConfigError: Not a finite number of seconds > 0 and <= :data:`MAX_WAIT` (one line).

    >>> seconds_from_env("QSUDOKU_NO_SUCH_VARIABLE", 3.0)
    3.0
    """
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_WAIT):
        raise ConfigError(f"{name}={text[:40]!r} must be a number of seconds > 0 and "
                          f"<= {MAX_WAIT:g}")
    return value


def resolve_scheduler(scheduler: str | None = None) -> str | None:
    """The scheduler address: the argument, else the ``QSUDOKU_SCHEDULER`` environment
    variable, else ``None`` (run locally).

    >>> resolve_scheduler(None) is None or SCHEDULER_ENV in os.environ
    True
    """
    address = scheduler or os.environ.get(SCHEDULER_ENV, "").strip()
    return address or None


def check_waits(timeout: float | None = None, worker_timeout: float | None = None
                ) -> tuple[float, float]:
    """``(scheduler timeout, worker wait)``: each as given, else from the environment,
    checked (see :func:`seconds_from_env`)."""
    return (seconds_from_env(TIMEOUT_ENV, DEFAULT_TIMEOUT) if timeout is None else timeout,
            seconds_from_env(WORKER_TIMEOUT_ENV, DEFAULT_WORKER_TIMEOUT)
            if worker_timeout is None else worker_timeout)


def connect(address: str, timeout: float):
    """A :class:`distributed.Client` of the scheduler at ``address``, once it answered
    :func:`probe` within ``timeout`` seconds.

    Raises:
        ConfigError: A malformed address, or one with a ``user:password@`` (masked in
            the message).
        BackendUnavailableError: No connection, no answer in time, or not a scheduler.
    """
    from distributed import Client
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    if url_secrets(address):  # no Dask address holds one; never quoted back
        raise ConfigError(f"scheduler address {redact(address, url_secrets(address))!r} holds "
                          "a user and password, which no Dask address does (a secured "
                          "cluster uses tls:// with certificates)")
    try:  # a bad address must fail before a Client exists (its clean-up would hang)
        protocol, location = parse_address(address)
        get_backend(protocol)
        if protocol in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as e:
        raise ConfigError(f"scheduler address {address!r} is not valid: "
                          f"{str(e).splitlines()[0]}") from None
    probe(address, timeout)
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise BackendUnavailableError(
            f"cannot reach the Dask scheduler at {address}: no answer within {timeout:g} s "
            f"({type(e).__name__}; is `dask scheduler` running there?)") from None
    except Exception as e:  # noqa: BLE001 - e.g. a transport that is not installed
        _abandon_client(e.__traceback__, Client)
        raise _unusable(address, e) from None


def probe(address: str, timeout: float) -> None:
    """Ask the scheduler who it is, within ``timeout`` seconds, before a Client exists
    (a Client to a listener that accepts and never answers waits forever).

    Raises:
        BackendUnavailableError: No connection, or no answer in time.
    """
    async def identity():
        from distributed.comm import connect
        from distributed.security import Security

        comm = await connect(address, timeout=timeout,
                             **Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    async def bounded():
        return await asyncio.wait_for(identity(), timeout)

    from concurrent.futures import ThreadPoolExecutor

    try:  # in a thread of its own: the caller may be inside an event loop (Jupyter)
        with ThreadPoolExecutor(1) as pool:
            answer = pool.submit(asyncio.run, bounded()).result()
    except (OSError, TimeoutError, asyncio.TimeoutError) as e:
        what = "no answer" if isinstance(e, (TimeoutError, asyncio.TimeoutError)) and \
            "connect" not in str(e) else "no connection"
        raise BackendUnavailableError(
            f"cannot reach the Dask scheduler at {address}: {what} within {timeout:g} s "
            f"(is `dask scheduler` running there? {TIMEOUT_ENV} sets the wait)") from None
    except Exception as e:  # noqa: BLE001 - a peer that speaks another protocol
        raise _unusable(address, e) from None
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        raise BackendUnavailableError(f"{address} answered, but it is not a Dask scheduler")


def _unusable(address: str, e: Exception) -> BackendUnavailableError:
    why = str(e).splitlines()[0] if str(e) else type(e).__name__
    return BackendUnavailableError(f"cannot use the Dask scheduler at {address}: {why}")


def wait_for_workers(client, address: str, wait: float, on_start) -> dict:
    """The scheduler's workers; with none, a note, then at most ``wait`` seconds for one."""
    nthreads = client.nthreads()
    if nthreads:
        return nthreads
    note = f"the Dask scheduler at {address} has no workers; waiting up to {wait:g} s for one"
    if on_start is not None:
        on_start(note)
    else:
        print(f"qsudoku: {note}", file=sys.stderr)
    try:
        client.wait_for_workers(1, timeout=wait)
    except (TimeoutError, asyncio.TimeoutError, OSError):
        raise BackendUnavailableError(
            f"the Dask scheduler at {address} has no workers after {wait:g} s "
            f"(start some with `dask worker {address}`; {WORKER_TIMEOUT_ENV} sets the "
            "wait)") from None
    return client.nthreads()


def _abandon_client(tb, client_type) -> None:
    """Stop the half-made Client of a failed constructor (else its ``__del__`` hangs)."""
    while tb is not None:
        obj = tb.tb_frame.f_locals.get("self")
        if isinstance(obj, client_type):
            with contextlib.suppress(Exception):
                obj.status = "closed"
                obj._loop_runner.stop()
            return
        tb = tb.tb_next
