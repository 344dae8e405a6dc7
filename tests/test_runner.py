"""qsudoku.experiments.runner and the flags bench and sweep share: keys, resume, one writer, sweep flags,
bench = solve, where the tasks run."""

from __future__ import annotations

import json
import os
import shutil
import socket

import pytest

from qsudoku import Config, parse_puzzle
from qsudoku.cli import main
from qsudoku.experiments.table import RowWriter, read_rows
from qsudoku.experiments.runner import Point, Source, Task, make_tasks

from _shared import DATA, needs_data
from _puzzles import BOX_GIVEN4, FOUR_GIVENS4, SEED004, THREE_GIVENS4

SA = Config().with_overrides(sampler="sa", route={"enabled": False})


def test_task_keys_are_content_derived(tmp_path):
    a, b = tmp_path / "a" / "sudoku4", tmp_path / "b" / "sudoku4"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    (a / "x.txt").write_text(BOX_GIVEN4 + "\n")
    (b / "x.txt").write_text(BOX_GIVEN4 + "\n")
    fa, fb = Source.file(str(a / "x.txt"), 0, "sudoku4/x"), Source.file(str(b / "x.txt"), 0, "sudoku4/x")
    assert fa.set == fb.set and fa.ref != fb.ref  # same label, two files: two keys
    assert Source.file(str(a / "x.txt"), 0, "s") .ref == Source.file(
        os.path.relpath(a / "x.txt"), 0, "other label").ref  # the file, however it is named
    assert Source.argument("1...", 0).ref != Source.argument("2...", 0).ref
    assert Source.argument("1...", 0).ref == Source.argument("1...", 0).ref
    p = parse_puzzle(BOX_GIVEN4)
    pts = [Point("sa", SA), Point("sa", SA, budget=1.0), Point("tabu", SA),
           Point("sa", SA, (("cell", 2.0),))]
    keys = {Task(p, fa, pt, r).key() for pt in pts for r in (0, 1)}
    assert len(keys) == 8
    # duplicates (the same argument twice) collapse into one task
    tasks = make_tasks([(Source.argument(BOX_GIVEN4, 0), p)] * 2, pts[:1], repeat=2)
    assert len(tasks) == 2 and len({t.key() for t in tasks}) == 2


def _bench(*argv):
    return main(["bench", *argv, "--sampler", "sa", "--reads", "3", "--param", "num_sweeps=20",
                 "--rules", "none", "--quiet"])


@pytest.mark.slow
def test_resume_runs_puzzles_added_later_and_files_of_the_same_name(tmp_path):
    a, b = tmp_path / "a" / "sudoku4", tmp_path / "b" / "sudoku4"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    (a / "x.txt").write_text(BOX_GIVEN4 + "\n" + FOUR_GIVENS4 + "\n")
    (b / "x.txt").write_text(".2.." "...1" "3..." "..4." + "\n")
    out = str(tmp_path / "r.csv")
    assert _bench(BOX_GIVEN4, "-o", out) == 0
    assert _bench(BOX_GIVEN4, THREE_GIVENS4, "-o", out, "--resume") == 0
    rows = read_rows(out)
    assert [r["puzzle"] for r in rows] == ["<argument>:1", "<argument>:1"]  # two arguments
    assert len({r["key"] for r in rows}) == 2
    assert _bench(str(a / "x.txt"), "-o", out, "--resume") == 0
    assert _bench(str(a / "x.txt"), str(b / "x.txt"), "-o", out, "--resume") == 0
    rows = read_rows(out)
    assert len(rows) == 5 and len({r["key"] for r in rows}) == 5
    assert [r["set"] for r in rows].count("sudoku4/x") == 3


def test_a_second_writer_is_refused_with_exit_2(tmp_path, capsys):
    out = str(tmp_path / "r.csv")
    assert _bench(BOX_GIVEN4, "-o", out) == 0
    with RowWriter(out, ("key",), resume=True):  # another run holds the file
        code = _bench(BOX_GIVEN4, FOUR_GIVENS4, "-o", out, "--resume")
    err = capsys.readouterr().err
    assert code == 2 and "another" in err and "Traceback" not in err
    assert len(read_rows(out)) == 1  # nothing lost, nothing added


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_unreachable_scheduler_is_exit_3_with_one_line(tmp_path, capsys):
    code = main(["sweep", BOX_GIVEN4, "--grid", "cell=1", "--reads", "2", "--quiet",
                 "--scheduler", f"tcp://127.0.0.1:{_free_port()}"])
    err = capsys.readouterr().err.strip()
    assert code == 3 and len(err.splitlines()) == 1 and "127.0.0.1" in err


def test_sweep_keeps_reads_and_seed_without_a_config(tmp_path):
    out = str(tmp_path / "s.csv")
    # (a generous budget: on a loaded machine 0.8 s can pass before the first round)
    assert main(["sweep", SEED004, "--grid", "cell=1,2", "--reads", "7", "--seed", "5",
                 "--repeat", "2", "--time-budget", "60", "-o", out, "--quiet"]) == 0
    rows = read_rows(out)
    assert {r["num_reads"] for r in rows} == {"7"} and {r["sampler"] for r in rows} == {"sa"}
    assert sorted(int(r["seed"]) for r in rows) == [5, 5, 6, 6]
    assert all('"seed": %s' % r["seed"] in r["params"] for r in rows)


