"""One minorminer search, bounded: refused at once when the model cannot fit, and, when
asked, held to its time limit by running it in a child process.

minorminer's ``timeout`` counts only from the end of its initialization pass, which on a
big model takes longer than any limit.  So :func:`search` first checks what every
embedding needs (:func:`cannot_fit`), and with ``bounded=True`` runs the search in a child
process ended when the limit (and :data:`GRACE`) has passed.  minorminer's refusal to
start is a model that does not fit, said in one line, not an error.

>>> cannot_fit(15_625, 687_500, 5_640, 40_484)
'15,625 variables, more than the 5,640 qubits of the target graph'
>>> cannot_fit(729, 10_206, 5_640, 40_484)
''
"""

from __future__ import annotations

import multiprocessing
import time
from typing import Any, Mapping, Sequence

from qsudoku.errors import MachineError

__all__ = ["search", "cannot_fit", "GRACE", "MINORMINER_TIMEOUT", "REFUSALS"]

#: Seconds a bounded search may run past its limit before its process is ended: minorminer
#: returns its best embedding at its own ``timeout``, and copying it back takes a moment.
GRACE = 2.0
#: minorminer's own default ``timeout`` (seconds), the limit of a search that sets none.
MINORMINER_TIMEOUT = 1000.0
#: What minorminer's ``RuntimeError`` says when it cannot even start a search: the model
#: does not fit (no chain could be placed for some variable).
REFUSALS = ("Failed during initialization",)


def cannot_fit(num_variables: int, num_edges: int, num_qubits: int, num_couplers: int) -> str:
    """Why a model of ``num_variables`` and ``num_edges`` cannot embed in a graph of
    ``num_qubits`` and ``num_couplers`` (chains are disjoint and non-empty, and each
    logical edge needs a coupler of its own between two chains); ``""`` if it may."""
    if num_variables > num_qubits:
        return (f"{num_variables:,} variables, more than the {num_qubits:,} qubits of the "
                "target graph")
    if num_edges > num_couplers:
        return (f"{num_edges:,} interactions, more than the {num_couplers:,} couplers of the "
                "target graph")
    return ""


def _refused(error: RuntimeError) -> bool:
    """True if ``error`` is minorminer's refusal to start (:data:`REFUSALS`)."""
    return any(text in str(error) for text in REFUSALS)


def _find(source: Sequence, target: Sequence, params: Mapping) -> tuple[dict | None, str]:
    """``(embedding, "")`` of one minorminer call, or ``(None, why)`` if it refused."""
    import minorminer

    try:
        emb = minorminer.find_embedding(source, target, **params)
    except RuntimeError as e:
        if not _refused(e):
            raise
        return None, f"minorminer: {e}"
    return {v: list(chain) for v, chain in emb.items()}, ""


def _child(conn, source, target, params) -> None:  # pragma: no cover (runs in the child)
    try:
        conn.send(_find(source, target, params))
    except Exception as e:  # a bug in the child: the parent raises it
        conn.send((None, f"error: {type(e).__name__}: {e}"))
    finally:
        conn.close()


def _context():
    """``fork`` where the platform has it (the child inherits the loaded library and the
    graphs: no start-up), else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def search(source: Sequence, target: Sequence, params: Mapping, *,
           bounded: bool = False) -> tuple[dict | None, float, str]:
    """Search an embedding of the graph ``source`` (edges, with ``(v, v)`` for every
    variable) in the graph ``target`` (edges) with minorminer keywords ``params``.

    Args:
        bounded: Run the search in a child process, ended after ``params["timeout"]``
            (:data:`MINORMINER_TIMEOUT` if unset) plus :data:`GRACE` seconds.

    Returns:
        ``(embedding or None, seconds, why)``: ``None`` with the reason if minorminer
        refused to start or the bounded search ran out of time; an embedding that is
        empty or partial is minorminer's "not found" (``why`` is ``""``).

    Raises:
        RuntimeError: Any other failure of minorminer (a bug, not a verdict).
        MachineError: A bounded search could not start its process.
    """
    t = time.perf_counter()
    if not bounded:
        emb, why = _find(source, target, params)
        return emb, time.perf_counter() - t, why
    limit = float(params.get("timeout", MINORMINER_TIMEOUT))
    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    proc: Any = ctx.Process(target=_child, args=(send, source, target, dict(params)),
                            daemon=True)
    try:
        proc.start()
    except OSError as e:  # no process to spare (ulimit -u, memory): the machine refused
        receive.close()
        send.close()
        raise MachineError(f"cannot start the embedding search's process: {e}") from None
    send.close()
    try:
        done = receive.poll(limit + GRACE)
        outcome = receive.recv() if done else None
    except EOFError:  # the child died without an answer (killed, out of memory)
        outcome = (None, f"the search process ended with exit code {proc.exitcode}")
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()
    seconds = time.perf_counter() - t
    if outcome is None:
        return None, seconds, f"no embedding found within the {limit:g} s time limit"
    emb, why = outcome
    if why.startswith("error: "):
        raise RuntimeError(f"minorminer's search failed: {why[7:]}")
    return emb, seconds, why
