"""Every ``sample()`` parameter of the wrapped dwave-samplers samplers (``sa``, ``neal``,
``tabu``, ``steepest``, ``random``) is checked before any work (issue 25, item 5): a bad
value is one ParameterError (exit 2) naming the sampler and the parameter, by
``--sampler NAME --param ...`` and for an instance passed to :func:`qsudoku.solve`."""

from __future__ import annotations

import datetime

import pytest
from dwave.samplers import (RandomSampler, SimulatedAnnealingSampler, SteepestDescentSolver,
                            TabuSampler)

from _cli import one_error, run
from qsudoku import Config, solve
from qsudoku.errors import ConfigError, ParameterError
from qsudoku.io import parse_puzzle
from qsudoku.samplers import check_params, get_sampler, get_spec
from qsudoku.samplers.registry import check_sampler_values
from qsudoku.solving.plan import make_plan, spec_of
from _puzzles import SEED004, THREE_GIVENS4

NAN, INF = float("nan"), float("inf")

#: (sampler, parameter, bad value, text of the message); the families of every sampler.
BAD = [
    # sa (and neal, the same class): reads, sweeps, schedule, choices, booleans, seed
    ("sa", "num_reads", 0, "sa: num_reads = 0"),
    ("sa", "num_reads", 10**8, "sa: num_reads = 100000000"),
    ("sa", "num_sweeps", 2.5, "sa: num_sweeps = 2.5"),
    ("sa", "num_sweeps_per_beta", 0, "sa: num_sweeps_per_beta = 0"),
    ("sa", "num_sweeps_per_beta", 7, "sa: num_sweeps = 1000 must be a multiple of"),
    ("sa", "beta_range", [4.0, 0.5], "sa: beta_range = [4.0, 0.5] must be two finite numbers"),
    ("sa", "beta_range", [0.0, 1.0], "sa: beta_range = [0.0, 1.0] must be two finite numbers 0 <"),
    ("sa", "beta_range", [0.1, INF], "sa: beta_range = [0.1, inf]"),
    ("sa", "beta_range", [1.0], "sa: beta_range = [1.0]"),
    ("sa", "beta_range", "hot", "sa: beta_range = 'hot'"),
    ("sa", "beta_schedule_type", "cubic", "sa: beta_schedule_type = 'cubic'; choose from"),
    ("sa", "beta_schedule_type", "custom", "sa: beta_schedule = None must be given"),
    ("sa", "beta_schedule", [0.1, 1.0], "sa: beta_schedule = [0.1, 1.0] needs beta_schedule_type"),
    ("sa", "beta_schedule", [[0.1, 2.0]], "sa: beta_schedule = [[0.1, 2.0]]"),
    ("sa", "initial_states_generator", "spread", "sa: initial_states_generator = 'spread'"),
    ("sa", "initial_states_generator", "tile", "sa: initial_states_generator = 'tile' needs"),
    ("sa", "initial_states", "zeros", "sa: initial_states = 'zeros' must be samples-like"),
    ("sa", "initial_states", [[0, 2]], "sa: initial_states = [[0, 2]] must be samples-like"),
    ("sa", "randomize_order", "true", "sa: randomize_order = 'true' must be true or false"),
    ("sa", "proposal_acceptance_criteria", "Glauber", "sa: proposal_acceptance_criteria"),
    ("sa", "seed", 2**31, "sa: seed = 2147483648 must be an integer in 0..2147483647"),
    ("sa", "interrupt_function", "stop", "sa: interrupt_function = 'stop' must be a function"),
    ("neal", "beta_range", [2.0, 1.0], "neal: beta_range = [2.0, 1.0]"),
    ("neal", "num_sweeps", 0, "neal: num_sweeps = 0"),
    ("neal", "proposal_acceptance_criteria", 1, "neal: proposal_acceptance_criteria = 1"),
    # tabu: time, restarts, threshold, the C ints, tenure, seed, initial states
    ("tabu", "timeout", -1, "tabu: timeout = -1"),
    ("tabu", "timeout", None, "tabu: timeout = None"),
    ("tabu", "timeout", 0.5, "tabu: timeout = 0.5"),
    ("tabu", "num_restarts", -1, "tabu: num_restarts = -1"),
    ("tabu", "num_restarts", 2**31, "tabu: num_restarts = 2147483648"),
    ("tabu", "energy_threshold", NAN, "tabu: energy_threshold = nan"),
    ("tabu", "energy_threshold", "low", "tabu: energy_threshold = 'low'"),
    ("tabu", "coefficient_z_first", -5, "tabu: coefficient_z_first = -5"),
    ("tabu", "coefficient_z_restart", 2**40, "tabu: coefficient_z_restart = 1099511627776"),
    ("tabu", "lower_bound_z", 1.5, "tabu: lower_bound_z = 1.5"),
    ("tabu", "tenure", -1, "tabu: tenure = -1"),
    ("tabu", "tenure", 2.0, "tabu: tenure = 2.0"),
    ("tabu", "seed", 2**32, "tabu: seed = 4294967296"),
    ("tabu", "num_reads", -3, "tabu: num_reads = -3"),
    ("tabu", "initial_states_generator", 3, "tabu: initial_states_generator = 3"),
    # steepest
    ("steepest", "large_sparse_opt", 1, "steepest: large_sparse_opt = 1 must be true or false"),
    ("steepest", "num_reads", 10**8, "steepest: num_reads = 100000000"),
    ("steepest", "seed", -1, "steepest: seed = -1"),
    ("steepest", "initial_states_generator", "none", "steepest: initial_states_generator"),
    ("steepest", "initial_states", 5, "steepest: initial_states = 5"),
    # random
    ("random", "time_limit", -1, "random: time_limit = -1"),
    ("random", "time_limit", NAN, "random: time_limit = nan"),
    ("random", "time_limit", 1e308, "random: time_limit = 1e+308"),
    ("random", "time_limit", datetime.timedelta(0), "random: time_limit = datetime.timedelta(0)"),
    ("random", "max_num_samples", 0, "random: max_num_samples = 0"),
    ("random", "max_num_samples", 10**9, "random: max_num_samples = 1000000000"),
    ("random", "num_reads", True, "random: num_reads = True"),
    ("random", "seed", "abc", "random: seed = 'abc'"),
]
#: The dwave-samplers classes, as a user would pass them in.
CLASSES = {"sa": SimulatedAnnealingSampler, "tabu": TabuSampler,
           "steepest": SteepestDescentSolver, "random": RandomSampler}