@pytest.mark.slow
def test_sweep_rows_are_fixed_samples_whatever_the_route_flags(tmp_path):
    # a sweep measures: one call of --reads reads, all counted; the round flags do not apply
    out = str(tmp_path / "s.csv")
    assert main(["sweep", SEED004, "--sampler", "swap-tabu", "--grid", "tenure=3,5",
                 "--time-budget", "5", "--reads", "6", "--seed", "1", "-o", out,
                 "--quiet"]) == 0
    rows = read_rows(out)
    assert [r["tenure"] for r in rows] == ["3", "5"]
    assert all(r["num_reads"] == "6" and r["rounds"] == "1" for r in rows)
    assert all(r["solved_by"] in ("swap-tabu (1 round)", "none") for r in rows)
    assert all('"tenure": %s' % r["tenure"] in r["params"] for r in rows)
    assert all('"stop_at_ground": false' in r["params"] for r in rows)
    out2 = str(tmp_path / "once.csv")
    assert main(["sweep", SEED004, "--sampler", "swap-tabu", "--grid", "tenure=4", "--no-route",
                 "-o", out2, "--quiet"]) == 0
    (row,) = read_rows(out2)  # no --reads: the registered 10**6 capped for a fixed sample
    assert row["rounds"] == "1" and row["num_reads"] == "100" and "fallback" not in row["solved_by"]


@pytest.mark.slow
@needs_data
def test_bench_rows_are_what_solve_prints(tmp_path):
    # The default backend is `qsudoku solve` with the same config and seed: same verdict,
    # same way of solving, same model, on a propagation-solved, a hard and a jigsaw puzzle.
    out = str(tmp_path / "b.csv")
    files = [str(DATA / "sudoku9" / "royle_17clue.txt"), str(DATA / "jigsaw9" / "smilingwayne.txt"),
             str(DATA / "sudoku9" / "forum_hardest_1106.txt")]
    assert main(["bench", *files, "--first", "2", "--seed", "3", "-o", out, "--quiet"]) == 0
    rows = read_rows(out)
    assert len(rows) == 6 and {r["sampler"] for r in rows} == {"solve"}
    import qsudoku

    by_name = {p.name: qsudoku.solve(p, Config().with_overrides(seed=3)).to_dict()
               for f in files for p in qsudoku.load_puzzles(f)[:2]}
    for r in rows:
        s = by_name[r["puzzle"]]
        assert r["valid"] == str(s["valid"]) and r["num_variables"] == str(s["num_variables"])
        assert r["solved_by"].split(" (")[0] == s["solved_by"].split(" (")[0]
        assert r["route"] == ("propagation" if s["solved_by"] == "propagation" else
                              "fallback" if "fallback" in s["solved_by"] else "sampling")
    assert {r["route"] for r in rows} >= {"propagation", "sampling"}


@pytest.mark.slow
def test_local_cluster_rows_match_in_process_rows(tmp_path):
    # --jobs 2 runs a local Dask cluster; seeded rows are the same as in-process ones
    # (every column but times), each exactly once.
    four = (DATA / "generated" / "sudoku4" / "unique.txt").read_text().splitlines()[:3]
    (tmp_path / "p.txt").write_text("\n".join(four) + "\n")
    outs = {}
    for jobs in (1, 2):
        outs[jobs] = str(tmp_path / f"j{jobs}.csv")
        assert main(["bench", str(tmp_path / "p.txt"), "--sampler", "sa,steepest", "--reads", "4",
                     "--seed", "2", "--rules", "none", "--repeat", "2", "--jobs", str(jobs),
                     "-o", outs[jobs], "--quiet"]) == 0
    strip = lambda rows: sorted(  # noqa: E731
        tuple((k, v) for k, v in r.items() if not k.startswith(("t_", "tts99", "ttt99"))
              and k not in ("wall", "info", "peak_rss_mb")) for r in rows)
    one, two = read_rows(outs[1]), read_rows(outs[2])
    assert strip(one) == strip(two) and len({r["key"] for r in two}) == len(two)


@pytest.mark.slow
def test_scheduler_from_the_config_file_and_the_environment(tmp_path, capsys, monkeypatch):
    port = _free_port()
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[sampler]\nname = "sa"\n[cluster]\nscheduler = "tcp://127.0.0.1:{port}"\n')
    assert main(["sweep", BOX_GIVEN4, "--config", str(cfg), "--grid", "cell=1", "--quiet"]) == 3
    assert f"127.0.0.1:{port}" in capsys.readouterr().err
    other = _free_port()
    monkeypatch.setenv("QSUDOKU_SCHEDULER", f"tcp://127.0.0.1:{other}")  # wins over the file
    assert main(["sweep", BOX_GIVEN4, "--config", str(cfg), "--grid", "cell=1", "--quiet"]) == 3
    assert f"127.0.0.1:{other}" in capsys.readouterr().err
    with pytest.raises(Exception, match="cluster.scheduler"):
        Config.from_dict({"cluster": {"scheduler": 5}})
