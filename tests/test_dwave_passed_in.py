"""Samplers built by the registry's factories (``mock-qpu``, ``decompose``, ``kerberos``,
``qpu``, ``hybrid``, ``hybrid-cqm``) passed to :func:`qsudoku.solve` as objects run under
their registry name, defaults and checks (issue 24); and every parameter ``decompose`` and
``kerberos`` pass on to dwave-system and dwave-hybrid is checked before any work, by
``--sampler NAME --param`` as for an object passed in (issue 25, item 5).

Everything runs offline: the mock QPU, with its embedding cache in the test's own
temporary directory."""

from __future__ import annotations

import types

import pytest

pytest.importorskip("dwave.system")
pytest.importorskip("minorminer")

from _cli import one_error, run  # noqa: E402
from qsudoku import Config, solve  # noqa: E402
from qsudoku.config import toml_value  # noqa: E402
from qsudoku.errors import ConfigError, ParameterError  # noqa: E402
from qsudoku.io import parse_puzzle  # noqa: E402
from qsudoku.samplers import get_sampler, get_spec  # noqa: E402
from qsudoku.samplers.dwave.checks import check_kerberos, check_qpu  # noqa: E402
from qsudoku.solving.plan import make_plan, spec_of  # noqa: E402
from _puzzles import SEED004, THREE_GIVENS4

#: Registry name -> the options that build it offline (``cache_dir`` is added per test).
OFFLINE = {"mock-qpu": {}, "decompose": {"qpu_sampler": "mock-qpu"},
           "kerberos": {"qpu_sampler": "mock-qpu"}}


def _build(name, tmp_path):
    if name == "kerberos":
        pytest.importorskip("hybrid")
    return get_sampler(name, cache_dir=str(tmp_path / "embeddings"), **OFFLINE[name])


@pytest.fixture(autouse=True)
def _no_dwave_config(monkeypatch, tmp_path):
    """No test reads a real D-Wave configuration or token."""
    empty = tmp_path / "dwave.conf"
    empty.write_text("")
    monkeypatch.setenv("DWAVE_CONFIG_FILE", str(empty))
    monkeypatch.delenv("DWAVE_API_TOKEN", raising=False)


# -- recognised by the registry ---------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(OFFLINE))
def test_a_factory_product_is_recognised_as_its_entry(name, tmp_path):
    assert spec_of(_build(name, tmp_path)).name == name


def test_qpu_and_hybrid_products_are_recognised_without_a_network():
    """The classes the online factories return, around stand-in children (their
    constructors need a token): ``qpu`` and ``mock-qpu`` share a class, told apart by
    the object's ``name``."""
    from qsudoku.samplers.dwave.hybrid import HybridCQMSampler, HybridNLSampler, HybridSampler
    from qsudoku.samplers.dwave.qpu import QPUSampler

    child = types.SimpleNamespace(parameters={"num_reads": []}, properties={})
    assert spec_of(QPUSampler(child)).name == "qpu"
    assert spec_of(HybridSampler(child)).name == "hybrid"
    assert spec_of(HybridCQMSampler(child)).name == "hybrid-cqm"
    assert spec_of(HybridNLSampler(child)).name == "hybrid-nl"
    renamed = QPUSampler(child)
    renamed.name = "my-qpu"  # a name no entry of its class has: not recognised
    assert spec_of(renamed) is None


def test_neal_objects_are_sa_and_no_entry_is_ambiguous():
    pytest.importorskip("neal")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import neal
    assert spec_of(neal.SimulatedAnnealingSampler()).name == "sa"
    assert get_spec("qpu").product == get_spec("mock-qpu").product  # name decides
    assert get_spec("neal").product is None


