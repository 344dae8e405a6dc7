"""qsudoku.experiments.bench, qsudoku bench: rows, TTS99, budgets, interrupt/resume, --jobs, --plot."""

from __future__ import annotations

import csv
import math
import os
import signal
import subprocess
import sys
import time

import pytest

from qsudoku.experiments.bench import points, summarize, tts99, typed_row
from qsudoku.experiments.runner import Source, Task, measure, warm
from qsudoku.cli import main
from qsudoku.config import Config
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.experiments.table import RowWriter, read_rows

from _shared import DATA, REPO, needs_data
from _puzzles import BOX_GIVEN4, FOUR_GIVENS4, HARD9, SEED004
from _cli import one_error, run
from _io_cases import EASY, error_line, qsudoku

NO_RULES = Config().with_overrides(rules=[])
#: One round, no fallback: the read counts are the configured ones.
ONCE = NO_RULES.with_overrides(route={"enabled": False, "exact_fallback": ""})
# 4x4 puzzles that need sampling when propagation is off (givens only eliminate).
SMALL = [BOX_GIVEN4, FOUR_GIVENS4, ".2.." "...1" "3..." "..4."]


def test_tts99_decreases_with_p_and_is_inf_at_zero():
    values = [tts99(0.01, p) for p in (0.0, 0.01, 0.1, 0.5, 0.9, 1.0)]
    assert values[0] == math.inf
    assert all(a > b for a, b in zip(values[1:4], values[2:5]))
    assert values[-1] == 0.01 and tts99(0.01, 0.995) == 0.01
    with pytest.raises(ValueError):
        tts99(0.01, 1.5)


def bench_one(puzzle, name, config=Config(), budget=None, set_name="s", index=0):
    """The bench row of ``puzzle`` with backend ``name`` (a registry name or "solve"),
    measured as ``bench`` measures it: the point's plan made and its kernels compiled
    first (``warm``, each worker's setup), so that the row's clock counts none of it."""
    (point,) = points(config, [name], [budget])
    warm([point.config])
    return measure(Task(puzzle, Source(set_name, index, f"test:{set_name}:{index}"), point))


@pytest.mark.slow
def test_bench_rows_two_samplers():
    for text in SMALL:
        p = parse_puzzle(text)
        for name, params in (("sa", {"num_reads": 4, "num_sweeps": 50, "seed": 3}),
                             ("steepest", {"num_reads": 4, "seed": 3})):
            cfg = ONCE.with_overrides(sampler=name, params=params)
            row = bench_one(p, name, cfg)
            assert row["route"] == "sampling"
            assert row["solved_by"] == (f"{name} (1 round)" if row["valid"] else "none")
            assert row["status"] == "ok" and row["sampler"] == name
            assert row["num_variables"] > 0 and row["num_interactions"] > 0
            assert row["num_reads"] == 4 and 0 <= row["num_valid"] <= 4
            assert row["success_prob"] == row["num_valid"] / 4
            assert row["valid"] == (row["num_valid"] > 0)
            assert row["tts99"] == tts99(row["t_read"], row["success_prob"])
            assert row["wall"] >= row["t_sample"] + row["t_build"] > 0
            assert '"seed": 3' in row["params"] and row["seed"] == 3


@pytest.mark.slow
def test_a_sampler_row_is_a_fixed_sample_and_solve_takes_rounds():
    p = parse_puzzle(SEED004)
    cfg = NO_RULES.with_overrides(sampler="sa", params={"num_reads": 20, "num_sweeps": 1})
    row = bench_one(p, "sa", cfg, budget=0.15)  # a budget does not apply to a fixed sample
    assert row["fixed_sample"] is True and row["rounds"] == 1 and row["num_reads"] == 20
    assert row["solved_by"] == "none" and "fallback" not in row["route"]
    assert row["success_prob"] == 0 and 0 < row["success_prob_high"] < 1
    assert row["tts99"] == math.inf and row["tts99_low"] < math.inf
    # (rounds first measure one read, whose call costs more than the read: a budget that
    # holds several calls)
    solve = bench_one(p, "solve", cfg.with_overrides(route={"exact_fallback": ""}), budget=1.0)
    assert solve["fixed_sample"] is False and solve["rounds"] >= 2 and solve["num_reads"] > 20
    assert solve["success_prob"] == "" and solve["tts99"] == ""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["aco", "swap", "swap-tabu"])
