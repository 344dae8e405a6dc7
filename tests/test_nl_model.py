"""The ``hybrid-nl`` route, offline: the dwave-optimization model of a puzzle's one-hot groups
(a valid grid satisfies it, an invalid one violates it, on every variant), and the sampler
through a stand-in for Leap's NL solver (decoding, time limit, size limits, parameters)."""

from __future__ import annotations

import types
from concurrent.futures import Future

import dimod
import dimod.testing
import numpy as np
import pytest

from _shared import DATA, SEEDS, needs_data
from qsudoku.cli import main
from qsudoku.config import Config
from qsudoku.errors import ConfigError, ModelTooLargeError, ParameterError
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.solving import build, solve

pytest.importorskip("dwave.optimization")
from qsudoku.samplers.dwave.hybrid import HybridNLSampler  # noqa: E402
from qsudoku.samplers.dwave.nl_model import build_nl_model, model_size  # noqa: E402
from _puzzles import TWO_GIVENS4

FOUR_SOLUTION = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """No test reads a real D-Wave config or writes to ~/.cache."""
    empty = tmp_path / "dwave.conf"
    empty.write_text("")
    monkeypatch.setenv("DWAVE_CONFIG_FILE", str(empty))
    monkeypatch.setenv("DWAVE_API_TOKEN", "")
    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path / "cache"))


def _broken(grid, model):
    """``grid`` with one open cell set to another of its candidates: a unit now holds
    that digit twice."""
    n = model.puzzle.size
    labels = next(labels for kind, labels in model.groups() if kind == "cell" and len(labels) > 1)
    r, c, _ = labels[0]
    bad = list(grid)
    bad[r * n + c] = next(v[2] for v in labels if v[2] != grid[r * n + c])
    assert not model.puzzle.is_solution(bad)
    return bad


def _check_model(puzzle, solution):
    m = build_model(propagate(puzzle, rules=()))
    nl = build_nl_model(m.groups())
    assert sorted(nl.variables) == sorted(m.variables)
    assert nl.model.num_decisions() == 1 and nl.num_units == len(m.groups()) - len(nl.choice_sizes)
    good = dict(zip(m.variables, m.sample_of_grid(solution)))
    bad = dict(zip(m.variables, m.sample_of_grid(_broken(solution, m))))
    nl.set_state(0, good)
    nl.set_state(1, bad)
    assert nl.model.feasible(0) and float(nl.model.objective.state(0)) == 0.0
    assert not nl.model.feasible(1) and float(nl.model.objective.state(1)) > 0.0
    back = nl.samples()
    assert [dict(zip(nl.variables, row)) for row in back] == [good, bad]


def test_a_valid_4x4_grid_satisfies_the_model_and_an_invalid_one_violates_it():
    p = parse_puzzle(TWO_GIVENS4)
    assert p.is_solution(FOUR_SOLUTION)
    _check_model(p, FOUR_SOLUTION)


@needs_data
@pytest.mark.parametrize("source", ["seeds/seeds.tsv", "generated/sudokux9/unique.txt", "generated/jigsaw6/unique.txt",
                                    "sudoku16/gecode.txt"])
def test_every_variant_and_size(source):
    puzzles = load_puzzles(str(DATA / source))
    p = puzzles[3] if source.startswith("seeds") else puzzles[0]  # seeds: a jigsaw
    assert p.solution is not None
    _check_model(p, p.solution)


def test_a_sample_that_is_not_one_hot_and_groups_without_cells_are_refused():
    m = build_model(propagate(parse_puzzle(TWO_GIVENS4), rules=()))
    nl = build_nl_model(m.groups())
    with pytest.raises(ParameterError, match="hybrid-nl: cell 0 of the sample is not one-hot"):
        nl.set_state(0, {v: 0 for v in m.variables})
    with pytest.raises(ParameterError, match="no cell group"):
        build_nl_model([("row", [(0, 0, 1)])])
    with pytest.raises(ParameterError, match=r"variable \(0, 0, 1\) is in two cell groups"):
        build_nl_model([("cell", [(0, 0, 1)]), ("cell", [(0, 0, 1)])])


# -- the sampler, around a stand-in for LeapHybridNLSampler -------------------------------------

class FakeNLSolver:
    """Answers with fixed decision states (set on the model it is sent), like Leap's NL
    solver returning several states; limits as dwave-cloud-client's mock NL solver."""

    def __init__(self, answers=(), **properties):
        from dwave.cloud.testing.mocks import hybrid_nl_solver_data

        self.answers, self.calls = list(answers), []
        data = hybrid_nl_solver_data()
        self.properties = {**data["properties"], "maximum_number_of_states": 4,
                           "min_time_limit": 5, **properties}
        self.parameters = {**{p: ["parameters"] for p in self.properties["parameters"]},
                           "label": []}

    def estimated_min_time_limit(self, model):
        return float(self.properties["min_time_limit"])

    def sample(self, model, time_limit=None, **params):
        self.calls.append({"model": model, "time_limit": time_limit, **params})
        model.states.resize(len(self.answers))
        choice = next(model.iter_decisions())
        for i, state in enumerate(self.answers):
            choice.set_state(i, state)
        done = Future()
        done.set_result(types.SimpleNamespace(model=model, info={
            "timing": {"qpu_access_time": 1234, "run_time": 5.0e6}, "problem_id": "fake-nl"}))
        return done