@pytest.mark.slow
@pytest.mark.parametrize("name, params", [
    ("mock-qpu", {"num_sweeps": 200}),
    ("decompose", {"qpu_reads": 5, "num_sweeps": 200}),
    ("kerberos", {"max_iter": 5, "convergence": 3, "tabu_timeout": 50,
                  "qpu_params": {"num_sweeps": 200}, "max_subproblem_size": 20}),
])
def test_an_object_passed_in_runs_under_its_registry_name(name, params, tmp_path):
    """Under the default configuration (another sampler): the entry's name, its
    defaults under the parameters it accepts of the configuration's."""
    cfg = Config().with_overrides(seed=2, params=params, rules=[],
                                  route={"exact_fallback": ""})
    r = solve(parse_puzzle(THREE_GIVENS4), cfg, sampler=_build(name, tmp_path))
    assert r.sampler["name"] == name and r.solved_by.startswith(f"{name} (")
    for key, value in get_spec(name).defaults.items():
        assert r.sampler["params"][key] == params.get(key, value)


#: (sampler, parameter, bad value as TOML, message): values passed on to D-Wave's libraries.
BAD = [
    ("kerberos", "max_iter", "-1", "kerberos: max_iter = -1"),
    ("kerberos", "max_iter", "1000000000", "kerberos: max_iter = 1000000000"),
    ("kerberos", "convergence", "0", "kerberos: convergence = 0"),
    ("kerberos", "tabu_timeout", "-1", "kerberos: tabu_timeout = -1"),
    ("kerberos", "sa_reads", "0", "kerberos: sa_reads = 0"),
    ("kerberos", "sa_sweeps", "1.5", "kerberos: sa_sweeps = 1.5"),
    ("kerberos", "max_subproblem_size", "0", "kerberos: max_subproblem_size = 0"),
    ("kerberos", "energy_threshold", "nan", "kerberos: energy_threshold = nan"),
    ("kerberos", "max_time", "-1.0", "kerberos: max_time = -1.0"),
    ("kerberos", "qpu_reads", "100000", "kerberos: qpu_reads = 100000"),
    ("kerberos", "qpu_params", "3", "kerberos: qpu_params = 3 must be a table"),
    ("kerberos", "qpu_params", "{num_reads = 5}", "kerberos: qpu_params.num_reads = 5 is "
                                                  "replaced by Kerberos's qpu_reads"),
    ("kerberos", "qpu_params", "{num_sweeps = -1}", "kerberos: qpu_params.num_sweeps = -1"),
    ("kerberos", "qpu_params", "{chain_strength = inf}", "kerberos: qpu_params.chain_strength"),
    ("kerberos", "qpu_params", '{chain_break_method = "vote"}',
     "kerberos: qpu_params.chain_break_method = 'vote'; choose from"),
    ("kerberos", "qpu_params", "{annealing_time = 1e308}", "kerberos: qpu_params.annealing_time"),
    ("kerberos", "qpu_params", "{seed = -5}", "kerberos: qpu_params.seed = -5"),
    ("kerberos", "qpu_params", "{bogus = 1}", "kerberos: qpu_params has unknown parameter(s) "
                                              "bogus"),
    ("decompose", "energy_target", "nan", "decompose: energy_target = nan"),
    ("decompose", "backjump", "-1", "decompose: backjump = -1"),
    ("decompose", "subproblem_size", "0", "decompose: subproblem_size = 0"),
    ("decompose", "max_calls", "1000000000", "decompose: max_calls = 1000000000"),
    ("decompose", "time_limit", "-1", "decompose: time_limit = -1"),
    ("decompose", "polish", '"false"', "decompose: polish = 'false' must be true or false"),
    ("decompose", "chain_strength", "-1", "decompose: chain_strength = -1"),
    ("decompose", "chain_strength_factor", "inf", "decompose: chain_strength_factor = inf"),
    ("decompose", "num_sweeps", "0", "decompose: num_sweeps = 0"),
    ("decompose", "annealing_time", '"long"', "decompose: annealing_time = 'long'"),
    ("decompose", "auto_scale", "1", "decompose: auto_scale = 1 must be true or false"),
    ("mock-qpu", "warnings", '"loud"', "mock-qpu: warnings = 'loud'; choose from"),
    ("mock-qpu", "initial_state", "5", "mock-qpu: initial_state = 5 must map"),
    ("mock-qpu", "flux_biases", '"x"', "mock-qpu: flux_biases = 'x' must be a list"),
    ("mock-qpu", "h_gain_schedule", "3", "mock-qpu: h_gain_schedule = 3 must be a list"),
    ("mock-qpu", "anneal_schedule", "[[0, 0], [20, 1]]", "not both"),
    ("mock-qpu", "return_embedding", '"yes"', "mock-qpu: return_embedding = 'yes'"),
]


