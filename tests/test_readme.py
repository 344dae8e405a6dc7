"""Every runnable example of README.md and of every page of ``docs/`` (:data:`PAGES`), as
written, from a fresh copy of the repository: their ``qsudoku`` and ``python -c`` command
lines and their Python blocks, each run in a subprocess whose working directory is a copy of
the repository's files with nothing beside it (no ``../shared``), so they read only what
the repository ships (``data/...``).

An example that cannot run here is collected and skipped with its reason (:data:`SKIPS`):
synopsis lines with placeholders (``PUZZLE``, ``FILE...``), a file of the reader's own,
the sets that do not ship, a Leap token, a Dask cluster, minutes of work.  Installs,
Jupyter and ``pytest`` lines are not examples of qsudoku: the first two lines of the
README are what CI itself runs.  The copy leaves out the package's own sources: the code
under test is this checkout's (through ``PYTHONPATH``), so its compiled numba kernels are
reused rather than compiled again for a second copy of the same files.
"""

from __future__ import annotations

import os
import re
import glob
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _shared import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
#: Every page of the documentation: its examples run too (or are skipped with a reason).
PAGES = tuple(sorted(p.name for p in (REPO / "docs").glob("*.md")))
_TEXTS = [README] + [(REPO / "docs" / p).read_text(encoding="utf-8") for p in PAGES]
_BLOCKS = [b for text in _TEXTS for b in re.findall(r"```([^\n`]*)\n(.*?)```", text, re.S)]
#: ``(text, reason)``: an example holding ``text`` is not run here, for ``reason``.
SKIPS = (
    ("PUZZLE", "a synopsis: PUZZLE stands for the reader's puzzle"),
    ("FILE", "a synopsis: FILE stands for the reader's file"),
    ("KEY=", "a synopsis: KEY=VALUE stands for the reader's setting"),
    ("NAME", "a synopsis: NAME stands for the reader's choice"),
    ("configs/qpu.toml", "needs a Leap API token and the network"),
    ("configs/hybrid.toml", "needs a Leap API token and the network"),
    ("--sampler hybrid", "needs a Leap API token and the network"),
    ("--scheduler tcp://", "needs a running Dask scheduler"),
    ("dask_jobqueue", "needs a SLURM cluster (dask-jobqueue)"),
    ("../shared/", "reads the developers' share, which does not ship"),
    ("$QSUDOKU_DATA", "reads sets that do not ship (in a folder named by $QSUDOKU_DATA)"),
    ("puzzles.txt", "reads a file of the reader's own"),
    ("mix.txt", "reads a file the page describes, not one that ships"),
    ("F20.txt", "reads a file the page describes, not one that ships"),
    ("count_solutions(puzzle", "a fragment: `puzzle` is the reader's"),
    ("embed data/seeds/seeds.tsv", "minutes of minorminer on a shared 2-core machine"),
    ("--spec benchmarks/studies/hard9_tts.toml", "the whole study, half an hour "
     "(tests/test_study_outputs.py runs it at a reduced size)"),
)
#: The command lines that are examples of qsudoku (not installs, Jupyter or pytest).
_RUNNABLE = ("qsudoku ", "python -c ")
#: What a fresh clone holds that the examples do not read (and the code under test, above).
_NOT_COPIED = (".git", "qsudoku", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info",
               ".ipynb_checkpoints")


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
            if line.startswith(_RUNNABLE) and line not in out:
                out.append(line)
    return out


def _skip_reason(text: str) -> str | None:
    return next((reason for word, reason in SKIPS if word in text), None)


def _runnable(examples: list[str]) -> list[str]:
    """The examples that run here (no :data:`SKIPS` entry holds)."""
    return [e for e in examples if _skip_reason(e) is None]


def _params(examples: list[str]) -> list:
    """``examples`` as test parameters, each skipped with its reason if one applies."""
    return [pytest.param(e, marks=[pytest.mark.skip(reason=_skip_reason(e))] if _skip_reason(e)
                         else [], id=e[:80]) for e in examples]


def _python_blocks() -> list[str]:
    return [body for lang, body in _BLOCKS if lang == "python"]


