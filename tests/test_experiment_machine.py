"""bench and sweep on a hostile machine: a full disk or a file-size limit is one line with
exit 4 and loses no finished row; the input streams; the scheduler has a real deadline;
the library applies the command line's limits."""

from __future__ import annotations

import errno
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qsudoku import Config, parse_puzzle
from qsudoku.errors import ConfigError, MachineError
from qsudoku.experiments import bench, sweep, table
from qsudoku.experiments.runner import Point, Source, Task, run
from qsudoku.experiments.table import RowWriter, read_rows

from _cli import one_error, run as cli
from _servers import mute_listener
from _puzzles import BOX_GIVEN4, THREE_GIVENS4

PUZZLES = [BOX_GIVEN4, THREE_GIVENS4, ".2.." "...1" "3..." "..4.",
           "...4" "4..." ".1.." "..3.", "1..." "...." "..4." "...2", "..3." "4..." "...1" ".3..",
           "2..." "...." "...1" ".3..", "...." "1..." "..2." "...3"]
BENCH = ("bench", "--sampler", "sa", "--reads", "2", "--param", "num_sweeps=10", "--rules",
         "none", "--quiet")
ROOT = Path(__file__).resolve().parent.parent


def _keys(path) -> list[str]:
    keys = [r["key"] for r in read_rows(str(path))]
    assert len(keys) == len(set(keys))
    return keys


@pytest.mark.slow
def test_file_size_limit_is_exit_4_and_every_finished_row_is_kept(tmp_path):
    src = tmp_path / "p.txt"
    src.write_text("\n".join(PUZZLES) + "\n")
    out = tmp_path / "r.csv"
    code = ("import resource, signal, sys\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (4000, 4000))\n"
            "from qsudoku.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-c", code, *BENCH, str(src), "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr.strip() == (
        f"qsudoku: error: cannot write {out}: file too large: a file-size limit was reached "
        f"(EFBIG); finished rows are kept in {out} (--resume continues)")
    kept = _keys(out)
    assert 0 < len(kept) < len(PUZZLES) and not os.path.exists(f"{out}.lock")
    # without the limit, --resume completes the table
    assert subprocess.run([sys.executable, "-m", "qsudoku", *BENCH, str(src), "-o", str(out),
                           "--resume"], env=env, timeout=120).returncode == 0
    keys = _keys(out)
    assert len(keys) == len(PUZZLES) and keys[:len(kept)] == kept


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_full_disk_is_exit_4_and_resume_completes(tmp_path, capsys, monkeypatch, suffix):
    out = tmp_path / f"r{suffix}"
    calls = itertools.count()
    real = table.write_all

    def full_after_three(fd, data):
        if next(calls) >= 3:
            os.write(fd, data[:10])  # a torn line, as a full device leaves it
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(table, "write_all", full_after_three)
    code, _, err = cli(capsys, *BENCH, *PUZZLES[:5], "-o", out)
    journal = table.journal_path(str(out))
    assert code == 4
    assert one_error(err) == (f"qsudoku: error: cannot write {journal}: no space left on "
                              f"device (ENOSPC); finished rows are kept in {journal} "
                              "(--resume continues)")
    assert len(_keys(out)) == 3 and not os.path.exists(table.lock_path(str(out)))
    monkeypatch.setattr(table, "write_all", real)
    assert cli(capsys, *BENCH, *PUZZLES[:5], "-o", out, "--resume")[0] == 0
    assert len(_keys(out)) == 5 and not os.path.exists(journal if suffix == ".parquet" else "-")


def test_parquet_that_cannot_be_written_keeps_its_journal(tmp_path, monkeypatch):
    out = str(tmp_path / "r.parquet")

    def refuse(path, write):
        raise OSError(errno.EFBIG, os.strerror(errno.EFBIG))

    monkeypatch.setattr(table, "_atomic_write", refuse)
    w = RowWriter(out, ("key",))
    w.write({"key": "a", "v": 1})
    with pytest.raises(MachineError, match=r"r.parquet: file too large.*kept in .*partial.csv"):
        w.close()
    assert not os.path.exists(table.lock_path(out))
    assert [r["key"] for r in read_rows(out)] == ["a"]


