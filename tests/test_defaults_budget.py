"""Defaults that fit the work (issue 44): the default time budget derived from the model and
the sampler (a set one used exactly), the seed a solve drew, and the per-sampler ``--param``
form named in the error about a parameter that one backend of a bench rejects."""

from __future__ import annotations

import json

import pytest

from qsudoku import Config, parse_puzzle, solve
from qsudoku.errors import ConfigError
from qsudoku.samplers import SPECS
from qsudoku.solving import budget as budget_mod
from qsudoku.solving.budget import BASE_BUDGET, BIG_MODEL, BUILDS, default_budget
from qsudoku.solving.plan import make_plan

from _cli import one_error, run

HARD = "2.513...4....48........7.2..385...92....9.7........45.86.97....95.....31..4......"
FOUR = "1......2........"


# -- 1. the default budget ------------------------------------------------------------------

def test_the_shipped_budget_is_auto_and_a_set_one_is_checked():
    assert Config().route.time_budget == "auto"
    assert Config().with_overrides(route={"time_budget": 2}).route.time_budget == 2
    for bad in ("soon", -1, 0, float("inf"), True):
        with pytest.raises(ConfigError, match="time_budget"):
            Config().with_overrides(route={"time_budget": bad})


def test_default_budget_is_the_base_below_a_big_model_and_grows_with_its_build():
    assert default_budget(BIG_MODEL - 1, 10.0) == (BASE_BUDGET, "default")  # any 25x25
    seconds, why = default_budget(117_649, 2.0)
    assert seconds == BUILDS * 2.0 and "117,649 variables" in why and "2 s build" in why
    assert default_budget(BIG_MODEL, 0.01) == (BASE_BUDGET, "default")  # a fast build: the base
    seconds, why = default_budget(200, 0.01, round_cost=120.0, label="decompose")
    assert seconds == 120.0 and why.startswith("default for decompose")


def test_a_small_model_gets_the_base_budget_from_the_start_and_a_set_one_exactly():
    r = solve(parse_puzzle(HARD), Config().with_overrides(seed=1))
    assert r.valid and r.sampler["route"]["time_budget"] == BASE_BUDGET
    assert r.sampler["route"]["budget"] == "default"
    r = solve(parse_puzzle(HARD), Config().with_overrides(seed=1, route={"time_budget": 7.5}))
    assert r.sampler["route"]["time_budget"] == 7.5 and r.sampler["route"]["budget"] == "set"
    assert r.sampler["params"]["time_limit"] == 7.5
    r = solve(parse_puzzle(HARD), Config().with_overrides(seed=1), budget=3)
    assert r.sampler["route"]["time_budget"] == 3 and r.sampler["route"]["budget"] == "set"


def test_a_big_model_is_built_first_and_sampled_for_builds_of_it_after(monkeypatch):
    """With the threshold lowered to a 9x9's size, the 9x9 is a "big model": its sampling
    budget is counted from the end of its build (which it does not have to fit in), and
    covers the sampler's own work around its limit too."""
    monkeypatch.setattr(budget_mod, "BIG_MODEL", 10)
    monkeypatch.setattr(budget_mod, "BASE_BUDGET", 1e-6)  # whatever the build took: above it
    r = solve(parse_puzzle(HARD), Config().with_overrides(seed=1, route={"exact_fallback": ""}))
    route, timings = r.sampler["route"], r.timings
    assert r.num_interactions > 0 and r.rounds >= 1  # built, whatever the base budget
    assert f"default for {r.num_variables:,} variables: {BUILDS} times" in route["budget"]
    assert route["time_budget"] >= BUILDS * timings["build"]
    assert route["time_budget"] > timings["propagate"] + timings["build"]
    assert r.sampler["params"]["time_limit"] == route["time_budget"]


def test_a_set_budget_is_not_scaled_on_a_big_model(monkeypatch):
    monkeypatch.setattr(budget_mod, "BIG_MODEL", 10)
    r = solve(parse_puzzle(HARD), Config().with_overrides(seed=1, route={"time_budget": 0.9}))
    assert r.sampler["route"]["time_budget"] == 0.9 and r.sampler["route"]["budget"] == "set"


def test_decompose_registers_the_cost_of_its_round():
    assert SPECS["decompose"].round_cost >= 60
    assert all(SPECS[n].round_cost is None for n in ("aco", "sa", "swap-tabu", "sat"))