def test_samplers_that_stop_at_ground_run_every_read_of_a_fixed_sample(name):
    # by default these stop every thread at the first ground state; a fixed sample runs all
    p = parse_puzzle(SMALL[1])
    row = bench_one(p, name, ONCE.with_overrides(sampler=name, params={"num_reads": 12,
                                                                       "seed": 4}))
    assert row["status"] == "ok", row["error"]
    assert row["num_reads"] == 12 and row["valid"] and row["num_valid"] >= 1
    assert "returned" not in row["error"]


@pytest.mark.slow
def test_an_unseeded_row_names_the_seed_that_reproduces_its_reads():
    p = parse_puzzle(SEED004)
    cfg = NO_RULES.with_overrides(sampler="sa", params={"num_reads": 6, "num_sweeps": 20})
    a, b = bench_one(p, "sa", cfg), bench_one(p, "sa", cfg)
    assert isinstance(a["seed"], int) and a["seed"] != b["seed"]  # drawn, not a fixed 0
    again = bench_one(p, "sa", cfg.with_overrides(seed=a["seed"]))
    assert again["seed"] == a["seed"]
    for k in ("num_valid", "num_target", "energy", "mean_energy", "broken_total"):
        assert again[k] == a[k], k


def test_contradiction_is_a_row():
    row = bench_one(parse_puzzle("11.." "...." "...." "...."), "sa")
    assert row["status"] == "contradiction" and row["valid"] is False and row["tts99"] == math.inf


@pytest.mark.slow
@needs_data
def test_solve_backend_is_exactly_qsudoku_solve():
    # bench's default backend measures what `qsudoku solve` does with the config: the same
    # grid, solved_by and reads as solve() with the same seed, on data puzzles of each kind.
    import qsudoku

    cfg = Config()
    for name, k in (("sudoku9/magictour_top1465.txt", 0), ("sudoku9/forum_hardest_1106.txt", 3),
                    ("jigsaw9/smilingwayne.txt", 1), ("sudoku16/gecode.txt", 0)):
        p = load_puzzles(str(DATA / name))[k]
        row = bench_one(p, "solve", cfg, index=k)
        res = qsudoku.solve(p, cfg.with_overrides(seed=row["seed"]))
        assert row["sampler"] == "solve" and row["valid"] == res.valid
        assert row["solved_by"].split(" (")[0] == res.solved_by.split(" (")[0]
        assert row["matches_solution"] is True and row["t_propagate"] > 0
        if res.solved_by == "propagation":
            assert row["route"] == "propagation" and row["num_reads"] == 0
        else:
            assert row["route"] == "sampling" and row["num_reads"] >= 1
            assert row["num_variables"] == res.num_variables
    # a budget for 'solve' is the route's budget: spent before the first round here
    p = load_puzzles(str(DATA / "sudoku9/forum_hardest_1106.txt"))[3]
    no_fb = cfg.with_overrides(route={"exact_fallback": ""})
    assert bench_one(p, "solve", no_fb)["rounds"] >= 1
    row = bench_one(p, "solve", no_fb, budget=1e-6)
    assert row["budget"] == 1e-6 and row["rounds"] == 0 and row["valid"] is False