def test_tasks_are_consumed_as_the_run_needs_them():
    p = parse_puzzle(BOX_GIVEN4)
    pt = Point("sa", Config().with_overrides(sampler="sa", route={"enabled": False},
                                             params={"num_reads": 1, "num_sweeps": 5}))
    made = []

    def endless():
        for i in itertools.count():
            made.append(i)
            yield Task(p, Source.argument(BOX_GIVEN4, i), pt)

    class Enough(Exception):
        pass

    rows = []

    def on_row(row):
        rows.append(row)
        if len(rows) == 3:
            raise Enough

    with pytest.raises(Enough):
        run(endless(), on_row=on_row)
    assert len(made) <= 4  # an endless input, three rows: a bounded read-ahead


def test_bench_and_sweep_inputs_are_iterators(tmp_path):
    from qsudoku.cli import build_parser
    from qsudoku.commands.experiment import read_experiment_inputs

    src = tmp_path / "p.txt"
    src.write_text("\n".join(PUZZLES) + "\n" + "x" * 20 + "\n")  # a bad last line
    args = build_parser().parse_args(["bench", str(src)])
    sources = read_experiment_inputs(args)
    assert not isinstance(sources, list)
    assert [s.index for s, _ in itertools.islice(sources, 3)] == [0, 1, 2]  # not read to the end


def test_library_calls_check_their_arguments_and_limits(tmp_path):
    p = parse_puzzle(BOX_GIVEN4)
    for kwargs, error, text in [
            ({"puzzles": BOX_GIVEN4}, TypeError, "puzzles must be an iterable of Puzzle"),
            ({"puzzles": [BOX_GIVEN4]}, TypeError, "puzzles[0] must be a Puzzle"),
            ({"axes": [("cell", [1])]}, TypeError, "axes must be a mapping"),
            ({"axes": {"cell": 1}}, TypeError, "axes['cell'] must be a list"),
            ({"axes": {"cell": []}}, ValueError, "axes['cell'] has no values"),
            ({"config": {"sampler": "sa"}}, TypeError, "config must be a qsudoku Config"),
            ({"repeat": 1.5}, TypeError, "repeat must be an int"),
            ({"repeat": 0}, ConfigError, "repeat 0 must be >= 1"),
            ({"jobs": 10**6}, ConfigError, "jobs 1000000 is too many; at most"),
            ({"jobs": "2"}, TypeError, "jobs must be an int"),
            ({"out": 3}, TypeError, "out must be a path"),
            ({"resume": "yes"}, TypeError, "resume must be a bool")]:
        call = {"puzzles": [p], "axes": {"cell": [1.0]}, **kwargs}
        with pytest.raises(error) as e:
            sweep.run_sweep(call.pop("puzzles"), call.pop("axes"), **call)
        assert text in str(e.value)
    rows = sweep.run_sweep((q for q in [p]), {"num_sweeps": [5]}, out=tmp_path / "s.csv")
    assert len(rows) == 1 and len(read_rows(str(tmp_path / "s.csv"))) == 1
    for load in (bench.load, sweep.load):
        with pytest.raises(ConfigError, match="results file not found: missing.csv"):
            load("missing.csv")
        with pytest.raises(TypeError, match="not int"):
            load(3)


# -- the scheduler ---------------------------------------------------------------------------

@pytest.fixture
def silent_listener():
    """A TCP listener that accepts connections and never answers."""
    with mute_listener(8) as port:
        yield f"tcp://127.0.0.1:{port}"


@pytest.mark.slow
def test_a_scheduler_that_never_answers_fails_within_its_timeout(silent_listener, capsys,
                                                                 monkeypatch):
    monkeypatch.setenv("QSUDOKU_SCHEDULER_TIMEOUT", "1")
    code, _, err = cli(capsys, *BENCH, BOX_GIVEN4, "--scheduler", silent_listener)
    assert code == 3
    assert one_error(err) == (f"qsudoku: error: cannot reach the Dask scheduler at "
                              f"{silent_listener}: no answer within 1 s (is `dask scheduler` "
                              "running there? QSUDOKU_SCHEDULER_TIMEOUT sets the wait)")


