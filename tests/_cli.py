"""In-process CLI helpers shared by the CLI-level tests.

Every test that drives :func:`qsudoku.cli.main` wants the same two checks: no
traceback ever reaches the user, and a user error is exactly one
``qsudoku: error:`` line on stderr.
"""

from __future__ import annotations

import subprocess

from qsudoku.cli import main


def run(capsys, *argv):
    """``main(argv)`` -> (exit code, stdout, stderr); never a traceback."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def run_in(capsys, monkeypatch, folder, *argv, env=None) -> subprocess.CompletedProcess:
    """``main(argv)`` with ``folder`` as the working directory and ``env`` set, answered as
    ``python -m qsudoku ARGV`` run there would be (``returncode``, ``stdout``, ``stderr``):
    for a test of a run that cannot hang, without the second or so a new process costs."""
    monkeypatch.chdir(folder)
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    code, out, err = run(capsys, *argv)
    return subprocess.CompletedProcess([str(a) for a in argv], code, out, err)


def one_error(err: str) -> str:
    """The single ``qsudoku: error:`` line of ``err`` (fails if there is more)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qsudoku: error: "), err
    return lines[0]