def _answers(puzzle, grids):
    """Decision states of :func:`build_nl_model` of ``puzzle``'s model for ``grids``."""
    _, m, _ = build(puzzle, Config.from_dict({"propagate": {"rules": []}}))
    nl = build_nl_model(m.groups())
    for i, grid in enumerate(grids):
        nl.set_state(i, dict(zip(m.variables, m.sample_of_grid(grid))))
    return [nl.choice.state(i) for i in range(len(grids))], m


def test_the_sampler_decodes_the_states_into_the_bqm_variables():
    p = parse_puzzle(TWO_GIVENS4)
    m = build_model(propagate(p, rules=()))
    answers, m = _answers(p, [_broken(FOUR_SOLUTION, m), FOUR_SOLUTION])
    solver = FakeNLSolver(answers)
    cfg = Config.from_dict({"propagate": {"rules": []}, "sampler": {"name": "hybrid-nl"}})
    r = solve(p, cfg, sampler=HybridNLSampler(solver))
    assert r.valid and list(r.grid) == FOUR_SOLUTION
    assert solver.calls[0]["time_limit"] == 5.0 and solver.calls[0]["label"] == "qsudoku"
    ss = r.sampleset
    assert set(ss.variables) == set(m.variables)
    assert sorted(ss.record.is_feasible.tolist()) == [False, True]
    for sample, energy, feasible in ss.data(["sample", "energy", "is_feasible"]):
        assert energy == pytest.approx(m.bqm.energy(sample))
        assert (energy == 0.0) == feasible
    assert r.info["feasible_fraction"] == 0.5 and r.info["model_size"]["nodes"] > 0
    assert r.info["time_limit"] == 5.0 and r.info["timing"]["qpu_access_time"] == 1234


def test_spin_bqms_are_answered_in_spins():
    p = parse_puzzle(TWO_GIVENS4)
    answers, m = _answers(p, [FOUR_SOLUTION])
    spin = m.bqm.change_vartype(dimod.SPIN, inplace=False)
    for groups in (m.groups(), None):  # None: recognised from the spins
        ss = HybridNLSampler(FakeNLSolver(answers)).sample(spin, groups=groups)
        assert ss.vartype is dimod.SPIN and set(np.unique(ss.record.sample)) == {-1, 1}
        assert ss.first.energy == pytest.approx(0.0)


def test_parameters_and_size_are_checked_before_any_call():
    p = parse_puzzle(TWO_GIVENS4)
    m = build_model(propagate(p, rules=()))
    solver = FakeNLSolver()
    sampler = HybridNLSampler(solver)
    assert {"time_limit", "groups", "label"} <= set(sampler.parameters)
    with pytest.raises(ParameterError, match="hybrid-nl: unknown parameter.*num_reads"):
        sampler.sample(m.bqm, groups=m.groups(), num_reads=3)
    with pytest.raises(ConfigError, match="time_limit = 2 s is below the solver's minimum of 5 s"):
        sampler.sample(m.bqm, groups=m.groups(), time_limit=2)
    with pytest.raises(ParameterError, match="hybrid-nl: time_limit = 'long' must be a finite"):
        sampler.sample(m.bqm, groups=m.groups(), time_limit="long")
    nodes = model_size(build_nl_model(m.groups()).model)["nodes"]
    small = HybridNLSampler(FakeNLSolver(maximum_number_of_nodes=nodes - 1))
    with pytest.raises(ModelTooLargeError, match=f"too large for Leap's hybrid-nl solver: {nodes} "
                                                 f"nodes > maximum_number_of_nodes {nodes - 1} "
                                                 r"\(the solver's limit\)"):
        small.sample(m.bqm, groups=m.groups())
    state = model_size(build_nl_model(m.groups()).model)["state_size"]
    with pytest.raises(ModelTooLargeError, match=f"{state:,} state size > maximum_state_size "
                                                 "1,000 "):
        HybridNLSampler(FakeNLSolver(maximum_state_size=1000)).sample(m.bqm, groups=m.groups())
    assert solver.calls == [] and small.child.calls == []
    empty = sampler.sample(dimod.BQM("BINARY"))
    assert len(empty) == 0 and solver.calls == []


def test_without_groups_they_are_recognised_and_a_foreign_bqm_is_refused():
    p = parse_puzzle(TWO_GIVENS4)
    answers, m = _answers(p, [FOUR_SOLUTION])
    ss = HybridNLSampler(FakeNLSolver(answers)).sample(m.bqm)
    assert ss.first.energy == 0.0
    with pytest.raises(ParameterError, match="hybrid-nl: the BQM has no one-hot structure"):
        HybridNLSampler(FakeNLSolver()).sample(dimod.BQM({"a": 1.0}, {}, 0.0, "BINARY"))


def test_listed_and_exit_3_with_the_token_line_without_a_token(capsys):
    assert main(["samplers"]) == 0
    assert any(line.startswith("hybrid-nl ") for line in capsys.readouterr().out.splitlines())
    assert main(["solve", TWO_GIVENS4, "--sampler", "hybrid-nl"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("qsudoku: error: no D-Wave API token found: set DWAVE_API_TOKEN")


def test_keeps_the_sampler_contract_around_a_stand_in_solver():
    from qsudoku.samplers import check_params

    sampler = HybridNLSampler(FakeNLSolver())
    dimod.testing.assert_sampler_api(sampler)
    with pytest.raises(ConfigError, match="colour"):
        check_params(sampler, {"colour": 1}, "hybrid-nl")
    for vartype in ("BINARY", "SPIN"):
        ss = sampler.sample(dimod.BQM(vartype))
        assert len(ss.variables) == 0 and ss.vartype is dimod.Vartype[vartype]
