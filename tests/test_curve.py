"""The easy-hard-easy curve: instances a spec generates (``[generate]``), samplers in rounds
within a fixed limit (``--in-rounds``), fewer instances for a slow one (``--first-of``), a
summary per (size, fraction, sampler) and its figure; each curve spec runs at a reduced size."""

from __future__ import annotations

import csv
import json

import pytest

from qsudoku.cli import build_parser
from qsudoku.commands.spec import apply_spec, read_spec
from qsudoku.errors import ConfigError
from qsudoku.experiments.bench import summarize
from qsudoku.experiments.generated import fraction_seed, iter_generated, parse_generate

from _cli import one_error, run
from _shared import REPO

CURVES = [REPO / "benchmarks" / "studies" / f"phase_curve_{n}.toml" for n in (9, 16, 25)]


def test_an_instance_is_the_puzzle_qsudoku_generate_makes_with_its_seed(tmp_path, capsys):
    gen = parse_generate({"size": 9, "fractions": {"from": 0.3, "to": 0.4, "step": 0.05},
                          "count": 3, "seed": 2})
    assert gen.fractions == (0.3, 0.35, 0.4)
    made = list(iter_generated(gen))
    assert [s.fraction for s, _ in made] == [0.3] * 3 + [0.35] * 3 + [0.4] * 3
    seed = fraction_seed(2, 0.35)
    out = tmp_path / "g.txt"
    code, _, err = run(capsys, "generate", "--size", 9, "--fraction", 0.35, "--count", 3,
                       "--seed", seed, "-o", out)
    assert code == 0, err
    assert [p.format() for _, p in made[3:6]] == out.read_text().split()
    assert made[4][1].name == f"qsudoku generate --size 9 --fraction 0.35 --seed {seed} #2"
    # a prefix whatever the count: --first 1 runs the same first instance
    assert [p for _, p in iter_generated(gen, limit=1)] == [made[0][1], made[3][1], made[6][1]]
    assert len({s.ref for s, _ in made}) == 9 and all("/" not in s.ref for s, _ in made)


@pytest.mark.parametrize("table, said", [
    ('fractions = [0.5, 0.5]\ncount = 1', "repeat"),
    ('fractions = { from = 0.5, to = 0.1, step = 0.1 }\ncount = 1', "to 0.1"),
    ('fractions = [0.5]\ncount = 0', "count must be an integer >= 1"),
    ('fractions = [0.5]\ncount = 1\nbox = "2x4"', "R*C = size 9"),
    ('fractions = [0.5]\ncount = 1\nseeds = 1', "unknown key 'seeds'"),
])
def test_a_bad_generate_table_is_refused_naming_the_spec(tmp_path, table, said):
    spec = tmp_path / "bad.toml"
    spec.write_text(f'command = "bench"\n[generate]\nsize = 9\n{table}\n')
    with pytest.raises(ConfigError, match="bad.toml") as e:
        read_spec(str(spec))
    assert said in str(e.value)


def test_puzzle_arguments_replace_the_generated_instances():
    puzzle = "1..." "..2." ".3.." "...4"
    args = build_parser("bench").parse_args(["bench", "--spec", str(CURVES[0]), puzzle])
    apply_spec(args)
    assert getattr(args, "generate", None) is None and args.puzzles == [puzzle]
    args = build_parser("bench").parse_args(["bench", "--spec", str(CURVES[0])])
    apply_spec(args)
    assert args.generate.size == 9 and args.puzzles == []


def test_summary_has_a_row_per_size_fraction_and_sampler_with_a_wilson_interval():
    rows = [{"set": "generate/sudoku9", "size": "9", "fraction": f, "sampler": s,
             "valid": str(v), "wall": "0.5", "budget": "1.0", "fixed_sample": "False"}
            for f, s, v in [("0.3", "sa", True), ("0.3", "sa", False), ("0.05", "sa", True),
                            ("0.3", "aco", True)]]
    summary = summarize(rows)
    assert [(s["size"], s["fraction"], s["sampler"], s["n"]) for s in summary] == [
        (9, 0.05, "sa", 1), (9, 0.3, "aco", 1), (9, 0.3, "sa", 2)]
    half = summary[2]
    assert half["solved_pct"] == 50.0 and 0 < half["solved_pct_low"] < 50 < half["solved_pct_high"]
    # rows of a file, without a fraction, keep their summary as it was
    plain = summarize([{k: v for k, v in rows[0].items() if k != "fraction"}])
    assert not {"fraction", "size", "solved_pct_low"} & set(plain[0])


