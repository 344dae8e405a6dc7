"""The suite's own home and caches, a guard on what its processes write, and a skip summary.

Used by ``tests/conftest.py`` (its hooks are imported there), so that whether the suite passes
depends on the suite alone:

* :func:`isolate` runs when the conftest is imported, before anything imports qsudoku: it
  points ``HOME``, the XDG folders and ``QSUDOKU_CACHE_DIR`` at a private temporary folder.
  Every subprocess a test starts and every xdist worker inherits them, so nothing the suite
  runs finds the user's own ``~/.cache`` through ``~`` or the XDG variables.
* It also installs an audit hook (:func:`sys.addaudithook`) in the pytest process (and in each
  xdist worker, which imports the conftest too) that records any file or folder its own code
  creates, writes, renames or removes under the real home's state folders (``.cache``,
  ``.config``, ``.local``, ...). The session fails if there is any, and the summary names them.
  What other programs write there meanwhile is not the suite's doing and is not looked at.
* :func:`pytest_terminal_summary` prints one line per skip reason with its count.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

#: Set by the first pytest process (read by xdist workers, which share its folder).
PRIVATE_ROOT = "QSUDOKU_SUITE_ROOT"
REAL_HOME = "QSUDOKU_SUITE_REAL_HOME"
#: Folders of the real home where programs keep their state: the suite must not write there.
GUARDED = (".cache", ".config", ".local", ".ipython", ".jupyter", ".dask", ".matplotlib")
#: Audit events that change the file system, and the positions of their target paths.
_WRITE_EVENTS = {"os.mkdir": (0,), "os.rename": (0, 1), "os.remove": (0,), "os.rmdir": (0,),
                 "os.symlink": (1,), "os.link": (1,), "os.truncate": (0,),
                 "shutil.copyfile": (1,), "shutil.rmtree": (0,)}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

_created: list[Path] = []
_writes: list[str] = []


def _is_write(event: str, args: tuple) -> list:
    """The target paths of ``event`` if it writes, else ``[]``."""
    if event == "open":
        path, mode, flags = (tuple(args) + (None, None, 0))[:3]
        writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(
            (flags or 0) & _WRITE_FLAGS)
        return [path] if writes else []
    return [args[i] for i in _WRITE_EVENTS.get(event, ()) if i < len(args)]


def _watch(guarded: list[str], exempt: list[str], log: Path) -> None:
    """Install the audit hook: writes under ``guarded`` (but not ``exempt``) go to ``log``."""
    busy = []

    def hook(event, args):
        if busy or (event != "open" and event not in _WRITE_EVENTS):
            return
        busy.append(1)
        try:
            for raw in _is_write(event, args):
                if not isinstance(raw, (str, bytes, os.PathLike)):
                    continue
                path = os.path.abspath(os.fsdecode(raw))
                if any(path == g or path.startswith(g + os.sep) for g in guarded) and not any(
                        path == e or path.startswith(e + os.sep) for e in exempt):
                    with open(log, "a", encoding="utf-8") as f:
                        f.write(f"{event} {path}\n")
        finally:
            busy.pop()

    sys.addaudithook(hook)


def isolate() -> Path:
    """Give this pytest process (and all it starts) a private home and caches; watch writes.

    Returns the private folder. An xdist worker reuses its controller's folder.
    """
    inherited = os.environ.get(PRIVATE_ROOT)
    if inherited and os.environ.get("PYTEST_XDIST_WORKER"):
        root, real = Path(inherited), os.environ[REAL_HOME]
    else:
        real = os.path.abspath(os.path.expanduser("~"))
        root = Path(tempfile.mkdtemp(prefix="qsudoku-suite-"))
        _created.append(root)
        home = root / "home"
        for sub in ("", ".cache", ".config", ".local/share", ".local/state"):
            (home / sub).mkdir(parents=True, exist_ok=True)
        os.environ.update({
            PRIVATE_ROOT: str(root), REAL_HOME: real, "HOME": str(home),
            "XDG_CACHE_HOME": str(home / ".cache"), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_STATE_HOME": str(home / ".local/state"),
            "QSUDOKU_CACHE_DIR": str(root / "qsudoku-cache")})
        os.environ.pop("MPLCONFIGDIR", None)
        os.environ.pop("IPYTHONDIR", None)
    repo = str(Path(__file__).resolve().parents[1])
    exempt = [str(root), repo, sys.prefix, sys.base_prefix,
              *filter(None, [os.environ.get("NUMBA_CACHE_DIR")])]
    _watch([os.path.join(real, g) for g in GUARDED], exempt, root / "home-writes.log")
    return root


def home_writes() -> list[str]:
    """What the suite's own processes wrote under the real home's state folders."""
    log = Path(os.environ[PRIVATE_ROOT]) / "home-writes.log"
    return log.read_text(encoding="utf-8").splitlines() if log.is_file() else []


def pytest_sessionfinish(session, exitstatus):
    """The suite fails if its own processes wrote under the real home (the controller checks
    for all xdist workers, after they finished)."""
    if hasattr(session.config, "workerinput"):
        return
    _writes[:] = home_writes()
    if _writes:
        session.exitstatus = 1


def pytest_unconfigure(config):
    for root in _created:
        shutil.rmtree(root, ignore_errors=True)


def _reason(report) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line per skip reason, most frequent first; then any write under the real home."""
    reasons = Counter(_reason(r) for r in terminalreporter.stats.get("skipped", []))
    if reasons:
        terminalreporter.write_sep("=", "skipped, by reason")
        for reason, count in sorted(reasons.items(), key=lambda rc: (-rc[1], rc[0])):
            terminalreporter.write_line(f"{count} skipped: {reason}")
    if _writes:
        terminalreporter.write_sep("=", f"the suite wrote under {os.environ[REAL_HOME]}", red=True)
        for line in _writes[:20]:
            terminalreporter.write_line(line)