@pytest.mark.slow
def test_decompose_gets_its_round_by_default_and_says_what_it_spent(capsys):
    pytest.importorskip("dwave.system")
    code, out, _ = run(capsys, "solve", FOUR, "--sampler", "decompose", "--option",
                       "qpu_sampler=mock-qpu", "--no-fallback", "--seed", "1")
    assert code == 0
    budget = next(line for line in out.splitlines() if line.startswith("budget: "))
    assert "(default for decompose: what one round of its work costs)" in budget
    assert float(budget.split()[1]) >= SPECS["decompose"].round_cost
    qpu = next(line for line in out.splitlines() if line.startswith("qpu: "))
    assert "QPU call" in qpu and "QPU access" in qpu
    code, out, _ = run(capsys, "solve", FOUR, "--sampler", "decompose", "--option",
                       "qpu_sampler=mock-qpu", "--no-fallback", "--seed", "1", "--json")
    d = json.loads(out)
    assert d["sampler"]["route"]["time_budget"] >= SPECS["decompose"].round_cost
    assert d["info"]["qpu_calls"] >= 1 and d["backend_timing"]["estimated_qpu_access_time"] > 0


def test_the_text_output_says_the_budget_and_why(capsys):
    code, out, _ = run(capsys, "solve", HARD, "--seed", "3")
    assert code == 0 and "budget: 0.8 s (default)" in out.splitlines()
    code, out, _ = run(capsys, "solve", HARD, "--seed", "3", "--time-budget", "5")
    assert code == 0 and "budget: 5 s (set)" in out.splitlines()


# -- 2. the seed that ran -------------------------------------------------------------------

def test_solve_json_without_seed_reports_the_drawn_seed_and_it_reproduces_sa(capsys):
    args = ("solve", HARD, "--sampler", "sa", "--reads", "5", "--no-route", "--no-fallback",
            "--json")
    first = json.loads(run(capsys, *args)[1])
    seed = first["sampler"]["seed"]
    assert isinstance(seed, int) and 0 <= seed < 2**31 and first["sampler"]["seed_drawn"]
    assert first["sampler"]["params"]["seed"] == seed
    again = json.loads(run(capsys, *args, "--seed", str(seed))[1])
    assert again["sampler"]["seed"] == seed and not again["sampler"]["seed_drawn"]
    for key in ("energy", "num_reads", "success_rate", "solution", "broken", "propagation"):
        assert first[key] == again[key], key
    other = json.loads(run(capsys, *args)[1])
    assert other["sampler"]["seed"] != seed  # drawn afresh, not a fixed default


def test_the_drawn_seed_gives_the_same_sa_reads_through_the_api():
    p = parse_puzzle(HARD)
    cfg = Config().with_overrides(sampler="sa", reads=8, route={"enabled": False,
                                                                "exact_fallback": ""})
    drawn = solve(p, cfg)
    seed = drawn.sampler["seed"]
    assert isinstance(seed, int)
    again = solve(p, cfg.with_overrides(seed=seed))
    a, b = drawn.sampleset, again.sampleset
    assert (a.record.sample == b.record.sample).all()
    assert list(a.record.energy) == list(b.record.energy)


def test_text_output_names_the_seed_and_how_to_repeat_it(capsys):
    out = run(capsys, "solve", HARD, "--sampler", "sa", "--reads", "3", "--no-route")[1]
    line = next(x for x in out.splitlines() if x.startswith("seed: "))
    seed = int(line.split()[1])
    assert line == f"seed: {seed} (drawn; --seed {seed} repeats it)"
    out = run(capsys, "solve", HARD, "--sampler", "sa", "--reads", "3", "--seed", "9")[1]
    assert "seed: 9" in out.splitlines()


def test_a_sampler_without_a_seed_draws_none():
    plan = make_plan(Config().with_overrides(sampler="exact")).seeded()
    assert plan.seed is None and not plan.seed_drawn


# -- 3. the per-sampler --param form ----------------------------------------------------------

def test_a_shared_param_one_backend_rejects_names_the_per_sampler_form(capsys, tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(HARD + "\n")
    code, _, err = run(capsys, "bench", f, "--sampler", "solve,sa", "--param",
                       "num_sweeps=100")
    line = one_error(err)
    assert code == 2 and "sampler 'aco' does not accept parameter(s) num_sweeps" in line
    assert line.endswith("(to set it for one sampler only, use --param sa.num_sweeps=100)")
    assert not (tmp_path / "p.summary.csv").exists()


def test_no_per_sampler_hint_when_no_backend_takes_the_param(capsys, tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(HARD + "\n")
    code, _, err = run(capsys, "bench", f, "--sampler", "solve,sa", "--param", "num_sweepz=1")
    assert code == 2 and "num_sweepz" in one_error(err) and "one sampler only" not in err
    code, _, err = run(capsys, "bench", f, "--sampler", "sa", "--param", "timeout=5")
    assert code == 2 and "one sampler only" not in one_error(err)

