"""Every runnable example of README.md, as written: its ``qsudoku`` command lines and its
Python blocks (run in a temporary folder; ``../shared/data`` is the shared data folder).

Lines with placeholders (``PUZZLE``, ``FILE...``), installs, Jupyter and D-Wave account
commands are not run: the first two lines of the README are what CI itself runs.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from _shared import REPO, SHARED, needs_shared

README = (REPO / "README.md").read_text(encoding="utf-8")
_BLOCKS = re.findall(r"```(\w*)\n(.*?)```", README, re.S)
#: Words that mark a synopsis line or one that needs an account, a file of the user's, or
#: another program.
_PLACEHOLDERS = ("PUZZLE", "FILE", "puzzles.txt", "seeds.tsv\n", "configs/qpu.toml",
                 "configs/hybrid.toml", "KEY=", "NAME")


def _commands() -> list[str]:
    out = []
    for _, body in _BLOCKS:
        for line in body.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            line = line.split("  #")[0].strip()
            if line.startswith("pip install -e . && qsudoku solve"):
                line = line.split("&& ", 1)[1]
            if not line.startswith("qsudoku ") or any(w in line + "\n" for w in _PLACEHOLDERS):
                continue
            out.append(line)
    return out


def _python_blocks() -> list[str]:
    return [body for lang, body in _BLOCKS if lang == "python"]


def _here(text: str) -> str:
    return text.replace("../shared/data", str(SHARED))


def test_the_readme_has_examples_to_run():
    assert len(_commands()) >= 8 and len(_python_blocks()) >= 3


@needs_shared
@pytest.mark.slow
@pytest.mark.parametrize("command", _commands())
def test_command_example_runs(command, tmp_path):
    argv = shlex.split(_here(command))
    proc = subprocess.run([sys.executable, "-m", "qsudoku", *argv[1:]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr


@needs_shared
@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(_python_blocks())))
def test_python_example_runs(k, tmp_path):
    code = _here(_python_blocks()[k])
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stderr[-2000:]


#: A number in a transcript, with its unit of time if any: its digits (and whether a time
#: is shown in ms or s) vary from run to run, its place does not.
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?: (?:ms|s)\b)?")


def _shape(line: str) -> str:
    return _NUMBER.sub("N", line.rstrip())


def _transcripts() -> list[tuple[str, list[str]]]:
    """``(command, output lines)`` of every README block that shows a runnable ``$ qsudoku``
    command followed by what it prints (``...`` stands for any number of lines)."""
    out = []
    for _, body in _BLOCKS:
        lines = [line.strip() for line in body.splitlines()]
        for i, line in enumerate(lines):
            if not line.startswith("$ qsudoku ") or any(w in line + "\n" for w in _PLACEHOLDERS):
                continue
            shown = []
            for nxt in lines[i + 1:]:
                if nxt.startswith("$ "):
                    break
                shown.append(nxt)
            if any(shown):
                out.append((line[2:], [s for s in shown if s]))
    return out


def _matches(shown: list[str], printed: list[str]) -> bool:
    """Whether ``printed`` has ``shown``'s lines, in order and shape; ``...`` skips lines."""
    pos = 0
    skipping = False
    for want in shown:
        if want == "...":
            skipping = True
            continue
        while pos < len(printed) and skipping and _shape(printed[pos]) != _shape(want):
            pos += 1
        if pos >= len(printed) or _shape(printed[pos]) != _shape(want):
            return False
        pos, skipping = pos + 1, False
    return skipping or pos == len(printed)


def test_transcript_shapes_are_compared():
    shown = ["a: 1 read", "...", "timings: x 1.5 ms, total 320.5 ms"]
    assert _matches(shown, ["a: 9 read", "grid", "grid", "timings: x 3.25 ms, total 7 s"])
    assert not _matches(shown, ["a: 9 read", "timings: x 3.25 ms, decode 1 ms, total 7 s"])
    assert not _matches(shown, ["a: 9 read", "grid", "timings: x 3.25 ms, total 7 s", "extra"])
    assert not _matches(shown, ["a: 9 reads", "timings: x 3.25 ms, total 7 s"])


@pytest.mark.slow
@pytest.mark.parametrize("command,shown", _transcripts(), ids=[c for c, _ in _transcripts()])
def test_command_output_has_the_shape_shown(command, shown, tmp_path):
    argv = shlex.split(_here(command))
    proc = subprocess.run([sys.executable, "-m", "qsudoku", *argv[1:]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"})
    printed = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    assert _matches(shown, printed), "\n".join(["README shows:", *shown, "printed:", *printed])