@pytest.mark.parametrize("name, key, value, message", BAD)
def test_cli_param_passed_on_exits_2_with_one_line(capsys, tmp_path, name, key, value, message):
    if name == "kerberos":
        pytest.importorskip("hybrid")
    argv = ["solve", SEED004, "--rules", "none", "--sampler", name, "--param", f"{key}={value}",
            "--option", f'cache_dir="{tmp_path}"']
    if key == "anneal_schedule":
        argv += ["--param", "annealing_time=20"]
    if name != "mock-qpu":
        argv += ["--option", "qpu_sampler=mock-qpu"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and message in one_error(err)


@pytest.mark.parametrize("name, key, value, message",
                         [b for b in BAD if "unknown" not in b[3]])
def test_an_object_passed_in_is_as_strict_as_its_name(tmp_path, name, key, value, message):
    """The same bad value, given to an object passed in under the default configuration,
    is refused by the plan (before any work) with the same ParameterError."""
    params = {key: toml_value(value)}
    if key == "anneal_schedule":
        params["annealing_time"] = 20
    try:
        cfg = Config().with_overrides(params=params)
    except ConfigError as e:  # already refused as a value no sampler takes (nan, -1 s)
        assert f"{key} = " in str(e)
        return
    with pytest.raises(ParameterError) as e:
        make_plan(cfg, _build(name, tmp_path))
    assert message in str(e.value)


def test_unknown_qpu_params_are_refused_before_dwave_hybrid_drops_them(tmp_path):
    """dwave-system's AutoEmbeddingComposite drops a key its child does not take."""
    from qsudoku.solving import build

    _, model, _ = build(parse_puzzle(THREE_GIVENS4), Config().with_overrides(rules=[]))
    sampler = _build("kerberos", tmp_path)
    with pytest.raises(ParameterError, match="kerberos: qpu_params has unknown parameter.s. "
                                             "anneling_time"):
        sampler.sample(model.bqm, qpu_params={"anneling_time": 20}, max_iter=1)
    assert sampler.counter.stats["qpu_calls"] == 0


def test_an_initial_state_must_cover_the_model(tmp_path):
    from qsudoku.solving import build

    _, model, _ = build(parse_puzzle(THREE_GIVENS4), Config().with_overrides(rules=[]))
    with pytest.raises(ParameterError, match="mock-qpu: initial_state has no value for"):
        _build("mock-qpu", tmp_path).sample(model.bqm, initial_state={"a": 1}, num_reads=1)


@pytest.mark.parametrize("params", [
    {"chain_strength": "uniform_torque_compensation", "chain_strength_factor": 2.0},
    {"chain_strength": 3, "chain_break_method": "minimize_energy", "warnings": "SAVE"},
    {"annealing_time": 20.0, "auto_scale": False, "label": "run", "answer_mode": "raw",
     "flux_biases": [0.0, 0.1], "initial_state": {"a": 1, "b": -1}},
    {"anneal_schedule": [[0, 0], [20, 1]], "h_gain_schedule": [[0, 1], [20, 1]], "seed": None},
])
def test_good_qpu_values_pass_the_checks(params):
    check_qpu("qpu", params)
    check_kerberos("kerberos", {"qpu_params": params, "qpu_reads": 10, "seed": 1})


def test_a_factory_naming_a_registered_class_does_not_take_its_objects(monkeypatch):
    """A user's factory whose product is ``sa``'s class: ``sa``'s objects stay ``sa``."""
    from dwave.samplers import SimulatedAnnealingSampler

    from qsudoku.samplers.registry import SPECS, register

    monkeypatch.setattr("qsudoku.samplers.registry.SPECS", dict(SPECS))
    register("my-sa", defaults={"num_reads": 3},
             product="dwave.samplers:SimulatedAnnealingSampler")(
        lambda **options: SimulatedAnnealingSampler())
    assert get_spec("my-sa").matches(SimulatedAnnealingSampler())
    assert spec_of(get_sampler("my-sa")).name == "sa"
