"""The provenance record of a results file (``F.provenance.json``): what ran it (the spec,
the commit, the command line), when, under which load and on which machine; written at
the start, finished at the end or on Ctrl-C; no absolute path of the machine in it or in
the rows."""

from __future__ import annotations

import itertools
import json
import os
import subprocess

import pytest

from qsudoku.experiments import runner
from qsudoku.experiments.provenance import (git_state, provenance_path, relative_argv,
                                            repository_root)

from _cli import run
from _puzzles import BOX_GIVEN4, THREE_GIVENS4
from _shared import REPO

BENCH = ("--sampler", "sa", "--reads", "2", "--param", "num_sweeps=10", "--rules", "none",
         "--quiet")


def _record(out) -> dict:
    return json.loads(open(provenance_path(str(out)), encoding="utf-8").read())


def test_a_bench_with_an_output_writes_its_provenance_beside_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(BOX_GIVEN4 + "\n" + THREE_GIVENS4 + "\n")
    (tmp_path / "runs").mkdir()
    code, _, err = run(capsys, "bench", *BENCH, puzzles, "-o", tmp_path / "runs" / "r.csv")
    assert code == 0, err
    rec = _record(tmp_path / "runs" / "r.csv")
    assert (tmp_path / "runs" / "r.provenance.json").is_file()
    assert rec["spec"] is None and rec["status"] == "finished"
    assert rec["command"] == ["qsudoku", "bench", *BENCH, "p.txt", "-o", "runs/r.csv"]
    assert rec["started"] <= rec["ended"] and rec["started"].endswith("Z")
    assert len(rec["load_start"]) == 3 and len(rec["load_end"]) == 3
    assert rec["machine"]["cores"] == os.cpu_count() and "dimod" in rec["machine"]["packages"]
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    assert rec["commit"] == head and isinstance(rec["dirty"], bool)
    # no absolute path of the machine: not in the record, not in the rows or summaries
    for f in (tmp_path / "runs").iterdir():
        assert str(tmp_path) not in f.read_text(encoding="utf-8"), f.name


@pytest.mark.slow
def test_a_spec_run_names_its_spec_relative_to_the_repository(tmp_path, capsys):
    spec = tmp_path / "s.toml"  # outside the repository: relative to the working directory
    spec.write_text('title = "t"\ncommand = "sweep"\npuzzles = []\n'
                    '[options]\nreads = 2\nparam = ["num_sweeps=10"]\n')
    out = tmp_path / "s.csv"
    code, _, err = run(capsys, "sweep", "--spec", spec, BOX_GIVEN4, "--quiet", "-o", out)
    assert code == 0, err
    rec = _record(out)
    assert rec["spec"] == os.path.relpath(spec) and not os.path.isabs(rec["spec"])
    assert rec["command"][:2] == ["qsudoku", "sweep"]
    assert not any(os.path.isabs(w) for w in rec["command"])
    study = REPO / "benchmarks" / "studies" / "annealers.toml"
    out = tmp_path / "a.csv"
    code, _, err = run(capsys, "bench", "--spec", study, BOX_GIVEN4, "--sampler", "sa",
                       "--repeat", "1", "--param", "num_sweeps=10", "--quiet", "-o", out)
    assert code == 0, err
    assert _record(out)["spec"] == "benchmarks/studies/annealers.toml"


def test_an_interrupted_run_keeps_its_record_with_what_it_finished(tmp_path, capsys,
                                                                  monkeypatch):
    real = runner.run

    def one_then_ctrl_c(tasks, writer, **kwargs):
        real(itertools.islice(tasks, 1), writer, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run", one_then_ctrl_c)
    out = tmp_path / "r.csv"
    code, _, err = run(capsys, "bench", *BENCH, BOX_GIVEN4, THREE_GIVENS4, "-o", out)
    assert code == 130 and "finished rows kept" in err
    rec = _record(out)
    assert rec["status"] == "interrupted" and rec["ended"] and rec["load_end"]


def test_a_refused_run_writes_no_record(tmp_path, capsys):
    out = tmp_path / "r.csv"
    out.write_text("not ours\n")
    code, _, _ = run(capsys, "bench", *BENCH, BOX_GIVEN4, "-o", out)
    assert code == 2 and not os.path.exists(provenance_path(str(out)))


def test_rows_name_their_puzzle_file_relative_to_the_working_directory(tmp_path, capsys,
                                                                       monkeypatch):
    from qsudoku.experiments.table import read_rows

    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "p.txt").write_text(BOX_GIVEN4 + "\n")
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "bench", *BENCH, tmp_path / "sets" / "p.txt", "-o", "r.csv")[0] == 0
    (row,) = read_rows("r.csv")
    assert row["key"].startswith("sets/p.txt:0|") and row["set"] == "sets/p"
    # the same file by a relative name is the same row: nothing new on --resume
    assert run(capsys, "bench", *BENCH, "sets/p.txt", "-o", "r.csv", "--resume")[0] == 0
    assert len(read_rows("r.csv")) == 1


def test_the_command_words_lose_their_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = relative_argv(["bench", str(tmp_path / "a.txt"), f"--output={tmp_path}/o.csv",
                           "/elsewhere/x.txt", "--first", "2"])
    assert words[:3] == ["bench", "a.txt", "--output=o.csv"]
    assert not os.path.isabs(words[3]) and words[3].endswith("elsewhere/x.txt")
    assert words[4:] == ["--first", "2"]


def test_no_checkout_has_no_commit(tmp_path):
    assert git_state(None) == (None, None)
    assert git_state(tmp_path) == (None, None)  # a directory git does not know
    assert repository_root() == REPO


def test_a_checkout_is_dirty_for_its_code_not_for_its_results(tmp_path):
    def git(*words):
        subprocess.run(["git", "-C", str(tmp_path), *words], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "benchmarks" / "results" / "s").mkdir(parents=True)
    (tmp_path / "benchmarks" / "results" / "s" / "results.csv").write_text("a\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    commit, dirty = git_state(tmp_path)
    assert len(commit) == 40 and dirty is False
    (tmp_path / "benchmarks" / "results" / "s" / "results.csv").write_text("b\n")
    assert git_state(tmp_path)[1] is False  # a study run again over its results
    (tmp_path / "code.py").write_text("x = 2\n")
    assert git_state(tmp_path)[1] is True
