"""Any dimod.Sampler plugs into solve() under the same round policy: an instance of a
registered class gets its registry parameters and name, any other the configured parameters
it accepts (the rest are left out with one note) and its class name; the configured sampler
stays strict."""

from __future__ import annotations

import dimod
import pytest
from dwave.samplers import SimulatedAnnealingSampler, TabuSampler

from qsudoku import Config, solve
from qsudoku.model.decode import decode
from qsudoku.errors import ConfigError, ParameterError
from qsudoku.io import parse_puzzle
from qsudoku.solving import build
from qsudoku.samplers import get_sampler
from _puzzles import SEED004, THREE_GIVENS4
from _misc_cases import _Returns, _empty_sampleset, _sampleset_without_the_model, qsudoku

FOUR = parse_puzzle(THREE_GIVENS4)  # propagation leaves it open


@pytest.mark.slow
@pytest.mark.parametrize("config", [
    Config(),
    Config().with_overrides(sampler="sa", route={"enabled": False}),
    Config().with_overrides(sampler="sa", seed=1, reads=4),
])
def test_a_registered_class_passed_in_runs_under_its_registry_name(config):
    r = solve(FOUR, config, sampler=TabuSampler())
    assert r.solved_by.startswith("tabu (") and r.sampler["name"] == "tabu"
    assert r.valid and FOUR.is_solution(r.grid)
    assert set(r.sampler["params"]) <= set(TabuSampler().parameters)


def test_params_the_sampler_does_not_accept_are_left_out_with_one_note():
    cfg = Config().with_overrides(sampler="sa", params={"num_sweeps": 50, "num_reads": 3,
                                                        "beta_schedule_type": "geometric"})
    r = solve(FOUR, cfg, sampler=TabuSampler())
    assert r.sampler["params"]["num_reads"] == 3 and r.num_reads >= 1  # one read first
    notes = [n for n in r.notes if "left out" in n]
    assert len(notes) == 1 and "beta_schedule_type, num_sweeps" in notes[0]


@pytest.mark.slow
def test_exact_solver_on_a_tiny_model():
    cfg = Config().with_overrides(reads=5, rules=["naked_single"])
    _, model, _ = build(FOUR, cfg)
    assert model.num_variables <= 20  # 2**n states
    r = solve(FOUR, cfg, sampler=dimod.ExactSolver())
    assert r.solved_by == "ExactSolver (1 round)" and r.valid and r.energy == 0
    assert any("num_reads" in n for n in r.notes)


def test_random_sampler_takes_the_reads():
    r = solve(FOUR, Config().with_overrides(reads=7, route={"enabled": False, "exact_fallback": ""}),
              sampler=dimod.RandomSampler())
    assert r.solved_by in ("RandomSampler (1 round)", "none") and r.num_reads == 7


@pytest.mark.slow
def test_every_sampler_runs_the_same_round_policy():
    """A sampler passed in gets the rounds, the seeds and the fallback of a configured one."""
    cfg = Config().with_overrides(seed=2)
    for sampler in (get_sampler("swap-tabu"), SimulatedAnnealingSampler(), dimod.RandomSampler()):
        r = solve(FOUR, cfg, sampler=sampler)
        assert r.valid and r.rounds >= 1 and "route" in r.sampler and r.info["rounds"] == r.rounds


@pytest.mark.slow
def test_sa_passed_in_solves_the_seed_puzzle_every_time():
    """Ocean's SA alone takes one read per call; under the round policy it samples until a
    read is valid, within the budget (the seed004 puzzle: 10 of 10 seeds)."""
    p = parse_puzzle(SEED004)
    solved = [solve(p, Config().with_overrides(seed=s, route={"exact_fallback": ""}),
                    sampler=SimulatedAnnealingSampler()).valid for s in range(10)]
    assert solved == [True] * 10


def test_the_configured_sampler_stays_strict():
    cfg = Config().with_overrides(sampler="sa", params={"num_sweep": 10})
    with pytest.raises(ConfigError, match="num_sweep"):
        solve(FOUR, cfg)


@pytest.mark.parametrize("params, message", [
    ({"num_sweep": 10}, "does not accept parameter(s) num_sweep"),
    ({"beta_range": [4.0, 0.5]}, "sa: beta_range = [4.0, 0.5]"),
    ({"num_sweeps_per_beta": 0}, "sa: num_sweeps_per_beta = 0"),
])
def test_a_registered_instance_passed_in_is_as_strict_as_configured(params, message):
    """``get_sampler("sa")`` passed in is the registered ``sa``: the same checks as
    ``--sampler sa``, before any work (a bad value already when configured)."""
    for sampler in (None, get_sampler("sa"), SimulatedAnnealingSampler()):
        with pytest.raises(ParameterError) as e:
            solve(FOUR, Config().with_overrides(sampler="sa", params=params), sampler=sampler)
        assert message in str(e.value)


def test_bad_values_for_a_registered_instance_fail_under_another_configured_sampler():
    """With the default configuration (another sampler), the values a registered instance
    takes are still checked as its own: a bad one is an error, not a left-out note."""
    cfg = Config().with_overrides(params={"beta_range": [0.0, 1.0]})
    with pytest.raises(ParameterError, match=r"sa: beta_range = \[0.0, 1.0\] must be"):
        solve(FOUR, cfg, sampler=get_sampler("sa"))


def test_manual_path_model_any_sampler_decode():
    _, model, _ = build(FOUR)
    sampleset = TabuSampler().sample(model.bqm, num_reads=3, seed=4)
    best = min(decode(model, sampleset), key=lambda d: d.energy)
    assert best.valid and FOUR.is_solution(best.grid)


@pytest.mark.parametrize("value, said", [
    (lambda bqm: None, "returned None, not a dimod.SampleSet"),
    (lambda bqm: [1, 0], "returned a list, not a dimod.SampleSet"),
    (_empty_sampleset, "returned an empty SampleSet"),
    (_sampleset_without_the_model, "returned a SampleSet without 15 of the model's 15 variables"),
])
def test_a_foreign_sampler_that_returns_nothing_usable(value, said):
    import qsudoku
    from qsudoku.errors import SamplerOutputError

    with pytest.raises(SamplerOutputError, match=f"sampler '_Returns' {said}"):
        qsudoku.solve(qsudoku.parse_puzzle(THREE_GIVENS4), sampler=_Returns(value))


def test_the_null_sampler_is_named():
    import dimod

    import qsudoku
    from qsudoku.errors import QSudokuError

    with pytest.raises(QSudokuError, match="sampler 'NullSampler' returned an empty SampleSet"):
        qsudoku.solve(qsudoku.parse_puzzle(THREE_GIVENS4), sampler=dimod.NullSampler())
