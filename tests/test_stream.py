"""Reading standard input (``qsudoku.io.stream``): a closed or missing stdin is one line,
never an internal error."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from _misc_cases import one_line, qsudoku


def test_closed_stdin_is_one_line(tmp_path):
    out = qsudoku(tmp_path, "solve", "-", stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    assert out.returncode == 2
    assert "standard input is closed" in one_line(out.stderr)


def test_load_puzzles_without_any_stdin(monkeypatch):
    from qsudoku.errors import PuzzleFormatError
    from qsudoku.io import load_puzzles

    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(PuzzleFormatError, match="<stdin>: standard input is closed"):
        load_puzzles("-", stdin=None)