def _tracked_files() -> list[str] | None:
    """The files git tracks in the checkout (what a clone holds), or None outside git."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True,
                             check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [f for f in out.decode().split("\0") if f] or None


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A copy of the repository's tracked files in a folder of its own (the package sources
    aside); outside git, a copy of the folder without caches."""
    root = tmp_path_factory.mktemp("fresh") / "qsudoku"
    ignore = shutil.ignore_patterns(*_NOT_COPIED)
    files = _tracked_files()
    if files is None:
        shutil.copytree(REPO, root, ignore=ignore)
    for name in files or ():
        src, parts = REPO / name, Path(name).parts
        if parts[0] in _NOT_COPIED or not src.is_file():
            continue
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, root / name)
    assert (root / "README.md").is_file() and not (root.parent / "shared").exists()
    return root


def _run(argv: list[str], clone: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """``argv`` run in a copy of ``clone`` (so examples do not see each other's files), with
    this checkout's code and an embedding cache of its own."""
    cwd = tmp_path / "clone"
    shutil.copytree(clone, cwd)
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg",
           "QSUDOKU_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("QSUDOKU_DATA", None)
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


def test_the_readme_has_examples_to_run():
    readme = re.findall(r"```([^\n`]*)\n(.*?)```", README, re.S)
    assert sum(lang == "python" for lang, _ in readme) >= 1
    assert sum("$ qsudoku solve" in body for _, body in readme) >= 1
    assert len(_runnable(_commands())) >= 8 and len(_runnable(_python_blocks())) >= 3


def test_the_examples_of_every_page_are_collected():
    """Commands of pages beyond the README's former manual run too (QPU, cluster, fairness)."""
    assert "qpu.md" in PAGES and "cluster.md" in PAGES and "fairness.md" in PAGES
    runnable = _runnable(_commands())
    assert any("--option qpu_sampler=mock-qpu" in c for c in runnable)
    assert any(c.startswith("qsudoku fairness ") for c in runnable)
    assert any(c.startswith("python -c ") for c in runnable)
    assert _skip_reason("qsudoku solve P --config configs/qpu.toml") == (
        "needs a Leap API token and the network")


def test_every_puzzle_file_the_readme_names_ships_with_the_repository():
    """The examples read ``data/...`` only, never ``../shared`` or the unshipped sets."""
    named = set(re.findall(r"(?<![\w$/.])data/[\w./-]+\.(?:txt|tsv)", "\n".join(_TEXTS)))
    assert named and all((REPO / f).is_file() for f in named), sorted(named)
    runnable = "\n".join(_runnable(_commands() + _python_blocks()))
    assert "shared/" not in runnable and "puzzles.txt" not in runnable


@pytest.mark.slow
@pytest.mark.parametrize("command", _params(_commands()))
def test_command_example_runs(command, clone, tmp_path):
    # a word with a wildcard expands as the shell would (in the clone, where the run is)
    argv = [w for word in shlex.split(command)
            for w in (sorted(glob.glob(word, root_dir=clone)) if glob.has_magic(word) else [word])
            or [word]]
    if argv[0] == "qsudoku":
        argv = [sys.executable, "-m", "qsudoku", *argv[1:]]
    else:  # python -c "..."
        argv = [sys.executable, *argv[1:]]
    proc = _run(argv, clone, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("block", _params(_python_blocks()))
def test_python_example_runs_as_a_script(block, clone, tmp_path):
    """Each block saved as a file and run as ``python block.py`` (a block that starts worker
    processes needs its ``if __name__ == "__main__":`` guard to pass)."""
    script = tmp_path / "readme_block.py"
    script.write_text(block, encoding="utf-8")
    proc = _run([sys.executable, str(script)], clone, tmp_path)
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
            if not line.startswith("$ qsudoku "):
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
@pytest.mark.parametrize("command,shown", [
    pytest.param(c, s, id=c[:80], marks=[pytest.mark.skip(reason=_skip_reason(c))]
                 if _skip_reason(c) else []) for c, s in _transcripts()])
def test_command_output_has_the_shape_shown(command, shown, clone, tmp_path):
    argv = shlex.split(command)
    proc = _run([sys.executable, "-m", "qsudoku", *argv[1:]], clone, tmp_path)
    printed = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    assert _matches(shown, printed), "\n".join(["README shows:", *shown, "printed:", *printed])