@pytest.mark.slow
@needs_data
def test_cli_jobs_summary_and_plot(tmp_path, capsys):
    out, figs = str(tmp_path / "r.csv"), str(tmp_path / "figs")
    code = main(["bench", str(DATA / "generated/sudoku4/unique.txt"), "--first", "3", "--rules",
                 "none", "--sampler",
                 "sa,steepest", "--reads", "3", "--seed", "5", "--param", "sa.num_sweeps=50",
                 "--jobs", "2", "--no-fallback", "-o", out,
                 "--plot", figs])
    assert code == 0
    text = capsys.readouterr().out
    assert "sudoku4/unique" in text and "steepest" in text and "TTS99" in text
    rows = read_rows(out)
    assert len(rows) == 2 * 3
    assert {r["sampler"] for r in rows} == {"sa", "steepest"}
    assert all(r["route"] == "sampling" for r in rows)
    assert all(('"num_sweeps": 50' in r["params"]) == (r["sampler"] == "sa") for r in rows)
    for name in ("success_vs_budget.png", "tts99_by_backend.png", "tts99_quantiles.png",
                 "size_vs_time.png"):
        with open(os.path.join(figs, name), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.exists(str(tmp_path / "r.summary.csv"))
    assert os.path.exists(str(tmp_path / "r.summary.json"))
    # --plot alone redraws from the results file; an existing --out needs --resume
    os.remove(os.path.join(figs, "size_vs_time.png"))
    assert main(["bench", "-o", out, "--plot", figs, "--quiet"]) == 0
    assert os.path.exists(os.path.join(figs, "size_vs_time.png"))
    assert main(["bench", str(DATA / "generated/sudoku4/unique.txt"), "-o", out]) == 2


def test_cli_bad_arguments(capsys):
    assert main(["bench", FOUR_GIVENS4, "--time-budget", "soon"]) == 2
    assert main(["bench", FOUR_GIVENS4, "--sampler", "nosuch"]) == 2
    assert main(["bench", FOUR_GIVENS4, "--resume"]) == 2
    assert "--resume needs -o" in capsys.readouterr().err


def _interrupt_then_resume(tmp_path, sig, jobs):
    """Start a bench, signal it after a few rows, check the rows, resume to completion."""
    src = DATA / "sudoku9" / "magictour_top1465.txt"
    out = str(tmp_path / f"r{jobs}.csv")
    n = 12
    # Rows must be slow enough (~0.1 s each) that the run cannot finish before the signal.
    cmd = [sys.executable, "-m", "qsudoku", "bench", str(src), "--first", str(n), "--rules",
           "naked_single", "--sampler", "sa", "--param", "num_sweeps=20000", "--reads", "6",
           "--jobs", str(jobs), "-o", out, "--quiet"]
    env = dict(os.environ, DWAVE_API_TOKEN="do-not-leak-7f3a", PYTHONPATH=str(REPO))
    # A shell without job control starts background commands with SIGINT ignored, and a child
    # inherits that (CI may run the suite so): give the bench the default handler, as a
    # terminal would.
    proc = subprocess.Popen(cmd, cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120  # a loaded machine starts Dask slowly
    while time.monotonic() < deadline and len(read_rows(out)) < 3:
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    kept = read_rows(out)
    assert proc.returncode == 130, err
    assert "rows kept" in err
    assert 3 <= len(kept) < n
    assert all(r["sampler"] == "sa" and r["status"] == "ok" for r in kept)
    done = subprocess.run(cmd + ["--resume"], cwd=str(tmp_path), env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = read_rows(out)
    keys = [(r["set"], r["index"], r["sampler"], r["budget"], r["repeat"]) for r in rows]
    assert len(keys) == len(set(keys)) == n
    assert rows[: len(kept)] == kept  # the finished rows were kept as they were
    for path in (out, out + ".machine.json"):
        with open(path, encoding="utf-8") as f:
            assert "do-not-leak-7f3a" not in f.read()


@pytest.mark.slow
@needs_data
def test_sigint_with_jobs_then_resume(tmp_path):
    _interrupt_then_resume(tmp_path, signal.SIGINT, jobs=2)


@pytest.mark.slow
@needs_data
def test_sigterm_then_resume(tmp_path):
    _interrupt_then_resume(tmp_path, signal.SIGTERM, jobs=1)


def test_results_csv_round_trips_inf(tmp_path):
    out = str(tmp_path / "r.csv")
    with RowWriter(out, ("set",)) as w:
        w.write(bench_one(parse_puzzle("11.." "...." "...." "...."), "sa", set_name="x"))
    with open(out, newline="") as f:
        row = next(csv.DictReader(f))
    assert row["tts99"] == "inf" and typed_row(row)["tts99"] == math.inf


@pytest.mark.slow
def test_parquet_resume_after_interrupted_resume_keeps_every_key(tmp_path):
    # runlog fix: a resumed Parquet run that is interrupted again leaves a journal holding
    # more rows than the old .parquet; the next resume must count the journal's rows as done.
    out = str(tmp_path / "r.parquet")
    key = ("set", "index", "sampler", "budget", "repeat")
    row = bench_one(parse_puzzle(SMALL[1]), "sa", set_name="s")
    with RowWriter(out, key) as w:
        w.write(row)
    w = RowWriter(out, key, resume=True)
    w.write({**row, "index": 1})
    for fd in [w._fd, w._lock_fd, *w._held]:  # killed before close(): the journal stays,
        os.close(fd)  # the .parquet is the old one, and the dead process's locks are gone
    with RowWriter(out, key, resume=True) as w:
        assert w.done == {("s", "0", "sa", "", "0"), ("s", "1", "sa", "", "0")}
    assert sorted(int(r["index"]) for r in read_rows(out)) == [0, 1]


@pytest.mark.parametrize("first", ["sa", "default"])
def test_each_point_gets_the_sampler_it_names_whatever_the_order(first):
    # One per-process plan cache, keyed by the whole configuration: the reference column
    # 'sa' with the default config once got swap-tabu (or the other way round).
    import dimod

    from qsudoku.experiments.measure import plan_for
    from qsudoku.samplers import get_sampler

    pts = {"sa": points(Config(), ["sa"], [None])[0], "default": points(Config(), [None], [None])[0]}
    order = [first] + [k for k in pts if k != first]
    got = {k: plan_for(pts[k].config).sampler for k in order}
    assert type(got["sa"]) is type(get_sampler("sa"))
    assert type(got["default"]) is type(get_sampler(Config().sampler.name))
    assert type(got["default"]) is not type(got["sa"])
    assert all(isinstance(s, dimod.Sampler) for s in got.values())


def _as_parquet(csv_path: str, parquet_path: str) -> None:
    """The rows of a results CSV written, as a run writes them, to a Parquet output."""
    with RowWriter(parquet_path, ("key",)) as w:
        w.write_many(read_rows(csv_path))


@pytest.mark.slow
def test_the_summary_is_the_same_for_csv_and_parquet_and_streams_the_file(tmp_path, capsys,
                                                                          monkeypatch):
    from qsudoku.experiments import results, table

    csv_out, pq_out = str(tmp_path / "a.csv"), str(tmp_path / "b.parquet")
    argv = ["bench", *SMALL, "1..." "...." "..4." "...2", "--sampler", "solve,sa", "--reads",
            "2", "--param", "sa.num_sweeps=10", "--rules", "none", "--seed", "3"]
    code, first = main([*argv, "-o", csv_out]), capsys.readouterr().out
    assert code == 0 and "solve" in first and "sa " in first and "nan" not in first
    _as_parquet(csv_out, pq_out)

    def whole(*args, **kwargs):
        raise AssertionError("the summary read the whole results file")

    summaries = {}
    for module in (results, table):  # the summary, the count, the resume and the Parquet
        monkeypatch.setattr(module, "read_rows", whole)  # stream the rows, never hold them all
    for out in (pq_out, csv_out):  # a resume with nothing new prints the whole file's summary
        assert main([*argv, "-o", out, "--resume"]) == 0
        summaries[out] = capsys.readouterr().out
    assert summaries[csv_out] == summaries[pq_out] == first
    assert len(first.splitlines()) == 4  # header, rule, solve, sa


def _whole_parquet(journal: str, path: str):
    """The Parquet table a journal gave when it was converted as one DataFrame."""
    import pandas as pd
    import pyarrow.parquet as pq

    df = pd.DataFrame(read_rows(journal))
    for col in df.columns:
        try:
            df[col] = pd.to_numeric(df[col])
        except (ValueError, TypeError):
            pass
    df.to_parquet(path, index=False, engine="pyarrow")
    return pq.read_table(path)


def _chunked_parquet(journal: str, path: str, chunk: int):
    import pyarrow.parquet as pq

    from qsudoku.experiments.convert import write_parquet

    with open(path, "wb") as f:
        write_parquet(journal, f, chunk=chunk)
    return pq.read_table(path)


@pytest.mark.slow
def test_parquet_by_chunks_is_the_table_of_the_whole_journal(tmp_path, capsys):
    import pandas as pd
    import pyarrow.parquet as pq

    from qsudoku.experiments.bench import load

    journal = str(tmp_path / "b.parquet.partial.csv")
    assert main(["bench", *SMALL, "--sampler", "solve,sa", "--reads", "2", "--param",
                 "sa.num_sweeps=10", "--rules", "none", "-o", journal, "--quiet"]) == 0
    capsys.readouterr()
    whole = _whole_parquet(journal, str(tmp_path / "whole.parquet"))
    for chunk in (1, 2, 4):
        got = _chunked_parquet(journal, str(tmp_path / f"c{chunk}.parquet"), chunk)
        assert got.equals(whole, check_metadata=True), chunk
    with RowWriter(str(tmp_path / "b.parquet"), ("key",), resume=True):  # as a run closes it
        pass
    assert not os.path.exists(journal)
    assert pq.read_table(tmp_path / "b.parquet").equals(whole, check_metadata=True)
    pd.testing.assert_frame_equal(load(str(tmp_path / "b.parquet")),
                                  load(str(tmp_path / "whole.parquet")))


@pytest.mark.slow
def test_parquet_by_chunks_types_each_column_as_the_whole_file_does(tmp_path):
    import random

    # numbers a column of pandas treats irregularly: integers beyond int64 with an empty
    # cell or a float, floats past 2**53, text after numbers, short rows
    values = ["1", "-3", "2.5", "", "inf", "-inf", "1e400", " 7 ", "9007199254740993",
              "123456789012345678", "18446744073709551615", "9223372036854775808", "True",
              "x", "-1", "1e19", "-9223372036854775808", "9223372036854775807", "0.1"]
    rng = random.Random(11)
    compared = 0
    for i in range(62):
        journal = tmp_path / f"j{i}.csv"
        lines = ["key,c0,c1,c2,c3"]
        if i < 2:  # each chunk of 3 is float64; the whole is text (uint64 and an empty cell)
            big = "9223372036854775808" if i else "1e19"
            lines += [f"a,1,inf,{big},x", f"b,2,{big},2,y", f"c,3,{big},1,z", "d,4", "e,5,inf,,"]
        pool = [rng.sample(values, rng.randint(1, 3)) for _ in range(4)]
        for r in range(rng.randint(1, 12) if i >= 2 else 0):
            cells = [rng.choice(column) for column in pool]
            if rng.random() < 0.15:
                cells = cells[:rng.randint(0, 3)]
            lines.append(",".join([f"k{r}", *cells]))
        journal.write_text("\r\n".join(lines) + "\r\n")
        try:
            whole = _whole_parquet(str(journal), str(tmp_path / "whole.parquet"))
        except OverflowError:  # pyarrow cannot hold an int64 and a uint64 in one column
            continue
        for chunk in (1, 3, 100):
            got = _chunked_parquet(str(journal), str(tmp_path / "chunked.parquet"), chunk)
            assert got.equals(whole, check_metadata=True), (journal.read_text(), chunk)
        compared += 1
    assert compared >= 50


def test_summarize_consumes_rows_one_at_a_time():
    given = []

    def rows():
        for i in range(5):
            given.append(i)
            yield {"set": "a", "sampler": "sa", "valid": str(i % 2 == 0), "wall": str(i),
                   "fixed_sample": "True", "puzzle": f"p{i}", "num_reads": "4",
                   "num_valid": str(2 * (i % 2 == 0)), "t_read": "0.1", "status": "ok"}

    (s,) = summarize(rows())
    assert given == list(range(5))
    assert (s["n"], s["solved"], s["wall_median"], s["p_read"]) == (5, 3, 2.0, 0.3)
    assert s["tts99_median"] == tts99(0.1, 0.5)  # 3 of 5 puzzles at p = 0.5, 2 at inf
    assert s["tts99_median_low"] <= s["tts99_median"] <= s["tts99_median_high"] == math.inf


def _two_puzzles(tmp_path):
    """An easy puzzle (propagation solves it) and the first forum_hardest one."""
    path = tmp_path / "mix.txt"
    path.write_text("2851396746...48519419657328738564192542391786196782453861973245957426831324815967\n"
                    + HARD9 + "\n")
    return str(path)


def test_propagation_solved_puzzles_enter_no_samplers_p(tmp_path, capsys):
    out = str(tmp_path / "r.csv")
    assert main(["bench", _two_puzzles(tmp_path), "--sampler", "sa", "--param", "num_sweeps=5",
                 "--no-fallback", "--reads", "10", "--seed", "1", "-o", out]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if " sa " in x)
    assert "0.000 [0.000, 0.278]" in line and "0.0%" in line
    rows = read_rows(out)
    assert sorted(r["solved_by"] for r in rows) == ["none", "propagation"]
    easy = next(r for r in rows if r["solved_by"] == "propagation")
    assert easy["success_prob"] == "" and easy["tts99"] == "" and easy["num_reads"] == "0"
    with open(str(tmp_path / "r.summary.csv"), newline="") as f:
        (s,) = [typed_row(r) for r in csv.DictReader(f)]
    assert float(s["p_read"]) == 0.0 and int(s["propagation"]) == 1 and int(s["puzzles"]) == 1
    assert float(s["solved_pct"]) == 0.0


@pytest.mark.slow
def test_every_summary_row_has_p_and_median_tts99_with_ordered_intervals(tmp_path, capsys):
    import json

    out = str(tmp_path / "r.csv")
    assert main(["bench", _two_puzzles(tmp_path), *SMALL, "--rules", "none", "--sampler",
                 "solve,sa,steepest", "--param", "sa.num_sweeps=20", "--reads", "8",
                 "--no-fallback", "--seed", "2", "-o", out, "--quiet"]) == 0
    with open(str(tmp_path / "r.summary.json"), encoding="utf-8") as f:
        doc = json.load(f)
    fixed = [s for s in doc["summary"] if s["fixed_sample"]]
    assert {s["sampler"] for s in fixed} == {"sa", "steepest"}
    for s in fixed:
        assert s["p_read_low"] <= s["p_read"] <= s["p_read_high"] <= 1
        assert s["tts99_median_low"] <= s["tts99_median"] <= s["tts99_median_high"]
        if s["valid_reads"] == 0:
            assert 0 < s["p_read_high"] < 1
    solve = [s for s in doc["summary"] if s["sampler"] == "solve"]
    assert len(solve) == 2 and all("p_read" not in s and s["solved"] >= 1 for s in solve)


def test_pool_sets_summarises_every_input_as_one_set_with_the_sampling_time():
    from qsudoku.experiments.bench import summarize

    rows = [{"set": s, "sampler": "sa", "puzzle": p, "index": i, "valid": v,
             "fixed_sample": "True", "num_reads": "4", "num_valid": k, "t_read": "0.01",
             "wall": w, "t_sample": t}
            for s, p, i, v, k, w, t in [("a", "x", 0, "True", "2", "1.0", "0.5"),
                                        ("b", "x", 0, "False", "0", "3.0", "2.5")]]
    by_set = summarize(rows)
    assert [s["set"] for s in by_set] == ["a", "b"]
    (pooled,) = summarize(rows, pool_sets=True)
    assert pooled["set"] == "all" and pooled["puzzles"] == 2 and pooled["solved"] == 1
    assert pooled["reads"] == 8 and pooled["valid_reads"] == 2  # same puzzle, two sets: two
    assert pooled["t_sample_median"] == 1.5 and pooled["wall_median"] == 2.0


def test_bench_input_named_like_the_summary_is_not_overwritten(capsys, tmp_path):
    puzzles = tmp_path / "r.summary.csv"
    puzzles.write_text(EASY + "\n")
    code, out, err = run(capsys, "bench", puzzles, "--sampler", "sa", "--reads", "3",
                         "-o", tmp_path / "r.csv")
    assert code == 2
    assert one_error(err) == (f"qsudoku: error: -o {tmp_path / 'r.csv'}: {puzzles} is also "
                              f"an input of this run ({puzzles}); write the results to "
                              "another file")
    assert puzzles.read_text() == EASY + "\n" and sorted(os.listdir(tmp_path)) == ["r.summary.csv"]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["bench", "sweep"])
@pytest.mark.parametrize("fifo", ["r.summary.json", "r.summary.csv"])
def test_experiment_a_summary_fifo_is_refused_before_any_row(tmp_path, command, fifo):
    os.mkfifo(tmp_path / fifo)
    extra = ["--sampler", "random", "--reads", "1"] if command == "bench" else \
        ["--grid", "cell=1,2", "--reads", "1"]
    proc = qsudoku(tmp_path, command, EASY, *extra, "-o", "r.csv", "--quiet")
    assert proc.returncode == 2
    assert error_line(proc).startswith(f"cannot write {fifo}: it is a FIFO, not a regular file")
    assert not (tmp_path / "r.csv").exists()
