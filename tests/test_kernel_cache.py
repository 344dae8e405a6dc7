"""Where the kernels' compile cache goes (qsudoku.samplers.jit), down to a read-only install."""

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
from qsudoku.samplers import jit as _jit
from _puzzles import HARD9
from _file_cases import python
from _input_cases import _only

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


def _run(code: str, env_extra: dict, cwd) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=600, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.slow
def test_a_changed_helper_module_recompiles_the_kernels_that_use_it(tmp_path):
    """numba alone keys a cached kernel on its own file: after the helper it calls changes,
    a new process would load the old machine code.  Keyed on every kernel module beside
    it, the kernel compiles again and sees the new helper."""
    pkg = tmp_path / "kpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_helper.py").write_text("from qsudoku.samplers.jit import njit\n\n\n"
                                    "@njit()\ndef helper(x):\n    return x + 1\n")
    (pkg / "_kernel.py").write_text("from qsudoku.samplers.jit import njit\n"
                                    "from ._helper import helper\n\n\n"
                                    "@njit()\ndef kernel(x):\n    return helper(x) * 2\n")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(qsudoku.__file__).parents[1])]),
           "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    code = "from kpkg._kernel import kernel\nprint(kernel(1), kernel.stats.cache_hits)"
    assert _run(code, env, tmp_path) == "4 Counter()"  # compiled, then cached
    assert _run(code, env, tmp_path) == "4 Counter({(int64,): 1})"  # loaded from the cache
    (pkg / "_helper.py").write_text("from qsudoku.samplers.jit import njit\n\n\n"
                                    "@njit()\ndef helper(x):\n    return x + 100\n")
    assert _run(code, env, tmp_path) == "202 Counter()"


_SAMPLE = """
import sys
from qsudoku.samplers import jit as _jit
if {mode!r} == "numba":
    _jit.FAST_LOAD_NUMBA = ((0, 0), (0, 0))
from qsudoku.io import parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.samplers import get_sampler
m = build_model(propagate(parse_puzzle({puzzle!r}), ()))
out = []
for name, kw in (("aco", {{"max_iters": 3}}), ("swap-tabu", {{"max_iters": 40}})):
    s = get_sampler(name)
    ss = s.sample(m.bqm, groups=m.groups(), num_reads=4, seed=5, **kw)
    out.append(sorted((float(e), tuple(r)) for e, r in zip(ss.record.energy, ss.record.sample)))
import hashlib
print(hashlib.sha256(repr(out).encode()).hexdigest()[:16], "numba.np.linalg" in sys.modules)
"""


@pytest.mark.slow
def test_kernels_loaded_without_numbas_refresh_give_the_same_reads(tmp_path):
    """The quick load (the runtime initialised alone) and numba's own (every registry
    installed first) run the same machine code: the same seeded reads."""
    hard = HARD9
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = _run(_SAMPLE.format(puzzle=hard, mode="quick"), env, tmp_path)  # fills the cache
    quick = _run(_SAMPLE.format(puzzle=hard, mode="quick"), env, tmp_path)
    full = _run(_SAMPLE.format(puzzle=hard, mode="numba"), env, tmp_path)
    if not _jit._fast_load_ok():
        pytest.skip(f"numba {__import__('numba').__version__} loads the numba way")
    reads, linalg = quick.split()
    assert linalg == "False"  # no refresh: numba's linear algebra module never imported
    assert full.split() == [reads, "True"]
    assert first.split()[0] == reads


def test_a_numba_outside_the_known_versions_loads_the_numba_way(monkeypatch):
    import numba

    monkeypatch.setattr(numba, "__version__", "0.99.0")
    assert not _jit._fast_load_ok()
    monkeypatch.setattr(numba, "__version__", "0.61.0rc1")
    assert _jit._fast_load_ok()
    monkeypatch.setattr(numba, "__version__", "1.0.0")
    assert not _jit._fast_load_ok()


def _corrupt_truncated_index(folder: Path) -> None:
    for f in folder.rglob("*.nbi"):
        f.write_bytes(f.read_bytes()[:20])


