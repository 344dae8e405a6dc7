"""qsudoku.experiments.fairness and ``qsudoku fairness``: solutions enumerated, one fixed
sample, counts per solution, chi-square against uniform."""

from __future__ import annotations

import json

import pytest

from qsudoku import Config, parse_puzzle
from qsudoku.cli import main
from qsudoku.errors import ConfigError
from qsudoku.experiments.fairness import fairness
from _puzzles import FOUR_GIVENS4, MANY_SOLUTIONS4, OPEN_RECTANGLE4, SOLVED4
from _cli import one_error, run
from _io_cases import TWO


@pytest.mark.parametrize("backend", ["sa", "sqa", "solve"])
def test_two_solutions_are_both_counted_and_the_counts_add_up(backend):
    f = fairness(parse_puzzle(OPEN_RECTANGLE4), Config(), reads=30, seed=4, sampler=backend)
    assert f.num_solutions == 2 and len(set(map(tuple, f.solutions))) == 2
    assert f.num_reads == 30 and sum(f.counts) == f.num_valid > 0
    assert 0.0 <= f.p_value <= 1.0 and f.chi2 >= 0.0
    again = fairness(parse_puzzle(OPEN_RECTANGLE4), Config(), reads=30, seed=4, sampler=backend)
    assert again.counts == f.counts  # a seed repeats the run


@pytest.mark.parametrize("draw", range(8))  # every drawn seed must suit dwave-samplers (< 2**31)
def test_an_unseeded_run_reports_the_seed_that_repeats_it(draw):
    f = fairness(parse_puzzle(OPEN_RECTANGLE4), Config().with_overrides(sampler="sa"), reads=10)
    assert 0 <= f.seed < 2**31
    again = fairness(parse_puzzle(OPEN_RECTANGLE4), Config().with_overrides(sampler="sa"), reads=10,
                     seed=f.seed)
    assert again.counts == f.counts and again.params["num_reads"] == 10


def test_chi_square_is_scipys_against_uniform():
    from scipy.stats import chisquare

    f = fairness(parse_puzzle(MANY_SOLUTIONS4), Config().with_overrides(sampler="sa"), reads=60,
                 max_solutions=12, seed=2)
    assert f.num_solutions == 12 and sum(f.counts) == f.num_valid
    stat, p = chisquare(f.counts)
    assert f.chi2 == pytest.approx(stat) and f.p_value == pytest.approx(p)


def test_one_solution_has_no_test_and_too_many_is_refused():
    unique = parse_puzzle(FOUR_GIVENS4)
    f = fairness(unique, Config().with_overrides(sampler="sa"), reads=5, seed=1)
    assert f.num_solutions == 1 and f.p_value is None and f.chi2 is None
    with pytest.raises(ConfigError, match="more than 11 solutions"):
        fairness(parse_puzzle(MANY_SOLUTIONS4), Config(), reads=5, max_solutions=11)
    with pytest.raises(ConfigError, match="reads = 0"):
        fairness(unique, Config(), reads=0)


def test_cli_reports_both_solutions_text_and_json(capsys):
    assert main(["fairness", OPEN_RECTANGLE4, "--sampler", "sa", "--reads", "20", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "2 solutions; sa: 20 reads" in text and text.count("solution   ") == 2
    assert "p = " in text
    assert main(["fairness", OPEN_RECTANGLE4, "--sampler", "solve", "--reads", "4", "--seed", "3",
                 "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["sampler"] == "solve" and row["num_solutions"] == 2
    assert sum(row["counts"]) == row["num_valid"] == 4 and 0 <= row["p_value"] <= 1
    assert sorted(row["solutions"]) == [SOLVED4, "2134341212434321"]


def test_cli_bad_arguments_exit_2(capsys):
    assert main(["fairness", MANY_SOLUTIONS4, "--sampler", "sa", "--max-solutions", "3"]) == 2
    assert "more than 3 solutions" in capsys.readouterr().err
    assert main(["fairness", OPEN_RECTANGLE4, "--sampler", "sa", "--reads", "0"]) == 2
    assert main(["fairness", OPEN_RECTANGLE4, "--sampler", "nosuch"]) == 2


@pytest.mark.slow
def test_fairness_max_solutions_is_capped_and_timed(capsys):
    code, out, err = run(capsys, "fairness", TWO, "--max-solutions", "100000000")
    assert code == 2 and one_error(err) == ("qsudoku: error: --max-solutions 100000000 must be "
                                            "between 1 and 100,000")
    code, out, err = run(capsys, "fairness", "." * 81, "--max-solutions", "100000",
                         "--time-budget", "1")
    assert code == 2 and out == ""
    assert "the enumeration of the solutions stopped at its time limit (1 s, --time-budget)" \
        in one_error(err)


def test_fairness_refuses_an_impossible_read_count_before_allocating():
    p = parse_puzzle(TWO)
    with pytest.raises(ConfigError, match=r"reads = 1,000,000,000,000 is above the most "
                                          r"accepted, 10,000,000"):
        fairness(p, Config().with_overrides(sampler="sa"), reads=10**12, seed=1)


def test_fairness_with_the_exact_sampler_passes_no_num_reads(capsys):
    code, out, err = run(capsys, "fairness", TWO, "--sampler", "exact", "--seed", "1")
    assert code == 0 and err == ""
    assert "2 solutions; exact:" in out and "2 valid" in out


def test_fairness_keep_going_reports_a_bad_line_and_goes_on(capsys, tmp_path):
    path = tmp_path / "f.txt"
    path.write_text(f"{TWO}\nxx\n{TWO}\n")
    code, out, err = run(capsys, "fairness", path, "--sampler", "sa", "--reads", "5",
                         "--seed", "1", "--keep-going")
    assert code == 2
    assert [ln.split()[0] for ln in out.splitlines() if ln.startswith("f.txt")] == \
        ["f.txt:1", "f.txt:3"]
    assert one_error(err).startswith(f"qsudoku: error: {path}:2: a puzzle line has n*n symbols")
    code, out, err = run(capsys, "fairness", path, "--sampler", "sa", "--reads", "5")
    assert code == 2 and out.count("f.txt:1") == 1 and "f.txt:3" not in out
