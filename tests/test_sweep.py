import math
import os
import signal
import subprocess
import sys
import time

import pytest

from qsudoku import Config, parse_puzzle
from qsudoku.cli import main
from qsudoku.errors import ConfigError
from qsudoku.experiments.table import read_rows
from qsudoku.samplers import names
from qsudoku.experiments.runner import BROKEN_KINDS, Point, Source, Task, columns, measure
from qsudoku.experiments.sweep import (expand, load, parse_axis, parse_values, run_sweep, split_setting,
                           summarize)

from _shared import REPO
from _puzzles import BOX_GIVEN4, HARD9, SEED001, SEED004, THREE_GIVENS4
from _cli import one_error, run
from _io_cases import EASY
from _misc_cases import one_line
from _puzzles import EASY4


def _cfg(**kw):
    return Config().with_overrides(sampler="sa", route={"enabled": False}).with_overrides(**kw)


def _measure(text, cfg):
    """The runner's row of one puzzle with ``cfg`` (what a sweep point without axes runs)."""
    return measure(Task(parse_puzzle(text), Source.argument(text, 0), Point("sa", cfg)))


# -- the grid ----------------------------------------------------------------------------
def test_ranges_are_geometric_and_lists_keep_types():
    assert parse_values("0.5:4:8")[0] == 0.5 and parse_values("0.5:4:8")[-1] == 4.0
    vals = parse_values("0.5:4:8")
    ratios = [b / a for a, b in zip(vals, vals[1:])]
    assert len(vals) == 8 and max(ratios) - min(ratios) < 1e-3
    assert parse_values("10:1000:5") == [10, 32, 100, 316, 1000]
    with pytest.raises(ConfigError, match="round to 2 distinct integers"):
        parse_values("1:2:10")  # integer rounding would repeat values: refused, not shortened
    floats = parse_values("1.0:2.0:10")  # kept, not rounded to a few digits
    assert len(set(floats)) == 10 and abs(floats[1] - 2 ** (1 / 9)) < 1e-14
    assert parse_values("3") == [3] and parse_values("1.5,2") == [1.5, 2]
    assert parse_values("[0.1, 5], [1, 10]") == [[0.1, 5], [1, 10]]
    assert parse_values("geometric,linear") == ["geometric", "linear"]


def test_axis_values_are_toml_like_the_config_file():
    assert parse_values("false,true") == [False, True]  # not the (true) strings 'false', 'true'
    assert parse_values("1e-3,2") == [0.001, 2]
    assert parse_values('"a,b",c') == ["a,b", "c"]
    with pytest.raises(ConfigError, match=r"not TOML.*\[0.1,5\],\[1,10\]"):
        parse_values("(0.1, 5), (1, 10)")  # Python tuples are not a second syntax


@pytest.mark.parametrize("spec", ["cell", "cell=", "=1", "cell=0:1:3", "cell=1:2:0", "cell=1,,2"])
def test_bad_axes_are_config_errors(spec):
    with pytest.raises(ConfigError):
        parse_axis(spec)


def test_expand_and_unit_weight():
    s = expand({"cell": [1, 2], "unit": [0.5], "num_sweeps": [10, 20, 30]})
    assert len(s) == 6 and s[-1] == {"cell": 2, "unit": 0.5, "num_sweeps": 30}
    w, p = split_setting({"unit": 2, "column": 5, "cell": 1, "beta_range": (1, 2)})
    assert w == {"row": 2, "column": 5, "box": 2, "extra": 2, "cell": 1}
    assert p == {"beta_range": (1, 2)}


# -- measurements ------------------------------------------------------------------------
def test_measure_reports_consistent_metrics():
    m = _measure(SEED004, _cfg(reads=40, seed=5))
    assert m["num_variables"] == 63 and m["num_reads"] == 40 and m["solved_by"] == "sa (1 round)"
    assert 0 < m["success_prob"] <= 1 and m["num_valid"] == round(m["success_prob"] * 40)
    assert m["min_energy"] == 0.0 and m["mean_energy"] >= m["min_energy"]
    assert m["broken_total"] == pytest.approx(sum(m[f"broken_{k}"] for k in BROKEN_KINDS))
    assert m["t_read"] == pytest.approx(m["t_sample"] / 40)
    assert m["t_read"] <= m["tts99"] < math.inf
    assert math.isnan(m["chain_break_fraction"])


def test_measure_of_a_hopeless_setting_has_infinite_tts():
    m = _measure(SEED001, _cfg(reads=3, seed=1, params={"num_sweeps": 1}))
    assert m["success_prob"] == 0.0 and m["tts99"] == math.inf and m["min_energy"] > 0
    assert m["broken_total"] > 0


