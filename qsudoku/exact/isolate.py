"""Run a solver library in a child process when it cannot load into this one.

OR-Tools wheels bundle their own ``libhighs.so.1`` and highspy ships another under the
same soname: whichever is imported first wins and the other fails with ``undefined
symbol``.  A backend that hits this *library clash* solves in a fresh interpreter
(``python -m qsudoku.exact.isolate``), exchanging problem and outcome as JSON on stdin
and stdout (``info["isolated"]``, ``info["timing"]["child"]``).  A solver that cannot be
interrupted (CaDiCaL) runs a time-limited solve the same way, stopped at the limit.
The child is told a function as ``"module:function"``, so this module imports no solver.

>>> is_library_clash(ImportError("libx.so: undefined symbol: _ZN5Highs13releaseMemoryEv"))
True
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Callable

from qsudoku.errors import BackendUnavailableError
from qsudoku.exact.lazy import Lazy
from qsudoku.exact.problem import Group, Outcome, Problem

__all__ = ["is_library_clash", "may_isolate", "solve_isolated", "call_isolated", "problem_to_json",
           "problem_from_json"]


_CHILD_ENV = "QSUDOKU_ISOLATED"


def is_library_clash(error: BaseException) -> bool:
    """True if ``error`` is a shared-library symbol clash (not a missing package)."""
    return isinstance(error, ImportError) and "undefined symbol" in str(error)


def may_isolate(error: BaseException) -> bool:
    """True if ``error`` is a clash and this process is not already the child."""
    return is_library_clash(error) and not os.environ.get(_CHILD_ENV)


def problem_to_json(problem: Problem) -> dict:
    return {"labels": [list(x) for x in problem.labels],
            "groups": [[g.kind, list(g.members), g.name] for g in problem.groups],
            "units": [list(u) for u in problem.units]}


def problem_from_json(data: dict) -> Problem:
    return Problem(tuple(tuple(x) for x in data["labels"]),
                   tuple(Group(k, tuple(m), name) for k, m, name in data["groups"]),
                   tuple(tuple(u) for u in data["units"]))


def _child_env() -> dict:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.pathsep.join(x for x in (root, os.environ.get("PYTHONPATH", "")) if x)
    return {**os.environ, _CHILD_ENV: "1", "PYTHONPATH": path}


def _run_child(request: dict, timeout: float | None, stop: bool = False) -> dict | None:
    """The child's answer; ``None`` if ``stop`` and it was stopped at ``timeout`` seconds
    (else a child that overruns its time limit by a minute is an error)."""
    t0 = time.perf_counter()
    what = request["target"]
    try:
        proc = subprocess.run([sys.executable, "-m", "qsudoku.exact.isolate"],
                              input=json.dumps(request), capture_output=True, text=True,
                              env=_child_env(),
                              timeout=None if timeout is None else timeout + (0 if stop else 60))
    except subprocess.TimeoutExpired:  # (subprocess.run has killed the child)
        if stop:
            return None
        raise BackendUnavailableError(f"isolated {what} did not answer") from None
    if proc.returncode != 0:
        raise BackendUnavailableError(f"isolated {what} failed: {proc.stderr.strip()[-500:]}")
    out = json.loads(proc.stdout)
    out["wall"] = time.perf_counter() - t0
    return out


def solve_isolated(target: str, problem: Problem, params: dict,
                   stop_after: float | None = None) -> Outcome:
    """``target(problem, **params)`` in a child process, ``target`` a solve function named
    ``"module:function"`` (``"qsudoku.exact.lp:solve_ilp"``).

    With ``stop_after``, the child is stopped after that many seconds (its start included)
    and the outcome is then ``"time_limit"``.
    """
    t0 = time.perf_counter()
    request = {"target": target, "args": [], "kwargs": params,
               "problem": problem_to_json(problem)}
    if stop_after is None:
        out = _run_child(request, params.get("time_limit"))
    else:
        out = _run_child(request, max(stop_after - (time.perf_counter() - t0), 1e-3), stop=True)
        if out is None:
            return Outcome(None, "time_limit", {
                "isolated": True, "timing": {"child": time.perf_counter() - t0}})
    timing = {**out["info"].get("timing", {}), "child": out["wall"]}
    info = dict(out["info"], isolated=True, timing=timing)
    chosen = None if out["chosen"] is None else tuple(out["chosen"])
    return Outcome(chosen, out["status"], info)


def call_isolated(function: Callable, *args, timeout: float | None = None):
    """``function(*args)`` in a child process; JSON arguments, the JSON-decoded result."""
    target = f"{function.__module__}:{function.__qualname__}"
    return _run_child({"target": target, "args": list(args), "kwargs": {}}, timeout)["value"]


def _answer(request: dict) -> dict:
    args = list(request["args"])
    if request.get("problem") is not None:
        args.insert(0, problem_from_json(request["problem"]))
    result = Lazy(request["target"])(*args, **request["kwargs"])
    if isinstance(result, Outcome):
        return {"chosen": None if result.chosen is None else list(result.chosen),
                "status": result.status, "info": result.info}
    return {"value": result}


def _child() -> int:
    request = json.loads(sys.stdin.read())
    # The answer owns stdout: whatever a solver library prints there goes to stderr.
    answer_fd = os.dup(1)
    os.dup2(2, 1)
    answer = _answer(request)
    sys.stdout.flush()
    with os.fdopen(answer_fd, "w") as out:
        json.dump(answer, out, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(_child())
