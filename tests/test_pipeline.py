import json

import pytest

from qsudoku import Config, load_puzzles, parse_puzzle, solve
from qsudoku.cli import main

from _shared import SEEDS, needs_data, puzzle_files, slow_when_big
from _puzzles import FOUR_GIVENS4, SEED001, SEED004, TWO_GIVENS4


def test_solve_reports_every_stage():
    r = solve(parse_puzzle(SEED004), Config().with_overrides(sampler="sa", seed=3))
    assert r.valid and r.solved_by.startswith("sa (") and r.energy == 0.0
    assert r.num_variables == 63 and r.num_interactions > 0
    assert 0 < r.success_rate <= 1 and 1 <= r.num_reads <= 50  # one read, then the rest
    assert set(r.timings) >= {"propagate", "build", "sample", "decode", "total"}
    assert r.model.puzzle.is_solution(r.grid)
    d = r.to_dict()
    json.dumps(d)
    for key in ("puzzle", "size", "valid", "solution", "energy", "num_variables",
                "num_interactions", "solved_by", "success_rate", "timings"):
        assert key in d


def test_propagation_only_solve_has_no_model():
    r = solve(parse_puzzle(FOUR_GIVENS4))
    assert r.valid and r.solved_by == "propagation" and r.model is None and r.num_variables == 0


def test_invalid_best_sample_is_data_with_broken_constraints():
    # one sweep of annealing on a 192-variable model essentially never solves it
    p = parse_puzzle(SEED001)
    r = solve(p, Config().with_overrides(sampler="sa", seed=1, reads=2, params={"num_sweeps": 1},
                                         route={"enabled": False, "exact_fallback": ""}))
    assert not r.valid and r.solved_by == "none" and r.rounds == 1 and r.broken and r.success_rate == 0.0 and r.energy > 0


@needs_data
def test_seed_puzzles_solve_to_listed_solutions():
    for p in load_puzzles(str(SEEDS)):
        r = solve(p, Config().with_overrides(seed=7))
        assert r.valid and r.grid == list(p.solution), p.name