def test_weights_move_the_broken_constraints_between_kinds():
    # A cheap cell penalty is broken more often than an expensive one, and vice versa.
    p = parse_puzzle(SEED001)
    rows = run_sweep([p], {"cell": [0.1, 10.0], "unit": [1]},
                     _cfg(reads=20, seed=2, params={"num_sweeps": 200}))
    cheap, dear = rows
    assert (cheap["w_cell"], dear["w_cell"]) == (0.1, 10.0)
    assert cheap["broken_cell"] > dear["broken_cell"]
    unit = lambda r: r["broken_row"] + r["broken_column"] + r["broken_box"]  # noqa: E731
    assert unit(cheap) < unit(dear)


@pytest.mark.slow
def test_rows_are_tidy_and_parallel_runs_match_serial_ones():
    p, q = parse_puzzle(SEED004), parse_puzzle(BOX_GIVEN4)
    axes = {"cell": [0.5, 2], "num_sweeps": [50, 500]}
    cfg = _cfg(reads=10, seed=11)
    serial = run_sweep([p, q], axes, cfg, repeat=2)
    parallel = run_sweep([p, q], axes, cfg, repeat=2, jobs=2)
    assert len(serial) == 2 * 4 * 2
    assert all(list(r) == columns(list(axes)) for r in serial)
    strip = lambda rows: [{k: repr(v) for k, v in r.items()  # noqa: E731
                           if not k.startswith("t_") and not k.startswith(("tts99", "ttt99"))
                           and k not in ("wall", "info", "peak_rss_mb")}
                          for r in rows]
    assert strip(serial) == strip(parallel)
    assert {r["seed"] for r in serial} == {11, 12}
    assert {r["num_sweeps"] for r in serial} == {50, 500}
    assert sorted({r["setting"] for r in serial}) == [
        "cell=0.5 num_sweeps=50", "cell=0.5 num_sweeps=500", "cell=2 num_sweeps=50",
        "cell=2 num_sweeps=500"]
    # more sweeps never hurt on average here
    df = load(serial)
    by = df[df["index"] == 0].groupby("num_sweeps").success_prob.mean()
    assert by[500] > by[50]


def test_sampler_axis_uses_each_samplers_defaults_and_carries_reads_and_seed():
    rows = run_sweep([parse_puzzle(SEED004)], {"sampler": ["sa", "steepest"]},
                     _cfg(reads=7, seed=4, params={"num_sweeps": 300}))
    sa, steep = rows
    assert (sa["sampler"], steep["sampler"]) == ("sa", "steepest")
    assert sa["num_reads"] == steep["num_reads"] == 7
    assert '"num_sweeps": 300' in sa["params"] and "num_sweeps" not in steep["params"]
    assert sa["seed"] == steep["seed"] == 4
    assert steep["min_energy"] > 0 and sa["min_energy"] == 0.0


def test_none_means_the_samplers_default_and_arrays_are_swept():
    rows = run_sweep([parse_puzzle(BOX_GIVEN4)], {"beta_range": [None, (0.5, 5)]}, _cfg(reads=3))
    assert [r["beta_range"] for r in rows] == ["default", "(0.5,5)"]
    assert [r["setting"] for r in rows] == ["beta_range=default", "beta_range=(0.5,5)"]
    assert '"beta_range": [0.5, 5]' in rows[1]["params"]


def test_contradictory_puzzle_is_a_row_with_an_error():
    bad = parse_puzzle("12.." "..3." "...." "3...")  # r1c4 loses every candidate
    rows = run_sweep([bad], {"cell": [1]}, _cfg(reads=2))
    assert rows[0]["error"] and rows[0]["success_prob"] == 0.0 and rows[0]["tts99"] == math.inf


def test_bad_settings_fail_before_any_run(tmp_path):
    out = tmp_path / "s.csv"
    p = parse_puzzle(SEED004)
    with pytest.raises(ConfigError, match="does not accept"):
        run_sweep([p], {"nope": [1]}, out=str(out))
    with pytest.raises(ConfigError, match="weight cell"):
        run_sweep([p], {"cell": [-1]}, out=str(out))
    with pytest.raises(ConfigError, match="num_sweeps"):
        run_sweep([p], {"num_sweeps": [0]}, out=str(out))
    assert not out.exists()


