"""Batch work over a directory on a local Dask cluster, with each worker's memory bounded
(``--worker-memory``, ``[cluster] worker_memory``) and the peak memory reported."""

from __future__ import annotations

import csv
import shutil

import pytest

from qsudoku.cli import main
from qsudoku.errors import ConfigError

from _shared import DATA
from _puzzles import THREE_GIVENS4
from _backend_cases import FOUR
from _cli import one_error
from _cli import run


@pytest.mark.slow
def test_bench_over_a_directory_on_workers_with_a_memory_limit(tmp_path, capsys):
    folder = tmp_path / "sudoku4"
    folder.mkdir()
    for name in ("unique.txt", "unique.solutions.txt", "unique.ids.txt"):
        shutil.copy(DATA / "generated" / "sudoku4" / name, folder / name)
    (folder / "notes.md").write_text("not a puzzle file")
    out = tmp_path / "r.csv"
    code = main(["bench", str(folder), "--first", "4", "--sampler", "sa", "--reads", "2",
                 "--jobs", "2", "--worker-memory", "1GiB", "-o", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert "local Dask cluster: 2 workers, memory limit 1.00 GiB each" in err
    assert "peak memory of a process that ran tasks:" in err
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 and {r["set"] for r in rows} == {"sudoku4/unique"}
    assert all(0 < float(r["peak_rss_mb"]) < 1024 for r in rows)  # under the limit


@pytest.mark.parametrize("value", ["lots", "1.5.2GB", "1 XB"])
def test_a_bad_worker_memory_is_one_line(value, capsys):
    assert main(["bench", THREE_GIVENS4, "--worker-memory", value,
                 "--jobs", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--worker-memory" in err[0] and "2GiB" in err[0]


def test_the_config_takes_a_worker_memory(tmp_path):
    from qsudoku.config import load_config

    f = tmp_path / "c.toml"
    f.write_text('[cluster]\nworker_memory = "512MiB"\n')
    assert load_config(str(f)).cluster.worker_memory == "512MiB"
    f.write_text('[cluster]\nworker_memory = "plenty"\n')
    with pytest.raises(ConfigError, match="c.toml.*cluster.worker_memory = 'plenty'"):
        load_config(str(f))


def test_a_directory_without_puzzle_files_is_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["bench", str(tmp_path / "empty"), "--sampler", "sa"]) == 2
    err = capsys.readouterr().err
    assert "no puzzle files (.txt, .tsv) in this directory" in err


@pytest.mark.slow
def test_peak_memory_counts_a_solver_child_that_outgrows_the_process():
    """A solver run in a child process (CaDiCaL under a time limit) is the task's memory."""
    import subprocess
    import sys

    from qsudoku.experiments.measure import peak_rss_mb

    own = float(peak_rss_mb())
    size = int((own + 150) * 2**20)  # the child touches 150 MB more than this process's peak
    subprocess.run([sys.executable, "-c", f"b = bytearray({size}); b[::4096] = b'x' * len(b[::4096])"],
                   check=True)
    assert float(peak_rss_mb()) >= own + 150


@pytest.mark.parametrize("value", ["1MiB", "0.5KiB", "100MB"])
def test_a_worker_memory_below_the_minimum_is_one_line(value, capsys, tmp_path):
    out_csv = tmp_path / "r.csv"
    out_csv.write_text("kept\n")
    code, out, err = run(capsys, "bench", FOUR, "--sampler", "sa", "--reads", "2", "--jobs", "2",
                         "--worker-memory", value, "-o", out_csv, "--no-progress")
    line = one_error(err)
    assert code == 2 and out == "" and "internal error" not in err
    assert f"--worker-memory = {value!r} is below the 256 MiB a Dask worker needs" in line
    assert "give at least 256MiB, or 0 for no limit" in line
    assert out_csv.read_text() == "kept\n"  # nothing lost


def test_the_config_and_the_engine_refuse_a_worker_memory_below_the_minimum(tmp_path):
    from qsudoku.config import load_config
    from qsudoku.errors import ConfigError
    from qsudoku.experiments.engine import run_batches

    import _engine_tasks as tasks

    cfg = tmp_path / "c.toml"
    cfg.write_text('[cluster]\nworker_memory = "1MiB"\n')
    with pytest.raises(ConfigError, match=r"cluster.worker_memory = '1MiB' is below the 256 MiB"):
        load_config(str(cfg))
    with pytest.raises(ConfigError, match=r"worker_memory = 1024 is below the 256 MiB"):
        next(iter(run_batches(tasks.where, [[1]], jobs=2, worker_memory=1024)))
    cfg.write_text('[cluster]\nworker_memory = "256MiB"\n')
    assert load_config(str(cfg)).cluster.worker_memory == "256MiB"


@pytest.mark.slow
def test_a_worker_killed_for_memory_is_a_clear_backend_error():
    """A batch that outgrows the limit kills each worker that runs it; Dask gives up on it
    and the error says what the limit was and which flag raises it (exit 3)."""
    from qsudoku.errors import BackendUnavailableError
    from qsudoku.experiments.engine import run_batches

    import _engine_tasks as tasks

    with pytest.raises(BackendUnavailableError) as e:
        for _ in run_batches(tasks.hog, [[600]], jobs=2, worker_memory="256MiB"):
            pass
    text = str(e.value)
    assert "batch 0" in text and "memory limit of 256.00 MiB: raise --worker-memory" in text