def _toml(value) -> str | None:
    """``value`` as a ``--param`` (TOML) value, ``None`` if TOML cannot write it."""
    if value is None or isinstance(value, datetime.timedelta):
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float) and value != value:
        return "nan"
    if value in (INF, -INF):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


@pytest.mark.parametrize("name, key, value, message", BAD)
def test_a_bad_value_is_one_parameter_error_naming_sampler_and_parameter(name, key, value,
                                                                         message):
    with pytest.raises(ParameterError) as e:
        check_params(get_sampler(name), {**get_spec(name).defaults, key: value}, name)
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("name, key, value, message",
                         [b for b in BAD if _toml(b[2]) is not None])
def test_cli_param_exits_2_with_one_line(capsys, name, key, value, message):
    code, out, err = run(capsys, "solve", THREE_GIVENS4, "--sampler", name, "--param",
                         f"{key}={_toml(value)}")
    assert code == 2 and out == "" and message in one_error(err)


@pytest.mark.parametrize("name, key, value, message", [b for b in BAD if b[0] in CLASSES])
def test_an_instance_passed_in_gets_the_same_checks(name, key, value, message):
    """A dwave-samplers object passed to ``solve`` is its registry entry: under the default
    configuration (another sampler) its parameters are still checked as its own."""
    try:
        cfg = Config().with_overrides(params={key: value})
    except ConfigError as e:  # already refused as a value no sampler takes (nan, -1 reads)
        assert f"{key} = " in str(e)
        return
    with pytest.raises(ParameterError) as e:
        make_plan(cfg, CLASSES[name]())
    assert message in str(e.value)


@pytest.mark.parametrize("params, message", [
    ({"beta_schedule": [0.1, -1.0]}, "sa: beta_schedule = [0.1, -1.0] must be a non-empty"),
    ({"beta_schedule": []}, "sa: beta_schedule = [] must be a non-empty"),
    ({"beta_schedule": [[0.1], [2.0]]}, "sa: beta_schedule = [[0.1], [2.0]] must be"),
    ({"beta_schedule": "0.1, 2.0"}, "sa: beta_schedule = '0.1, 2.0' must be"),
    ({"beta_range": [0.1, 3.0]}, "sa: beta_range = [0.1, 3.0] must be left out or equal"),
    ({"num_sweeps": 3}, "sa: num_sweeps = 3 must equal len(beta_schedule) * "
                        "num_sweeps_per_beta = 2"),
])
def test_a_custom_schedule_is_checked_as_a_whole(params, message):
    """``beta_schedule_type = "custom"``: the schedule, and the sweeps and range that must
    agree with it, refused before any work (the library refuses them halfway through)."""
    custom = {"beta_schedule_type": "custom", "beta_schedule": [0.1, 2.0], "num_sweeps": 2}
    with pytest.raises(ParameterError) as e:
        solve(parse_puzzle(THREE_GIVENS4), Config().with_overrides(sampler="sa",
                                                          params={**custom, **params}))
    assert message in str(e.value)