# -- files, resume, interruption ---------------------------------------------------------
@pytest.mark.slow
def test_resume_runs_only_missing_rows_and_parquet_is_typed(tmp_path):
    p = parse_puzzle(SEED004)
    axes = {"cell": [1, 2], "num_sweeps": [20]}
    cfg = _cfg(reads=5, seed=3)
    out = tmp_path / "s.csv"
    first = run_sweep([p], axes, cfg, repeat=3, out=str(out))
    assert len(first) == 6 and len(read_rows(str(out))) == 6
    text = out.read_text().splitlines(keepends=True)
    out.write_text("".join(text[:3]) + text[3][:10])  # two rows and a torn line
    again = run_sweep([p], axes, cfg, repeat=3, out=str(out), resume=True)
    assert len(again) == 4
    rows = read_rows(str(out))
    assert len(rows) == 6 and len({(r["setting"], r["repeat"]) for r in rows}) == 6
    with pytest.raises(ConfigError, match="exists"):
        run_sweep([p], axes, cfg, out=str(out))
    with pytest.raises(ConfigError, match="other columns"):
        run_sweep([p], {"cell": [1]}, cfg, out=str(out), resume=True)

    pq = tmp_path / "s.parquet"
    run_sweep([p], axes, cfg, repeat=2, out=str(pq))
    df = load(str(pq))
    assert pq.exists() and len(df) == 4 and df["success_prob"].dtype.kind == "f"
    assert summarize(df)["runs"].tolist() == [2, 2]


