"""Where the kernels' compile cache goes (qsudoku.samplers._jit), down to a read-only install."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import qsudoku
from qsudoku.samplers import _jit

pytestmark = pytest.mark.skipif(not _jit.HAVE_NUMBA, reason="numba not installed")


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A fresh decision, the temporary directory in ``tmp_path``, numba's cache dir restored."""
    import numba

    monkeypatch.setattr(_jit, "_MODE", None)
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    monkeypatch.setattr(_jit.tempfile, "gettempdir", lambda: str(tmp_path))
    return tmp_path


def test_a_writable_place_is_used_as_numba_finds_it(fresh, monkeypatch):
    monkeypatch.setattr(_jit, "_can_cache", lambda: True)
    assert _jit.cache_mode() == "numba"
    assert not any(fresh.iterdir())


def test_no_writable_place_caches_in_a_private_temporary_directory(fresh, monkeypatch):
    import numba

    calls = []
    monkeypatch.setattr(_jit, "_can_cache", lambda: calls.append(numba.config.CACHE_DIR) or
                        len(calls) > 1)  # the second probe is in the private directory
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no note: the cache still works
        assert _jit.cache_mode() == "temp"
    path = Path(numba.config.CACHE_DIR)
    assert path.parent == fresh and calls[-1] == str(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_an_unsafe_temporary_directory_is_not_used_and_one_note_says_so(fresh, monkeypatch):
    import numba

    uid = os.getuid() if hasattr(os, "getuid") else 0
    shared = fresh / f"qsudoku-numba-{uid}"
    shared.mkdir()
    shared.chmod(0o777)  # anyone could plant pickled index files there
    before = numba.config.CACHE_DIR
    monkeypatch.setattr(_jit, "_can_cache", lambda: False)
    with pytest.warns(_jit.KernelCacheWarning, match="compile in every process") as notes:
        assert _jit.cache_mode() == "memory"
        assert _jit.cache_mode() == "memory"  # decided once: no second note
    assert len(notes) == 1
    assert numba.config.CACHE_DIR == before


@pytest.mark.slow
def test_a_read_only_install_solves_with_one_note(tmp_path):
    """Package dir, HOME and NUMBA_CACHE_DIR unusable (paths under a file, so that even
    root cannot write there), the private temporary directory unsafe: the kernels
    compile in memory, the solve works, and stderr holds one note and no traceback."""
    src = Path(qsudoku.__file__).parent
    pkg = tmp_path / "site" / "qsudoku"
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for d in [pkg, *(p for p in pkg.rglob("*") if p.is_dir())]:
        (d / "__pycache__").write_text("")  # a file: no cache directory can go there
    blocked = tmp_path / "blocked"
    blocked.write_text("")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    (tmp / f"qsudoku-numba-{uid}").mkdir(mode=0o777)
    os.chmod(tmp / f"qsudoku-numba-{uid}", 0o777)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    env.update(PYTHONPATH=str(pkg.parent), HOME=str(blocked), NUMBA_CACHE_DIR=str(blocked / "nb"),
               TMPDIR=str(tmp), PYTHONDONTWRITEBYTECODE="1")
    puzzle = "1" + "." * 5 + "2" + "." * 8 + "4"  # a 4x4
    out = subprocess.run([sys.executable, "-m", "qsudoku", "solve", puzzle],
                         capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "VALID" in out.stdout
    assert "Traceback" not in out.stderr
    assert out.stderr.count("KernelCacheWarning") == 1, out.stderr