def _corrupt_garbage_code(folder: Path) -> None:
    import random

    rng = random.Random(7)
    for f in folder.rglob("*.nbc"):
        f.write_bytes(bytes(rng.randrange(256) for _ in range(200)))


def _corrupt_empty_files(folder: Path) -> None:
    for f in folder.rglob("*.nb*"):
        f.write_bytes(b"")


@pytest.mark.slow
@pytest.mark.parametrize("corrupt", [_corrupt_truncated_index, _corrupt_garbage_code,
                                     _corrupt_empty_files])
def test_a_corrupt_cache_entry_is_dropped_and_rebuilt_with_one_line(tmp_path, corrupt):
    """The kernel cache is a cache: a truncated index, garbage compiled code or the empty
    files a crash leaves make the kernel compile again (one warning line), and the next
    process loads the rebuilt entry."""
    pkg = tmp_path / "cpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_kernel.py").write_text("from qsudoku.samplers.jit import njit\n\n\n"
                                    "@njit()\ndef kernel(x):\n    return x * 3\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(Path(qsudoku.__file__).parents[1])]),
               NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    code = "from cpkg._kernel import kernel\nprint(kernel(2), kernel.stats.cache_hits)"

    def run():
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, timeout=600, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip(), out.stderr

    assert run() == ("6 Counter()", "")  # compiled, then cached
    assert run() == ("6 Counter({(int64,): 1})", "")  # loaded from the cache
    corrupt(tmp_path / "cache")
    out, err = run()
    assert out == "6 Counter()"  # the entry dropped: compiled again
    assert len(err.splitlines()) == 1 and "KernelCacheWarning" in err, err
    assert "dropped and is being rebuilt" in err and "Traceback" not in err
    assert run() == ("6 Counter({(int64,): 1})", "")  # rebuilt: loaded again, no note


@pytest.mark.slow
def test_kernel_cache_entry_that_is_a_fifo_is_dropped_not_read(tmp_path):
    code = """
import os, sys, warnings
from qsudoku.samplers import jit
folder = sys.argv[1]
os.mkfifo(os.path.join(folder, "k-1.py311.nbi"))
os.mkfifo(os.path.join(folder, "k-1.py311.1.nbc"))

class Index:
    _cache_path, _index_name = folder, "k-1.py311.nbi"
    _index_path = os.path.join(folder, "k-1.py311.nbi")

    def _load_index(self):  # numba's reader: a plain open, which a FIFO blocks
        with open(self._index_path, "rb") as f:
            return f.read()

    def _load_data(self, name):
        with open(os.path.join(folder, name), "rb") as f:
            return f.read()

class Cache:
    _cache_file = Index()

def load(sig, ctx):
    Cache._cache_file._load_index()
    return Cache._cache_file._load_data("k-1.py311.1.nbc")

with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    print(jit.safe_loader(Cache(), load)("sig", None), sorted(os.listdir(folder)))
    print(seen[0].message)
"""
    folder = tmp_path / "kernels"
    folder.mkdir()
    proc = python(tmp_path, code, folder, timeout=60)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.strip().splitlines()
    assert first == "None []"  # a miss: numba compiles it anew; the FIFOs are gone
    assert "unreadable numba cache entry" in second and "NotRegularFileError" in second


def test_cache_an_unreadable_kernel_entry_is_a_miss(tmp_path, recwarn):
    from qsudoku.samplers import jit

    (tmp_path / "k-1.py311.nbi").write_bytes(b"")
    (tmp_path / "k-1.py311.1.nbc").write_bytes(b"garbage")
    (tmp_path / "other-2.py311.nbi").write_bytes(b"kept")

    class Index:
        _cache_path, _index_name = str(tmp_path), "k-1.py311.nbi"

        def _load_index(self):
            raise EOFError("Ran out of input")

    class Cache:
        _cache_file = Index()

    def load(sig, ctx):
        Cache._cache_file._load_index()

    assert jit.safe_loader(Cache(), load)("sig", None) is None  # numba compiles it anew
    _only(tmp_path, "other-2.py311.nbi")