@pytest.mark.parametrize("value", ["nan", "-1", "abc", "1e308", "0", "inf"])
@pytest.mark.parametrize("variable", ["QSUDOKU_SCHEDULER_TIMEOUT", "QSUDOKU_WORKER_TIMEOUT"])
def test_bad_scheduler_waits_are_one_line_before_any_file(tmp_path, capsys, monkeypatch,
                                                          variable, value):
    monkeypatch.setenv(variable, value)
    code, _, err = cli(capsys, *BENCH, BOX_GIVEN4, "--scheduler", "tcp://127.0.0.1:1",
                       "-o", tmp_path / "r.csv")
    assert code == 2
    assert one_error(err) == (f"qsudoku: error: {variable}={value!r} must be a number of "
                              "seconds > 0 and <= 86400")
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_a_scheduler_without_workers_is_reported_after_a_bounded_wait(capsys, monkeypatch,
                                                                      tmp_path):
    from distributed import LocalCluster

    monkeypatch.setenv("QSUDOKU_WORKER_TIMEOUT", "1")
    with LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        code, _, err = cli(capsys, "bench", "--sampler", "sa", "--rules", "none", BOX_GIVEN4,
                           "--scheduler", address, "-o", tmp_path / "r.csv")
    assert code == 3
    assert err.strip().splitlines() == [
        f"qsudoku: the Dask scheduler at {address} has no workers; waiting up to 1 s for one",
        f"qsudoku: error: the Dask scheduler at {address} has no workers after 1 s (start "
        f"some with `dask worker {address}`; QSUDOKU_WORKER_TIMEOUT sets the wait)"]
    assert read_rows(str(tmp_path / "r.csv")) == []


def _without_pyarrow(tmp_path) -> dict:
    """The environment of a subprocess in which ``import pyarrow`` fails, as it does when
    the ``bench`` extra is not installed: a ``pyarrow`` package first on the path raises
    ImportError."""
    shadow = tmp_path / "shadow" / "pyarrow"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('pyarrow is not installed here')\n")
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": os.pathsep.join([str(shadow.parent), str(ROOT),
                                           os.environ.get("PYTHONPATH", "")])}


@pytest.mark.slow
@pytest.mark.parametrize("command", [BENCH, ("sweep", "--grid", "cell=1", "--reads", "2",
                                             "--rules", "none", "--quiet")])
