"""In-process CLI helpers shared by the CLI-level tests.

Every test that drives :func:`qsudoku.cli.main` wants the same two checks: no
traceback ever reaches the user, and a user error is exactly one
``qsudoku: error:`` line on stderr.
"""

from __future__ import annotations

from qsudoku.cli import main


def run(capsys, *argv):
    """``main(argv)`` -> (exit code, stdout, stderr); never a traceback."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def one_error(err: str) -> str:
    """The single ``qsudoku: error:`` line of ``err`` (fails if there is more)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qsudoku: error: "), err
    return lines[0]
