"""Tests touch only their own temporary directories: caches included, never ``~/.cache``."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

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
