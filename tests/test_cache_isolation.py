"""Tests touch only their own temporary directories: caches included, never ``~/.cache``.

The suite runs with a private home (``tests/_isolation.py``); the proofs below run a small
pytest session of their own with a made-up "real" home, so they never touch the user's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import _isolation

#: The variables tests/conftest.py points at a session temporary directory.
CACHE_VARIABLES = ("QSUDOKU_CACHE_DIR", "XDG_CACHE_HOME")


def _home_cache() -> Path:
    return Path(os.path.expanduser("~")) / ".cache" / "qsudoku"


def _snapshot(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")} if folder.is_dir() else set()


def test_every_cache_variable_points_into_the_temporary_directory():
    temp = Path(tempfile.gettempdir()).resolve()
    for name in CACHE_VARIABLES:
        value = os.environ.get(name)
        assert value, name
        assert Path(value).resolve().is_relative_to(temp), (name, value)


def test_the_default_embedding_cache_is_not_under_home():
    from qsudoku.samplers.dwave.embedding import default_cache_dir

    home = Path(os.path.expanduser("~")).resolve()
    assert not default_cache_dir().resolve().is_relative_to(home / ".cache")


@pytest.mark.slow
def test_a_cli_embed_leaves_nothing_under_the_home_cache(tmp_path):
    """A subprocess inherits the test environment: the embedding it caches lands in the
    session's temporary cache, and ``~/.cache/qsudoku`` stays as it was."""
    before = _snapshot(_home_cache())
    code = ("from qsudoku.samplers.dwave.embedding import EmbeddingCache; "
            "print(EmbeddingCache().directory)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).is_relative_to(Path(os.environ["QSUDOKU_CACHE_DIR"]))
    assert _snapshot(_home_cache()) == before


def test_home_and_every_cache_variable_are_the_suites_own():
    root = Path(os.environ[_isolation.PRIVATE_ROOT])
    for name in ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                 "QSUDOKU_CACHE_DIR"):
        assert Path(os.environ[name]).is_relative_to(root), name
    assert not root.is_relative_to(os.environ[_isolation.REAL_HOME])
    out = subprocess.run([sys.executable, "-c", "import os; print(os.path.expanduser('~'))"],
                         capture_output=True, text=True, timeout=60)
    assert Path(out.stdout.strip()) == Path(os.environ["HOME"])


#: A session of its own: the conftest is the suite's isolation block, the tests are given.
_INNER_CONFTEST = """
import sys
sys.path.insert(0, {tests!r})
from _isolation import isolate, pytest_sessionfinish, pytest_terminal_summary, pytest_unconfigure
isolate()
"""


def _inner_session(tmp_path: Path, tests: str, home: Path) -> subprocess.CompletedProcess:
    """``pytest`` on ``tests`` in a folder of its own, ``home`` being its real home."""
    folder = tmp_path / "inner"
    folder.mkdir()
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    (folder / "conftest.py").write_text(
        _INNER_CONFTEST.format(tests=str(Path(__file__).parent)))
    (folder / "test_inner.py").write_text(textwrap.dedent(tests))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QSUDOKU_SUITE_",
                                                                      "PYTEST_XDIST", "XDG_"))}
    env.update(HOME=str(home), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                           "-p", "no:xdist", str(folder)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_another_program_writing_the_real_cache_does_not_change_the_verdict(tmp_path):
    """A writer process fills the real ``~/.cache/qsudoku`` while the session runs; the
    session passes, and its summary counts the skips by reason."""
    home = tmp_path / "home"
    cache = home / ".cache" / "qsudoku" / "embeddings"
    cache.mkdir(parents=True)
    stop = tmp_path / "stop"
    writer = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import itertools, os, time
        for i in itertools.count():
            open(os.path.join({str(cache)!r}, f"{{i}}.json"), "w").write("{{}}")
            if os.path.exists({str(stop)!r}):
                break
            time.sleep(0.02)
        """)])
    try:
        proc = _inner_session(tmp_path, f"""
            import os, time, pytest

            def test_runs_while_the_cache_grows():
                seen = set()
                for _ in range(3000):   # until the writer has written during this test
                    seen.update(os.listdir({str(cache)!r}))
                    if len(seen) > 5:
                        break
                    time.sleep(0.01)
                assert len(seen) > 5

            @pytest.mark.parametrize("k", range(2))
            def test_skipped_twice(k):
                pytest.skip("reason A")

            def test_skipped_once():
                pytest.skip("reason B")
            """, home)
    finally:
        stop.write_text("")
        writer.wait(timeout=60)
    assert len(os.listdir(cache)) > 5
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "2 skipped: reason A" in proc.stdout and "1 skipped: reason B" in proc.stdout
    assert proc.stdout.index("2 skipped: reason A") < proc.stdout.index("1 skipped: reason B")


@pytest.mark.slow
def test_a_write_of_the_suites_own_under_the_real_home_fails_it(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    proc = _inner_session(tmp_path, """
        import os
        from pathlib import Path

        def test_writes_into_the_real_cache():
            cache = Path(os.environ["QSUDOKU_SUITE_REAL_HOME"]) / ".cache" / "qsudoku"
            cache.mkdir(parents=True)
            (cache / "leak.json").write_text("{}")
        """, home)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "1 passed" in proc.stdout
    assert f"the suite wrote under {home}" in proc.stdout
    assert str(home / ".cache" / "qsudoku" / "leak.json") in proc.stdout