def test_parquet_without_pyarrow_is_exit_3_before_any_work(tmp_path, command):
    env = _without_pyarrow(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    src = work / "p.txt"
    src.write_text("\n".join(PUZZLES) + "\n")
    out = work / "r.parquet"
    proc = subprocess.run([sys.executable, "-m", "qsudoku", *command, str(src), "-o",
                           str(out)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.strip() == (
        f"qsudoku: error: cannot write {out}: .parquet files need pyarrow, which is not "
        "installed: pip install -e \".[bench]\" (from the repository's root) (or write a .csv)")
    assert sorted(os.listdir(work)) == ["p.txt"]  # no rows, journal, lock or machine.json


@pytest.mark.slow
def test_the_library_checks_the_parquet_engine_before_any_work(tmp_path):
    env = _without_pyarrow(tmp_path)
    code = ("import sys\n"
            "from qsudoku import parse_puzzle\n"
            "from qsudoku.errors import BackendUnavailableError\n"
            "from qsudoku.experiments import sweep\n"
            "from qsudoku.experiments.table import RowWriter\n"
            "out = sys.argv[1]\n"
            "for call in (lambda: RowWriter(out, ('key',)),\n"
            "             lambda: sweep.run_sweep([parse_puzzle(sys.argv[2])], {'cell': [1]}, out=out)):\n"
            "    try:\n"
            "        call()\n"
            "    except BackendUnavailableError as e:\n"
            "        print(e)\n")
    out = tmp_path / "r.parquet"
    proc = subprocess.run([sys.executable, "-c", code, str(out), BOX_GIVEN4], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("need pyarrow, which is not installed") == 2, proc.stdout
    assert not any(p.name.startswith("r.parquet") for p in tmp_path.iterdir())


_FSIZE = ("import resource, signal, sys\n"
          "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
          "resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
          "from qsudoku.cli import main\n"
          "sys.exit(main(sys.argv[1:]))\n")


@pytest.mark.slow
def test_a_file_size_limit_while_resume_rewrites_its_file_is_exit_4(tmp_path):
    src = tmp_path / "p.txt"
    src.write_text("\n".join(PUZZLES) + "\n")
    out = tmp_path / "r.csv"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "PYTHONDONTWRITEBYTECODE": "1"}
    first = subprocess.run([sys.executable, "-m", "qsudoku", *BENCH, str(src), "--first", "5",
                            "-o", str(out)], env=env, timeout=120)
    assert first.returncode == 0
    before = out.read_bytes()
    limit = len(before) // 2  # the rewritten file cannot be written whole
    proc = subprocess.run([sys.executable, "-c", _FSIZE.format(limit=limit), *BENCH, str(src),
                           "-o", str(out), "--resume"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr.strip() == (
        f"qsudoku: error: cannot write {out}: file too large: a file-size limit was reached "
        f"(EFBIG); finished rows are kept in {out} (--resume continues)")
    assert out.read_bytes() == before and len(_keys(out)) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == [  # the summary is the first run's
        "p.txt", "r.csv", "r.csv.machine.json", "r.provenance.json", "r.summary.csv",
        "r.summary.json"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_full_disk_while_resume_rewrites_its_journal_is_exit_4(tmp_path, capsys, monkeypatch,
                                                                 suffix):
    out = tmp_path / f"r{suffix}"
    assert cli(capsys, *BENCH, *PUZZLES[:3], "-o", out)[0] == 0
    keys = _keys(out)

    def full(src, dst, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full)
    code, _, err = cli(capsys, *BENCH, *PUZZLES[:5], "-o", out, "--resume")
    assert code == 4
    assert one_error(err) == (f"qsudoku: error: cannot write {table.journal_path(str(out))}: no "
                              f"space left on device (ENOSPC); finished rows are kept in {out} "
                              "(--resume continues)")
    assert _keys(out) == keys and not os.path.exists(table.lock_path(str(out)))
    assert not [p for p in os.listdir(tmp_path) if p.endswith((".tmp", ".partial.csv"))]


@pytest.mark.parametrize("call", ["pwrite"])  # a new lock file: never truncated
def test_a_full_disk_when_the_lock_is_taken_is_exit_4_and_leaves_no_lock(tmp_path, capsys,
                                                                         monkeypatch, call):
    out = tmp_path / "r.csv"

    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, call, full)
    code, _, err = cli(capsys, *BENCH, *PUZZLES[:2], "-o", out)
    assert code == 4
    assert one_error(err) == (f"qsudoku: error: cannot write {table.lock_path(str(out))}: no "
                              "space left on device (ENOSPC)")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("code, exit_code, why", [
    (errno.EIO, 4, "input/output error of the device (EIO)"),
    (errno.ENOLCK, 2, os.strerror(errno.ENOLCK))])
def test_flock_failing_removes_the_lock_file_it_created_only(tmp_path, capsys, monkeypatch,
                                                             code, exit_code, why):
    import fcntl

    out = tmp_path / "r.csv"
    lock = table.lock_path(str(out))

    def failing(fd, op):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(fcntl, "flock", failing)
    got, _, err = cli(capsys, *BENCH, *PUZZLES[:2], "-o", out)
    assert got == exit_code
    assert one_error(err) == f"qsudoku: error: cannot lock {lock}: {why}"
    assert os.listdir(tmp_path) == []  # the lock file this run created is gone
    with open(lock, "w") as f:  # one it did not create (another writer's) is left alone
        f.write("12345\n")
    assert cli(capsys, *BENCH, *PUZZLES[:2], "-o", out)[0] == exit_code
    assert os.listdir(tmp_path) == ["r.csv.lock"] and open(lock).read() == "12345\n"


def test_the_machine_failing_a_read_or_a_directory_is_exit_4_not_bad_input(tmp_path,
                                                                          monkeypatch):
    from qsudoku.experiments.tasks import iter_sources
    from qsudoku.io import output
    from qsudoku.io.rules import Rules
    from qsudoku.io.stream import read_lines

    class Failing:
        def readline(self, size):
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    (_, error), = read_lines(Failing(), "p.txt")
    assert isinstance(error, MachineError)
    assert str(error) == "cannot read p.txt: input/output error of the device (EIO)"
    src = tmp_path / "p.txt"
    src.write_text(BOX_GIVEN4 + "\n")
    real_open = open

    def failing_open(path, *args, **kwargs):
        if os.fspath(path) == str(src):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", failing_open)
    skipped = []  # --keep-going skips bad puzzles, not a failing machine
    with pytest.raises(MachineError, match=r"cannot read .*p.txt: input/output error"):
        list(iter_sources([str(src)], Rules(), on_error=skipped.append))
    assert skipped == []
    monkeypatch.undo()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "makedirs", full)
    with pytest.raises(MachineError, match=r"^cannot create the directory --plot figs: no space"):
        output.make_directory("figs", "--plot")
