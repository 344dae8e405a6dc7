"""Where a results file comes from: ``<output stem>.provenance.json`` beside it.

Every ``qsudoku bench``/``sweep`` run with an output file writes the record when it starts
and updates it when it ends (or is interrupted: the rows it finished are in the file, and
the record says ``"status": "interrupted"``)::

    {"spec": "benchmarks/studies/hard9.toml",          # relative to the repository, or null
     "commit": "991a2af...", "dirty": false,           # git HEAD of the qsudoku checkout
     "command": ["qsudoku", "bench", "--spec", "benchmarks/studies/hard9.toml"],
     "started": "2026-12-06T21:30:00Z", "ended": "...",
     "load_start": [1.2, 0.9, 0.8], "load_end": [...], "status": "finished",
     "machine": {"cpu": ..., "cores": ..., "packages": {...}}}

No absolute path of the machine goes in (paths are made relative, the program is named
``qsudoku``), and no secret: each word of the command is masked
(:func:`qsudoku.samplers.redact.mask`).

>>> provenance_path("benchmarks/results/hard9/results.csv")
'benchmarks/results/hard9/results.provenance.json'
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from pathlib import Path
from typing import Sequence

from qsudoku.samplers.redact import mask

__all__ = ["provenance_path", "repository_root", "git_state", "relative_path",
           "relative_argv", "start_record", "end_record", "machine_info"]

_PACKAGES = ("qsudoku", "dimod", "dwave-samplers", "dwave-neal", "openjij", "numpy", "numba",
             "ortools", "python-sat", "highspy", "clingo", "pyqubo", "sympy", "pandas",
             "pyarrow", "matplotlib", "dask", "distributed")


def machine_info() -> dict:
    """CPU model, cores, Python and package versions (whitelisted fields only, no environment)."""
    from importlib import metadata

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = {}
    for pkg in _PACKAGES:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return {"cpu": cpu, "cores": os.cpu_count(), "machine": platform.machine(),
            "system": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "packages": versions}



#: The seconds a ``git`` call may take before the commit is recorded as unknown.
GIT_TIMEOUT = 10.0


def provenance_path(out: str) -> str:
    """``F.provenance.json`` beside the results file ``out`` (``F`` = ``out`` without its
    extension), next to ``F.summary.csv``."""
    return os.path.splitext(os.fspath(out))[0] + ".provenance.json"


def repository_root() -> Path | None:
    """The root of the git checkout qsudoku is imported from (``None``: an installed copy)."""
    root = Path(__file__).resolve().parent.parent.parent
    return root if (root / ".git").exists() else None


#: Outputs, not inputs, of a run: changes there do not make a checkout dirty (a study run
#: again over its committed results rewrites them).
RESULTS_DIR = "benchmarks/results"


def git_state(root: Path | None) -> tuple[str | None, bool | None]:
    """``(HEAD commit, dirty)`` of the checkout ``root``: dirty when a tracked file outside
    :data:`RESULTS_DIR` has uncommitted changes; ``(None, None)`` when it is no git
    checkout or git is missing."""
    if root is None:
        return None, None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], text=True,
                              capture_output=True, timeout=GIT_TIMEOUT, check=False)
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                 "--untracked-files=no", "--", ".",
                                 f":(exclude){RESULTS_DIR}"], text=True, capture_output=True,
                                timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):  # no git here, or it hangs
        return None, None
    if head.returncode != 0:
        return None, None
    return head.stdout.strip(), bool(status.stdout.strip()) if status.returncode == 0 else None


def relative_path(path: str, root: Path | None = None) -> str:
    """``path`` relative to the working directory if it lies under it, else to ``root``
    (the repository) if under that, else relative to the working directory anyway
    (``../``): never absolute.

    >>> relative_path(os.path.join(os.getcwd(), "data", "x.txt"))
    'data/x.txt'
    >>> relative_path("data/x.txt")
    'data/x.txt'
    """
    real = os.path.realpath(path)
    cwd = os.path.realpath(os.getcwd())
    for base in (cwd, str(root.resolve()) if root is not None else None):
        if base and (real == base or real.startswith(base.rstrip(os.sep) + os.sep)):
            return os.path.relpath(real, base)
    return os.path.relpath(real, cwd)


def relative_argv(argv: Sequence[str], root: Path | None = None) -> list[str]:
    """The words of a command line with every absolute path made relative
    (:func:`relative_path`), ``--flag=/abs`` included.

    >>> relative_argv(["bench", "-o", os.path.join(os.getcwd(), "r.csv"), "--first=2"])
    ['bench', '-o', 'r.csv', '--first=2']
    """
    out = []
    for word in argv:
        flag, eq, value = word.partition("=")
        if eq and flag.startswith("-") and os.path.isabs(value):
            out.append(f"{flag}={relative_path(value, root)}")
        elif os.path.isabs(word):
            out.append(relative_path(word, root))
        else:
            out.append(word)
    return out


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # not every system has it
        return None


def start_record(argv: Sequence[str], spec: str | None) -> dict:
    """The record of a run that starts now: ``argv`` are its words after the program name
    (``["bench", ...]``), ``spec`` the ``--spec`` path as given (or ``None``)."""

    root = repository_root()
    commit, dirty = git_state(root)
    spec_path = None
    if spec is not None:
        real = os.path.realpath(spec)
        inside = root is not None and Path(real).is_relative_to(root.resolve())
        spec_path = os.path.relpath(real, root.resolve()) if inside and root else \
            relative_path(spec, root)
    return {"spec": spec_path, "commit": commit, "dirty": dirty,
            "command": ["qsudoku", *map(mask, relative_argv(argv, root))], "started": _now(),
            "ended": None, "load_start": _load(), "load_end": None, "status": "running",
            "machine": machine_info()}


def end_record(record: dict, status: str) -> dict:
    """``record`` with its end: the time, the load and ``status`` (``finished``,
    ``interrupted`` or ``failed``)."""
    return {**record, "ended": _now(), "load_end": _load(), "status": status}
