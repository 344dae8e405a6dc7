"""Any dimod.Sampler plugs into solve(): it gets the configured parameters it accepts, the rest
are left out with one note, the result names its class; the configured sampler stays strict."""

from __future__ import annotations

import dimod
import pytest
from dwave.samplers import SimulatedAnnealingSampler, TabuSampler

from qsudoku import Config, solve
from qsudoku.model.decode import decode
from qsudoku.errors import ConfigError
from qsudoku.io import parse_puzzle
from qsudoku.solving.pipeline import build, sampler_factory
from qsudoku.samplers import get_sampler

FOUR = parse_puzzle("1..." "..2." "...." "...4")  # propagation leaves it open


@pytest.mark.parametrize("config", [
    Config(),                                                       # the route's swap-tabu
    Config().with_overrides(sampler="sa", route={"enabled": False}),
    Config().with_overrides(sampler="sa", seed=1, reads=4),
])
def test_tabu_sampler_runs_with_any_config(config):
    r = solve(FOUR, config, sampler=TabuSampler())
    assert r.solved_by == "TabuSampler" and r.sampler["name"] == "TabuSampler"
    assert r.valid and FOUR.is_solution(r.grid)
    assert set(r.sampler["params"]) <= set(TabuSampler().parameters)


def test_params_the_sampler_does_not_accept_are_left_out_with_one_note():
    cfg = Config().with_overrides(sampler="sa", params={"num_sweeps": 50, "num_reads": 3,
                                                        "beta_schedule_type": "geometric"})
    r = solve(FOUR, cfg, sampler=TabuSampler())
    assert r.sampler["params"] == {"num_reads": 3}
    assert r.num_reads == 3
    notes = [n for n in r.notes if "left out" in n]
    assert len(notes) == 1 and "beta_schedule_type, num_sweeps" in notes[0]


def test_exact_solver_on_a_tiny_model():
    cfg = Config().with_overrides(reads=5, rules=["naked_single"])
    _, model, _ = build(FOUR, cfg)
    assert model.num_variables <= 20  # 2**n states
    r = solve(FOUR, cfg, sampler=dimod.ExactSolver())
    assert r.solved_by == "ExactSolver" and r.valid and r.energy == 0
    assert any("num_reads" in n for n in r.notes)


def test_random_sampler_takes_the_reads():
    r = solve(FOUR, Config().with_overrides(reads=7), sampler=dimod.RandomSampler())
    assert r.solved_by == "RandomSampler" and r.num_reads == 7


def test_a_route_sampler_passed_in_runs_the_route():
    cfg = Config().with_overrides(sampler="sa", seed=2)
    r = solve(FOUR, cfg, sampler=get_sampler("swap-tabu"))
    assert r.valid and r.rounds >= 1 and "route" in r.sampler
    assert r.sampler["name"] == "SwapTabuSampler" and r.solved_by.startswith("swap-tabu")


def test_a_plain_sampler_never_runs_the_route():
    r = solve(FOUR, Config().with_overrides(seed=3), sampler=SimulatedAnnealingSampler())
    assert "route" not in r.sampler and r.solved_by == "SimulatedAnnealingSampler"


def test_the_configured_sampler_stays_strict():
    cfg = Config().with_overrides(sampler="sa", params={"num_sweep": 10})
    with pytest.raises(ConfigError, match="num_sweep"):
        solve(FOUR, cfg, sampler=sampler_factory(cfg))
    with pytest.raises(ConfigError, match="num_sweep"):
        solve(FOUR, cfg)


def test_manual_path_model_any_sampler_decode():
    _, model, _ = build(FOUR)
    sampleset = TabuSampler().sample(model.bqm, num_reads=3, seed=4)
    best = min(decode(model, sampleset), key=lambda d: d.energy)
    assert best.valid and FOUR.is_solution(best.grid)