@pytest.mark.parametrize("name", ["sa", "neal", "tabu", "steepest", "random"])
def test_registered_defaults_and_the_library_defaults_pass(name):
    spec = get_spec(name)
    check_sampler_values(name, spec.defaults)
    check_sampler_values(name, {})  # the library's own defaults
    assert check_params(get_sampler(name), spec.defaults, name) == spec.defaults


@pytest.mark.parametrize("name, params", [
    ("sa", {"beta_range": [0.1, 4.2], "num_sweeps": 20, "beta_schedule_type": "linear",
            "randomize_order": True, "proposal_acceptance_criteria": "gibbs",
            "initial_states_generator": "random"}),
    ("sa", {"beta_range": [0.0, 3.0], "beta_schedule_type": "linear", "num_sweeps": 100,
            "num_sweeps_per_beta": 10}),
    ("sa", {"beta_schedule_type": "custom", "beta_schedule": [0.1, 1.0, 3.0],
            "num_sweeps_per_beta": 5, "num_sweeps": 15}),
    ("neal", {"beta_schedule_type": "custom", "beta_schedule": [0.5, 2.0], "num_sweeps": 2,
              "beta_range": [0.5, 2.0]}),
    ("tabu", {"timeout": 20, "num_restarts": 0, "energy_threshold": -1e9, "tenure": 3,
              "coefficient_z_first": 100, "coefficient_z_restart": 25, "lower_bound_z": 0}),
    ("steepest", {"large_sparse_opt": True, "num_reads": 4}),
    ("random", {"num_reads": 5, "max_num_samples": 5, "time_limit": 0.05}),
])
def test_good_values_pass_and_sample(name, params):
    """The checks refuse nothing the library takes: the values above sample a 4x4 model."""
    cfg = Config().with_overrides(sampler=name, seed=3, params=params,
                                  route={"enabled": False, "exact_fallback": ""})
    r = solve(parse_puzzle(THREE_GIVENS4), cfg)
    assert r.sampler["name"] == name and r.num_reads >= 1


def test_initial_states_for_the_model_pass_and_run():
    """``initial_states`` with ``tile`` is checked for shape and values, not refused."""
    from qsudoku.solving import build

    _, model, _ = build(parse_puzzle(THREE_GIVENS4))
    state = [[0] * model.num_variables]
    params = {"initial_states": (state, list(model.bqm.variables)),
              "initial_states_generator": "tile", "num_reads": 3, "seed": 1}
    sampler = get_sampler("steepest")
    check_params(sampler, params, "steepest")
    assert len(sampler.sample(model.bqm, **params)) == 3


@pytest.mark.parametrize("cls, name", [(c, n) for n, c in CLASSES.items()])
def test_instances_are_recognised_as_registered(cls, name):
    assert spec_of(cls()).name == name


def test_unknown_parameters_are_still_refused():
    with pytest.raises(ParameterError, match="'steepest' does not accept parameter.s. num_sweeps"):
        check_params(get_sampler("steepest"), {"num_sweeps": 10}, "steepest")


def test_a_tabu_instance_passed_in_solves_the_seed_puzzle_under_its_registry_name():
    # a budget that fits the default reads whole: a short one shares its time out over them
    # and caps each read's timeout (test_time_limits)
    r = solve(parse_puzzle(SEED004), Config().with_overrides(
        seed=1, route={"exact_fallback": "", "time_budget": 60}), sampler=TabuSampler())
    assert r.sampler["name"] == "tabu" and r.solved_by.startswith("tabu (")
    assert r.sampler["params"]["timeout"] == get_spec("tabu").defaults["timeout"]


def test_a_registered_factory_can_name_checks(monkeypatch):
    """``register(..., checks=...)``: a sampler of one's own gets the same checks."""
    from qsudoku.samplers.registry import SPECS, register

    monkeypatch.setattr("qsudoku.samplers.registry.SPECS", dict(SPECS))
    register("my-tabu", checks="qsudoku.samplers.classical:check_tabu")(
        lambda **options: TabuSampler())
    with pytest.raises(ParameterError, match="my-tabu: timeout = -1"):
        check_params(get_sampler("my-tabu"), {"timeout": -1}, "my-tabu")
    assert check_params(get_sampler("my-tabu"), {"timeout": 5}, "my-tabu") == {"timeout": 5}