@pytest.mark.slow
def test_sigterm_keeps_finished_rows_and_resume_completes(tmp_path):
    out = tmp_path / "s.csv"
    cmd = [sys.executable, "-m", "qsudoku", "sweep", SEED001, "--grid", "cell=1",
           "--param", "num_sweeps=2000", "--reads", "8", "--repeat", "12", "-o", str(out),
           "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 60
    while time.time() < deadline and len(read_rows(str(out))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    kept = read_rows(str(out))
    assert proc.returncode == 130, err
    assert 2 <= len(kept) < 12
    proc = subprocess.run(cmd + ["--resume"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = read_rows(str(out))
    assert sorted(int(r["repeat"]) for r in rows) == list(range(12))
    assert f"{12 - len(kept)} new rows, 12 in" in proc.stderr


# -- the command -------------------------------------------------------------------------
def test_cli_sweep_prints_a_summary(tmp_path, capsys):
    out = tmp_path / "s.csv"
    code = main(["sweep", SEED004, BOX_GIVEN4, "--grid", "cell=0.5:2:3", "--grid", "unit=1",
                 "--param", "num_sweeps=10,100", "--reads", "5", "--seed", "1", "--rules",
                 "none", "-o", str(out)])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    head = cap.out.splitlines()[0].split()
    assert head[:3] == ["cell", "unit", "num_sweeps"] and "p_read_high" in head
    assert "tts99_median_low" in head and "min_energy_mean" in head
    assert "optimal TTS99 over num_sweeps (cell=0.5 unit=1):" in cap.out
    assert "optimal TTS99 over cell (unit=1 num_sweeps=10):" in cap.out
    rows = read_rows(str(out))
    assert len(rows) == 2 * 3 * 2 and {r["w_row"] for r in rows} == {"1.0"}
    assert {r["num_sweeps"] for r in rows} == {"10", "100"}
    import json

    with open(tmp_path / "s.summary.json", encoding="utf-8") as f:
        doc = json.load(f)
    assert len(doc["summary"]) == 3 * 2 and doc["optimal"]
    for o in doc["optimal"]:
        assert o["tts99_optimal_low"] <= o["tts99_optimal"] <= o["tts99_optimal_high"]
    assert (tmp_path / "s.summary.csv").read_text().startswith("cell,unit,num_sweeps,runs")


@pytest.mark.slow
def test_cli_sweep_plots_p_and_tts99_with_intervals_per_axis(tmp_path, capsys):
    figs = tmp_path / "figs"
    assert main(["sweep", SEED004, "--grid", "cell=1,2", "--param", "num_sweeps=10,100",
                 "--reads", "10", "--seed", "1", "--plot", str(figs), "--quiet"]) == 0
    for axis in ("cell", "num_sweeps"):
        assert (figs / f"tts99_vs_{axis}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (figs / "file").write_text("x")
    assert main(["sweep", BOX_GIVEN4, "--grid", "cell=1,2", "--plot", str(figs / "file")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_a_sweep_row_is_a_fixed_sample_and_its_seed_reproduces_it(tmp_path, capsys):
    out = str(tmp_path / "s.csv")
    assert main(["sweep", HARD9, "--grid", "cell=1,2", "--reads", "7", "--param",
                 "num_sweeps=20", "-o", out, "--quiet"]) == 0
    rows = read_rows(out)
    assert len(rows) == 2 and all(r["num_reads"] == "7" and r["rounds"] == "1" for r in rows)
    assert all(r["fixed_sample"] == "True" and "fallback" not in r["solved_by"] for r in rows)
    first = rows[0]
    seed = int(first["seed"])  # drawn, and named
    again = str(tmp_path / "again.csv")
    assert main(["sweep", HARD9, "--grid", "cell=1", "--reads", "7", "--param",
                 "num_sweeps=20", "--seed", str(seed), "-o", again, "--quiet"]) == 0
    (rerun,) = read_rows(again)
    assert rerun["seed"] == first["seed"]
    for k in ("num_valid", "num_target", "energy", "mean_energy", "broken_total",
              *(f"broken_{kind}" for kind in BROKEN_KINDS)):
        assert rerun[k] == first[k], k


@pytest.mark.parametrize("argv, message", [
    (["--grid", "cell=x:1:2"], "cell"),
    (["--grid", "cell=1", "--param", "cell=2"], "swept twice"),
    (["--resume"], "--resume needs -o"),
    (["--param", "bogus=1,2"], "bogus"),
    (["--sampler", "nope"], "unknown sampler"),
])
def test_cli_sweep_bad_input_is_exit_2(argv, message, capsys):
    assert main(["sweep", BOX_GIVEN4, *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif("mock-qpu" not in names(), reason="mock-qpu sampler not registered")
def test_chain_strength_sweep_on_the_mock_qpu_reports_chain_breaks():
    rows = run_sweep([parse_puzzle(BOX_GIVEN4)], {"chain_strength": [0.2, 4.0]},
                     _cfg(sampler="mock-qpu", reads=20, rules=[]))
    weak, strong = rows
    assert weak["chain_strength"] == 0.2 and 0 <= weak["chain_break_fraction"] <= 1
    assert weak["chain_break_fraction"] >= strong["chain_break_fraction"]


@pytest.mark.slow
def test_sweep_summary_is_the_same_for_csv_and_parquet(tmp_path, capsys):
    from qsudoku.experiments.table import RowWriter

    csv_out, pq_out = str(tmp_path / "s.csv"), str(tmp_path / "s.parquet")
    argv = ["sweep", BOX_GIVEN4, THREE_GIVENS4, "--grid", "cell=1,2", "--param",
            "num_sweeps=10", "--reads", "3", "--seed", "1", "--rules", "none"]
    assert main([*argv, "-o", csv_out]) == 0
    first = capsys.readouterr().out
    with RowWriter(pq_out, ("key",)) as w:
        w.write_many(read_rows(csv_out))
    assert main([*argv, "-o", pq_out, "--resume"]) == 0
    assert capsys.readouterr().out == first
    assert "optimal TTS99 over cell" in first and "p_read" in first
    assert summarize(csv_out).equals(summarize(pq_out))
    assert summarize(pq_out)["runs"].tolist() == [2, 2]


def test_sweep_config_named_like_the_summary_is_not_overwritten(capsys, tmp_path):
    config = tmp_path / "c.summary.json"
    config.write_text('[sampler]\nname = "sa"\n')
    code, out, err = run(capsys, "sweep", EASY, "--config", config, "--grid", "cell=1,2",
                         "-o", tmp_path / "c.csv", "--quiet")
    assert code == 2 and "c.summary.json is also an input of this run" in one_error(err)
    assert config.read_text() == '[sampler]\nname = "sa"\n'
    assert sorted(os.listdir(tmp_path)) == ["c.summary.json"]


@pytest.mark.parametrize("spec, said", [
    ("cell=1:2:101", "round to 2 distinct integers"),
    ("cell=1,2,1", "repeat 1"),
    ("cell=0.5,0.50", "repeat 0.5"),
    ("num_sweeps=10:10:3", "round to 1 distinct integers"),
    ("cell=1.0:1.0:2", "repeat 1.0"),
])
def test_a_sweep_axis_never_collapses_silently(capsys, tmp_path, spec, said):
    from qsudoku.cli import main

    (tmp_path / "e.txt").write_text(EASY4 + "\n")
    code = main(["sweep", str(tmp_path / "e.txt"), "--grid", spec, "--no-progress"])
    line = one_line(capsys.readouterr().err)
    assert code == 2 and said in line


def test_a_float_range_keeps_its_values():
    from qsudoku.experiments.sweep import parse_values

    vals = parse_values("1.0:2.0:101")
    assert len(vals) == 101 and vals[0] == 1.0 and vals[-1] == 2.0
    assert vals[1] != round(vals[1], 4)  # not rounded to 4 significant digits any more
    assert all(abs(v - 2 ** (k / 100)) < 1e-14 for k, v in enumerate(vals))