@needs_data
@pytest.mark.parametrize("path", slow_when_big(puzzle_files(max_size=12)), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_data_puzzles_up_to_12x12_solve_to_listed_solutions(path):
    for p in load_puzzles(str(path))[:3]:
        r = solve(p, Config().with_overrides(seed=7))
        assert r.valid and r.grid == list(p.solution), (p.name, r.solved_by, r.broken[:3])


def test_cli_solve_json_and_exit_codes(capsys):
    assert main(["solve", SEED004, "--json", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] and out["solution"].startswith("285139674")
    assert main(["solve", SEED004[:80]]) == 2
    assert "has 80" in capsys.readouterr().err
    assert main(["solve", SEED004, "--sampler", "nope"]) == 2
    assert "unknown sampler 'nope'" in capsys.readouterr().err


def test_cli_readable_output(capsys):
    assert main(["solve", SEED004, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "VALID" in out and "------+-------+------" in out and "63 variables" in out


def test_cli_qubo_writes_bqm_json_and_coo(tmp_path):
    import dimod

    for ext in ("bqm", "json", "coo"):
        f = tmp_path / f"m.{ext}"
        assert main(["qubo", SEED004, "-o", str(f), "--rules", "naked_single"]) == 0
        assert f.stat().st_size > 0
    with open(tmp_path / "m.bqm", "rb") as fh:
        bqm = dimod.BinaryQuadraticModel.from_file(fh)
    assert bqm.num_variables == 152
    data = json.loads((tmp_path / "m.json").read_text())
    assert len(data["variables"]) == 152 and data["constraints"][0]["label"][0] == "cell"


# -- which errors are the user's (bad parameters, exit 2) and which are bugs -------------------


class _ForeignSampler:
    """A sampler from outside qsudoku: checks ``knob`` in ``sample`` itself, like dimod's."""

    parameters = {"knob": [], "num_reads": [], "num_sweeps": []}
    properties: dict = {}

    def sample(self, bqm, knob=1, num_reads=1, num_sweeps=1):
        if knob < 0:
            raise ValueError(f"knob = {knob} must be >= 0")
        return _deep_helper(bqm, knob)


def _deep_helper(bqm, knob):
    raise ValueError("a bug deep inside the sampler")


def _foreign():
    import dimod

    return type("Foreign", (_ForeignSampler, dimod.Sampler), {"__module__": __name__})()


def test_a_foreign_samplers_own_check_is_a_config_error():
    from qsudoku.errors import ConfigError

    cfg = Config().with_overrides(sampler="sa", params={"knob": -1})
    with pytest.raises(ConfigError, match="rejected its parameters.*knob = -1 must be >= 0"):
        solve(parse_puzzle(TWO_GIVENS4), cfg, sampler=_foreign())


def test_an_error_deeper_in_a_sampler_is_not_a_config_error():
    from qsudoku.errors import ConfigError

    cfg = Config().with_overrides(sampler="sa", params={"knob": 1})
    with pytest.raises(ValueError, match="a bug deep inside") as e:
        solve(parse_puzzle(TWO_GIVENS4), cfg, sampler=_foreign())
    assert not isinstance(e.value, ConfigError)


@pytest.mark.slow
def test_qsudokus_samplers_report_bad_parameters_as_config_errors():
    from qsudoku.errors import ConfigError

    for cfg in (Config().with_overrides(params={"q0": 2.0}),  # the route's default, aco
                Config().with_overrides(sampler="swap-tabu", params={"tenure": -1}),
                Config().with_overrides(sampler="swap", params={"beta_range": (2.0, 1.0)}),
                # a value only the BQM shows wrong: the library's own refusal
                Config().with_overrides(sampler="tabu", params={"tenure": 10**6})):
        with pytest.raises(ConfigError, match="rejected its parameters"):
            solve(parse_puzzle(TWO_GIVENS4), cfg)
    # dwave-samplers' parameters are checked already when configured, naming the sampler
    with pytest.raises(ConfigError, match="sa: beta_schedule_type = 'bogus'; choose from"):
        Config().with_overrides(sampler="sa", params={"beta_schedule_type": "bogus"})


@pytest.mark.parametrize("where", ["qsudoku.solving.rounds.decode", "qsudoku.solving.loop.build_model"])
@pytest.mark.parametrize("error", [KeyError("k"), TypeError("t"), IndexError("i"),
                                   AttributeError("a"), OverflowError("o"), ValueError("v")])
def test_a_bug_in_the_route_stays_a_bug(monkeypatch, where, error):
    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(where, broken)
    with pytest.raises(type(error)) as e:
        solve(parse_puzzle(TWO_GIVENS4), Config().with_overrides(seed=1))
    assert e.value is error


def test_the_cli_reports_a_bug_as_an_internal_error(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise KeyError("lost key")

    monkeypatch.setattr("qsudoku.solving.rounds.decode", broken)
    assert main(["solve", TWO_GIVENS4, "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("qsudoku: internal error: KeyError: 'lost key'")
    assert "--debug" in err and "rejected" not in err
    assert main(["--debug", "solve", TWO_GIVENS4, "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and "KeyError: 'lost key'" in err


def test_debug_keeps_the_exit_code_of_an_unavailable_backend(monkeypatch, capsys):
    from qsudoku.errors import BackendUnavailableError

    def unavailable(*args, **kwargs):
        raise BackendUnavailableError("no such backend here")

    monkeypatch.setattr("qsudoku.solving.plan.get_sampler", unavailable)
    assert main(["solve", TWO_GIVENS4, "--sampler", "sa", "--no-route"]) == 3
    assert main(["--debug", "solve", TWO_GIVENS4, "--sampler", "sa", "--no-route"]) == 3
    assert "BackendUnavailableError: no such backend here" in capsys.readouterr().err


def test_huge_or_non_finite_config_numbers_are_config_errors(tmp_path, capsys):
    for text, piece in (("[qubo.weights]\ncell = 1e308\n", "weight cell = 1e+308"),
                        ("[sampler]\nname = 'sa'\n[sampler.params]\nbeta_range = [nan, 1.0]\n",
                         "sa: beta_range = [nan, 1.0] must be two finite numbers")):
        path = tmp_path / "c.toml"
        path.write_text(text)
        assert main(["solve", TWO_GIVENS4, "--config", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and piece in err and "Warning" not in err