def test_first_of_names_a_backend(capsys):
    code, _, err = run(capsys, "bench", "--spec", CURVES[0], "--first-of", "nosuch=2",
                       "--first", "1")
    assert code == 2 and "nosuch" in one_error(err)


@pytest.mark.slow
@pytest.mark.parametrize("path", [
    CURVES[0], pytest.param(CURVES[1], marks=pytest.mark.slow),
    pytest.param(CURVES[2], marks=pytest.mark.slow)], ids=lambda p: p.stem)
def test_each_curve_spec_runs_at_a_reduced_size(path, tmp_path, capsys):
    spec = read_spec(str(path))
    gen = parse_generate(spec["generate"])
    assert gen.fractions == tuple(round(0.05 * k, 2) for k in range(21))
    assert gen.count >= (10 if gen.size == 25 else 20)
    assert set(spec["options"]["sampler"].split(",")) == {"solve", "aco", "sa", "pt", "sat"}
    out = tmp_path / "results.csv"
    # the fast samplers on the first instance of each fraction, a short limit
    code, _, err = run(capsys, "bench", "--spec", path, "--first", 1, "--sampler", "aco,sat",
                       "--time-budget", 0.5, "-o", out, "--plot", tmp_path, "--quiet")
    assert code == 0, err
    with open(tmp_path / "results.summary.csv", newline="") as f:
        summary = list(csv.DictReader(f))
    assert {"size", "fraction", "n", "sampler", "solved_pct", "solved_pct_low",
            "solved_pct_high", "wall_median"} <= set(summary[0])
    assert sorted({float(s["fraction"]) for s in summary}) == list(gen.fractions)
    assert {(s["size"], s["n"], s["budget"]) for s in summary} == {(str(gen.size), "1", "0.5")}
    assert {s["sampler"] for s in summary} == {"aco", "sat"}
    assert all(s["solved_pct"] == "100.0" for s in summary if s["fraction"] == "1.0")
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert all(r["key"].startswith("generate:") and "/" not in r["key"].split("|")[0]
               for r in rows)
    assert (tmp_path / "easy_hard_easy.png").stat().st_size > 1000
    assert json.loads((tmp_path / "results.summary.json").read_text())["summary"]


@pytest.mark.slow
def test_a_slow_sampler_runs_fewer_instances_and_a_resume_adds_nothing(tmp_path, capsys):
    spec = tmp_path / "curve.toml"
    spec.write_text('command = "bench"\n[generate]\nsize = 4\nfractions = [0.0, 0.5]\n'
                    'count = 3\nseed = 1\n[options]\nsampler = "aco,sa"\nin-rounds = true\n'
                    'time-budget = [1]\nfirst-of = ["sa=1"]\nseed = 0\n')
    out = tmp_path / "r.csv"
    code, _, err = run(capsys, "bench", "--spec", spec, "-o", out, "--quiet")
    assert code == 0, err
    summary = {(s["sampler"], s["fraction"]): s for s in summarize(csv.DictReader(open(out)))}
    assert {k: s["n"] for k, s in summary.items()} == {
        ("aco", 0.0): 3, ("aco", 0.5): 3, ("sa", 0.0): 1, ("sa", 0.5): 1}
    rows = list(csv.DictReader(open(out)))
    assert {r["fixed_sample"] for r in rows} == {"False"} and {r["budget"] for r in rows} == {"1.0"}
    code, _, err = run(capsys, "bench", "--spec", spec, "-o", out, "--resume")
    assert code == 0 and "0 new rows, 8 in" in err
