"""Hostile files around a run: nothing lost, nothing hangs.

A file is replaced only when it provably is qsudoku's (``--resume`` reads its header
first; a lock file is only ever created exclusively; an output that is also an input
is refused), and every file qsudoku opens on its own (solutions beside a puzzle file,
``<out>.machine.json``, cache entries, journals) is opened without blocking, checked to
be a regular file and read with a bound.  Each case checks the exit code, the one
line said, and that no file changed that was not the run's own (bytes, mtime, links).
Runs that could hang go through a subprocess with a timeout, so that a regression
fails instead of hanging.  FIFOs are made with ``os.mkfifo`` in temporary
directories and large files are sparse (``truncate``); no real device is touched.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from qsudoku.experiments.results import read_rows
from qsudoku.experiments.table import lock_path
from _cli import run_in
from _puzzles import EASY4, ONE_GIVEN4

BENCH = ("bench", "--sampler", "random", "--reads", "1", "--rules", "none", "--quiet")
#: Seconds a run may take before a test calls it hung (a start of Python and qsudoku).
TIMEOUT = 120


def qsudoku(tmp_path, *args, timeout=TIMEOUT):
    """``python -m qsudoku ARGS`` in ``tmp_path`` (killed after ``timeout`` seconds)."""
    env = dict(os.environ, QSUDOKU_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-m", "qsudoku", *map(str, args)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=timeout)


def python(tmp_path, code, *args, timeout=TIMEOUT):
    """``python -c CODE ARGS`` (killed after ``timeout`` seconds)."""
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def here(capsys, monkeypatch):
    """:func:`qsudoku` run in this process (:func:`_cli.run_in`), for a run that cannot hang."""
    def call(tmp_path, *args):
        return run_in(capsys, monkeypatch, tmp_path, *args,
                      env={"QSUDOKU_CACHE_DIR": str(tmp_path / "cache")})
    return call


def error_line(proc) -> str:
    """The one ``qsudoku: error:`` line of a finished run (fails if it said more)."""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qsudoku: error: "), proc.stderr
    return lines[0][len("qsudoku: error: "):]


def state(*paths) -> dict:
    """What each path is: kind, bytes (of a regular file), mtime and link count, read
    without following a link and without opening a FIFO."""
    out = {}
    for p in paths:
        st = os.lstat(p)
        small = stat.S_ISREG(st.st_mode) and st.st_size < 1 << 20  # not a sparse 10 GB
        data = open(p, "rb").read() if small else None
        out[str(p)] = (stat.S_IFMT(st.st_mode), data, st.st_mtime_ns, st.st_nlink, st.st_size)
    return out


def leftovers(folder) -> list[str]:
    """Locks, temporaries and journals a run left in ``folder``."""
    return sorted(n for n in os.listdir(folder)
                  if n.endswith((".lock", ".tmp", ".partial.csv")))


def easy_file(tmp_path, name="easy.txt"):
    path = tmp_path / name
    path.write_text(EASY4 + "\n")
    return path


# -- 1. a file is replaced only when it is provably ours ------------------------------------
def _parquet_bytes(tmp_path) -> bytes:
    pytest.importorskip("pyarrow")
    import pandas as pd

    path = tmp_path / "made.parquet"
    pd.DataFrame({"key": ["a"], "valid": [True]}).to_parquet(path)
    data = path.read_bytes()
    path.unlink()
    return data


NOT_OURS = [
    ("notes.csv", lambda tmp: b"my important notes, no newline at the end",
     "its first line is not a complete header line qsudoku writes"),
    ("parquet.csv", _parquet_bytes, "its first line is not a complete header line"),
    ("empty.csv", lambda tmp: b"", "it is empty"),
    ("table.csv", lambda tmp: b"a,b\n1,2\n", "it has no column key"),
    ("header.csv", lambda tmp: b"key,status", "its first line is not a complete header line"),
    ("text.parquet", lambda tmp: b"key,status\r\n", "not a Parquet file pyarrow reads"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, make, why", NOT_OURS, ids=[n for n, _, _ in NOT_OURS])
def test_resume_refuses_a_file_that_is_not_ours_and_leaves_it(tmp_path, name, make, why):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    out = tmp_path / name
    out.write_bytes(make(tmp_path))
    before = state(out)
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", out, "--resume")
    assert proc.returncode == 2
    line = error_line(proc)
    assert name in line and why in line, line
    assert state(out) == before and leftovers(tmp_path) == []
    assert not os.path.exists(f"{out}.machine.json")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["r.csv", "r.parquet"])
def test_resume_continues_a_file_of_ours(tmp_path, name):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    puzzles = easy_file(tmp_path)
    assert qsudoku(tmp_path, *BENCH, puzzles, "-o", name).returncode == 0
    proc = qsudoku(tmp_path, *BENCH, puzzles, "-o", name, "--resume", "--repeat", "2")
    assert proc.returncode == 0, proc.stderr
    assert len(read_rows(str(tmp_path / name))) == 2 and leftovers(tmp_path) == []


def test_a_new_table_has_its_header_before_any_row(tmp_path):
    from qsudoku.experiments.results import results_header
    from qsudoku.experiments.table import RowWriter

    out = str(tmp_path / "r.csv")
    with RowWriter(out, ("key",), fields=["key", "valid"]):
        assert results_header(out) == ["key", "valid"]  # interrupted now: still resumable
    with RowWriter(out, ("key",), resume=True, fields=["key", "valid"]) as w:
        assert w.done == set()


def test_lock_a_hard_link_is_refused_and_its_data_kept(here, tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("my data\n")
    os.link(precious, tmp_path / "r.csv.lock")
    before = state(precious)
    proc = here(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.csv")
    assert proc.returncode == 2
    assert error_line(proc) == (f"cannot lock r.csv: {tmp_path}/r.csv.lock exists and is not a "
                                "lock file of qsudoku (a file with 2 names: a hard link); it was "
                                "left as it is (remove it if no run uses it)")
    assert state(precious) == before and not (tmp_path / "r.csv").exists()


@pytest.mark.slow
@pytest.mark.parametrize("target", ["precious.txt", "missing.txt", "fifo"])
def test_lock_a_symbolic_link_is_refused_and_never_followed(tmp_path, target):
    if target == "fifo":
        os.mkfifo(tmp_path / target)
    elif target == "precious.txt":
        (tmp_path / target).write_text("my data\n")
    os.symlink(tmp_path / target, tmp_path / "r.csv.lock")
    before = state(*[p for p in (tmp_path / target,) if os.path.lexists(p)])
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.csv")
    assert proc.returncode == 2
    assert "r.csv.lock exists and is not a lock file of qsudoku (a symbolic link)" in \
        error_line(proc)
    assert state(*[p for p in (tmp_path / target,) if os.path.lexists(p)]) == before
    assert not (tmp_path / "missing.txt").exists() and not (tmp_path / "r.csv").exists()


@pytest.mark.slow
@pytest.mark.parametrize("content, why", [(b"hello, not a pid\n", "it holds other data"),
                                          (None, "a FIFO")])
def test_lock_a_file_that_is_not_a_lock_is_left_alone(tmp_path, content, why):
    lock = tmp_path / "r.csv.lock"
    if content is None:
        os.mkfifo(lock)
    else:
        lock.write_bytes(content)
    before = state(lock)
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.csv")
    assert proc.returncode == 2 and why in error_line(proc)
    assert state(lock) == before


@pytest.mark.slow
@pytest.mark.parametrize("content", [b"999999999\n", b""])
def test_lock_left_by_a_dead_run_is_replaced(tmp_path, content):
    lock = tmp_path / "r.csv.lock"
    lock.write_bytes(content)  # no live process holds it
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.csv")
    assert proc.returncode == 0, proc.stderr
    assert not lock.exists() and len(read_rows(str(tmp_path / "r.csv"))) == 1


def test_lock_is_created_exclusively_never_opened():
    import inspect

    from qsudoku.experiments import locks

    source = inspect.getsource(locks)
    assert "O_EXCL" in source and "ftruncate" not in source
    assert lock_path("/tmp/./x.parquet.partial.csv") == lock_path("/tmp/x.parquet")


@pytest.mark.parametrize("out", ["X.csv", "./X.csv", "link.csv", "hard.csv"])
def test_an_output_that_is_also_an_input_is_refused(here, tmp_path, out):
    puzzles = tmp_path / "X.csv"
    puzzles.write_text(EASY4 + "\n")
    os.symlink(puzzles, tmp_path / "link.csv")
    os.link(puzzles, tmp_path / "hard.csv")
    before = state(puzzles)
    proc = here(tmp_path, *BENCH, "X.csv", "-o", out, "--overwrite")
    assert proc.returncode == 2
    assert error_line(proc) == (f"-o {out}: {out} is also an input of this run (X.csv); "
                                "write the results to another file")
    assert state(puzzles) == before and leftovers(tmp_path) == []


def test_sweep_an_output_that_is_the_config_is_refused(here, tmp_path):
    config = tmp_path / "c.csv"
    config.write_text("[sampler]\nname = \"random\"\n")
    before = state(config)
    proc = here(tmp_path, "sweep", EASY4, "--config", config, "--grid", "cell=1,2",
                   "-o", config, "--overwrite", "--quiet")
    assert proc.returncode == 2 and "is also an input of this run" in error_line(proc)
    assert state(config) == before


# -- 2. files qsudoku opens on its own --------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("command", ["solve", "count"])
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_solutions_beside_the_input_that_are_not_a_file_are_skipped(tmp_path, command, kind):
    puzzles = easy_file(tmp_path, "p.txt")
    sol = tmp_path / "p.solutions.txt"
    os.mkfifo(sol) if kind == "fifo" else sol.mkdir()
    before = state(puzzles, sol)
    proc = qsudoku(tmp_path, command, "p.txt", timeout=60)
    assert proc.returncode == 0, proc.stderr
    what = "a FIFO" if kind == "fifo" else "a directory"
    assert proc.stderr.strip() == (f"qsudoku:0: SkippedFileWarning: cannot read the solutions "
                                   f"file p.solutions.txt: it is {what}, not a regular file; the "
                                   "puzzles are read without known solutions")
    assert state(puzzles, sol) == before


@pytest.mark.slow
def test_solutions_as_a_link_to_a_huge_file_are_read_with_a_bound(tmp_path):
    easy_file(tmp_path, "p.txt")
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(10 * 1024 ** 3)  # sparse: no disk used
    os.symlink(big, tmp_path / "p.solutions.txt")
    before = state(big)
    proc = qsudoku(tmp_path, "solve", "p.txt", timeout=60)
    assert proc.returncode == 2  # one line of at most MAX_LINE_BYTES is read, not 10 GB
    assert error_line(proc) == "p.solutions.txt:1: binary file (NUL bytes), not puzzle text"
    assert state(big) == before


@pytest.mark.slow
def test_machine_record_that_is_a_fifo_is_left_alone(tmp_path):
    fifo = tmp_path / "m.csv.machine.json"
    os.mkfifo(fifo)
    before = state(fifo)
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "m.csv", timeout=60)
    assert proc.returncode == 0
    assert proc.stderr.strip() == ("qsudoku: warning: m.csv.machine.json is a FIFO, not a "
                                   "regular file; the machine record is not written")
    assert state(fifo) == before and len(read_rows(str(tmp_path / "m.csv"))) == 1


def test_journal_that_is_a_fifo_is_refused(tmp_path):
    pytest.importorskip("pyarrow")
    fifo = tmp_path / "r.parquet.partial.csv"
    os.mkfifo(fifo)
    before = state(fifo)
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.parquet", "--resume",
                   timeout=60)
    assert proc.returncode == 2 and "not a regular file" in error_line(proc)
    assert state(fifo) == before


@pytest.mark.slow
def test_reading_a_results_file_that_is_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "r.csv")
    proc = python(tmp_path, "import sys\nfrom qsudoku.errors import ConfigError\n"
                  "from qsudoku.experiments.results import read_rows\ntry:\n"
                  "    read_rows(sys.argv[1])\nexcept ConfigError as e:\n    print(e)",
                  tmp_path / "r.csv", timeout=60)
    assert proc.stdout.strip() == (f"cannot read the results file {tmp_path}/r.csv: it is a "
                                   "FIFO, not a regular file")


@pytest.fixture(scope="module")
def entry_name(tmp_path_factory) -> str:
    """The file name of the embedding-cache entry of ``ONE_GIVEN4``'s model (one ``embed``)."""
    folder = tmp_path_factory.mktemp("embed")
    proc = qsudoku(folder, "embed", ONE_GIVEN4, "--rules", "none", "--time-budget", "5", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    (entry,) = (folder / "cache" / "embeddings").glob("*.json")
    return entry.name


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "link to a FIFO", "link to a huge file"])
def test_embedding_cache_entry_that_cannot_be_read_is_a_miss(tmp_path, entry_name, kind):
    entry = tmp_path / "cache" / "embeddings" / entry_name
    entry.parent.mkdir(parents=True)
    other = tmp_path / ("big" if kind.endswith("huge file") else "fifo")
    if kind == "fifo":
        os.mkfifo(entry)
        other = entry
    elif other.name == "fifo":
        os.mkfifo(other)
        os.symlink(other, entry)
    else:
        with open(other, "wb") as f:
            f.truncate(10 * 1024 ** 3)  # sparse: no disk used
        os.symlink(other, entry)
    before = state(other)
    proc = qsudoku(tmp_path, "embed", ONE_GIVEN4, "--rules", "none", "--time-budget", "5", "--seed", "1",
                   timeout=90)
    assert proc.returncode == 0, proc.stderr
    warning, = [ln for ln in proc.stderr.splitlines() if "SkippedFileWarning" in ln]
    why = "larger than 67,108,864 bytes" if other.name == "big" else "it is a FIFO"
    assert f"cannot read the embedding cache entry {entry}: " in warning
    assert why in warning and warning.endswith("the embedding is found anew")
    if kind != "fifo":  # the link was replaced by a new entry, its target left alone
        assert state(other) == before and stat.S_ISREG(os.lstat(entry).st_mode)


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
