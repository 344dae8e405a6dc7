"""D-Wave backends, offline: the mock QPU end to end through a cached embedding, chain
strength and parameter checks, the hybrid BQM and CQM routes through fake Leap solvers,
and every cloud failure as a one-line BackendUnavailableError that never shows the token."""

from __future__ import annotations

import json
import sys
import types

import dimod
import numpy as np
import pytest
import requests

from _shared import SEEDS, needs_data
from qsudoku.cli import main
from qsudoku.config import Config
from qsudoku.errors import BackendUnavailableError, ConfigError, ModelTooLargeError, install_hint
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.solving import build, solve
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import Weights, build_model
from qsudoku.samplers import get_sampler, get_spec
from qsudoku.samplers.dwave.qpu import resolve_chain_strength, scrub
from qsudoku.samplers.dwave.hybrid import cqm_from_groups
from _puzzles import TWO_GIVENS4

TOKEN = "SENTINEL-" + "5eb7" * 12  # token-shaped: 9-letter prefix, 48 hex digits
PLAIN_TOKEN = "SENTINEL-not-hex-at-all"


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory):
    return tmp_path_factory.mktemp("qsudoku-cache")


@pytest.fixture(scope="session")
def cache_dir(cache_root):
    """One embedding cache for the session (``$QSUDOKU_CACHE_DIR/embeddings`` of ``cache_root``):
    the 9x9 embedding is found once."""
    return cache_root / "embeddings"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """No test reads a real D-Wave config or writes to ~/.cache."""
    empty = tmp_path / "dwave.conf"
    empty.write_text("")
    monkeypatch.setenv("DWAVE_CONFIG_FILE", str(empty))
    monkeypatch.delenv("DWAVE_API_TOKEN", raising=False)
    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path / "cache"))


#: A budget no load reaches: these tests check what a sampler call does, so the call must
#: happen (the default 0.8 s, counted from before propagation, can end first on a busy host).
ROUTE = {"time_budget": 60.0}
LONG = ["--time-budget", "60"]


def mock_cfg(cache_dir, rules=None, **params):
    data = {"route": ROUTE, "sampler": {"name": "mock-qpu", "options": {
        "cache_dir": str(cache_dir), "embedding_parameters": {"random_seed": 0}},
                        "params": {"num_reads": 10, "num_sweeps": 1000, "seed": 3, **params}}}
    if rules is not None:
        data["propagate"] = {"rules": rules}
    return Config.from_dict(data)


@pytest.fixture(scope="session")
def seed004():
    return next(p for p in load_puzzles(str(SEEDS)) if p.name.startswith("seed004"))


# -- the mock QPU end to end ---------------------------------------------------------------------

@pytest.mark.slow
def test_mock_qpu_solves_4x4_through_embedding_and_reports_chains(tmp_path):
    cfg = mock_cfg(tmp_path / "emb", rules=[], num_reads=30)
    r = solve(parse_puzzle(TWO_GIVENS4), cfg)
    assert r.valid and r.num_variables == 42
    info = r.info
    assert info["num_variables"] == 42 and info["num_qubits"] >= 42 and info["longest_chain"] >= 1
    assert 0.0 <= info["chain_break_fraction"] <= 1.0 and info["chain_strength"] > 0
    assert info["embedding_cache_hit"] is False and info["embedding_time"] > 0
    assert info["timing"]["qpu_access_time"] > 0 and info["problem_label"] == "qsudoku"
    assert info["target"].startswith("pegasus[16]") and 0 < info["estimated_qpu_access_time"] < 1e6
    assert "chain_break_fraction" in r.sampleset.record.dtype.names
    json.dumps(info)  # JSON-friendly all the way down
    again = solve(parse_puzzle(TWO_GIVENS4), cfg)
    assert again.info["embedding_cache_hit"] is True
    assert again.info["num_qubits"] == info["num_qubits"]
    assert again.info["embedding_time"] == pytest.approx(info["embedding_time"], abs=1e-3)
    assert len(list((tmp_path / "emb").glob("*.json"))) == 1


@pytest.mark.slow
@needs_data
def test_mock_qpu_solves_seed004_9x9(seed004, cache_dir):
    cfg = mock_cfg(cache_dir, num_reads=20)
    r = solve(seed004, cfg)
    assert r.num_variables == 63
    assert r.valid and r.grid == list(seed004.solution)
    assert r.info["num_qubits"] >= 63 and r.success_rate > 0


@needs_data
def test_embedding_cache_is_hit_on_a_second_run(seed004, cache_dir, capsys):
    argv = ["embed", seed004.format(), "--cache-dir", str(cache_dir), "--json"]
    assert main(argv) == 0
    assert main(argv) == 0
    first, second = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert second["embedding_cache_hit"] is True
    assert second["num_qubits"] == first["num_qubits"] and second["num_variables"] == 63


@needs_data
def test_shipped_configs(seed004, cache_root, monkeypatch, capsys):
    from _shared import REPO
    from qsudoku.config import load_config

    names = {n: load_config(str(REPO / "configs" / f"{n}.toml")).sampler for n in
             ("qpu", "hybrid", "mock-qpu")}
    assert names["qpu"].name == "qpu" and names["qpu"].params["chain_strength"]
    assert names["hybrid"].name == "hybrid" and "time_limit" not in names["hybrid"].params
    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(cache_root))
    assert main(["solve", seed004.format(), "--config", str(REPO / "configs" / "mock-qpu.toml"),
                 "--json", *LONG]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True
    assert main(["solve", seed004.format(), "--config", str(REPO / "configs" / "qpu.toml")]) == 3
    assert "no D-Wave API token" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("topology, prefix", [("zephyr", "zephyr[12, 4]"),
                                              ("chimera", "chimera[16, 16, 4]")])
def test_mock_qpu_topologies_are_selectable(topology, prefix, tmp_path):
    cfg = Config.from_dict({"propagate": {"rules": []}, "sampler": {
        "name": "mock-qpu", "options": {"topology": topology, "cache_dir": str(tmp_path)},
        "params": {"num_reads": 10, "seed": 2}}, "route": {"enabled": False}})
    r = solve(parse_puzzle(TWO_GIVENS4), cfg)
    assert r.info["target"].startswith(prefix) and r.num_reads == 10
    assert r.sampler["name"] == "mock-qpu" and r.info["num_qubits"] >= 42


@pytest.mark.parametrize("options, message", [
    ({"topology": "hexagonal"}, "topology = 'hexagonal'"),
    ({"topology": "zephyr", "shape": [4]}, "not a valid zephyr shape"),
    ({"embeding_parameters": {}}, "no option 'embeding_parameters'"),
    ({"embedding_parameters": {"timout": 3}}, "unknown embedding parameter 'timout'"),
    ({"api_token": "x"}, "looks like a credential"),
])
def test_mock_qpu_bad_options_are_config_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        get_sampler("mock-qpu", **options)


def test_model_that_does_not_fit_is_backend_unavailable(tmp_path):
    sampler = get_sampler("mock-qpu", topology="chimera", shape=[1, 1, 4], cache_dir=str(tmp_path),
                          embedding_parameters={"timeout": 2, "tries": 2, "random_seed": 0})
    m = build_model(propagate(parse_puzzle(TWO_GIVENS4), rules=[]))
    with pytest.raises(BackendUnavailableError, match="did not fit on chimera.*hybrid"):
        sampler.sample(m.bqm, num_reads=2)
    assert not list(tmp_path.glob("*.json"))  # failures are never cached


# -- chain strength and QPU parameters -----------------------------------------------------------

def test_chain_strength_choices():
    from dwave.embedding.chain_strength import uniform_torque_compensation

    bqm = build_model(propagate(parse_puzzle(TWO_GIVENS4), rules=[])).bqm
    utc = uniform_torque_compensation(bqm.spin)
    assert resolve_chain_strength(bqm) == pytest.approx(utc)
    assert resolve_chain_strength(bqm, "uniform_torque_compensation", 2.0) == \
        pytest.approx(utc * 2.0 / 1.414)
    max_j = max(abs(b) for b in bqm.spin.quadratic.values())
    assert resolve_chain_strength(bqm, "max_j", 3.0) == pytest.approx(3.0 * max_j)
    assert resolve_chain_strength(bqm, 1.25) == 1.25
    for bad, factor, message in [("strong", None, "must be a number"), (2.0, 2.0, "not to a fixed"),
                                 (-1, None, "> 0"), ("max_j", 0, "chain_strength_factor")]:
        with pytest.raises(ConfigError, match=message):
            resolve_chain_strength(bqm, bad, factor)


@pytest.mark.slow
def test_weak_chains_break_more_and_the_strength_used_is_reported(tmp_path):
    m = build_model(propagate(parse_puzzle(TWO_GIVENS4), rules=[]))
    sampler = get_sampler("mock-qpu", cache_dir=str(tmp_path), topology="chimera")
    runs = {cs: sampler.sample(m.bqm, chain_strength=cs, num_reads=20, seed=1, num_sweeps=200)
            for cs in (0.05, 4.0)}
    assert runs[0.05].info["longest_chain"] >= 2
    assert runs[0.05].info["chain_strength"] == 0.05 and runs[4.0].info["chain_strength"] == 4.0
    assert runs[0.05].info["chain_break_fraction"] > runs[4.0].info["chain_break_fraction"]
    ss = sampler.sample(m.bqm, chain_strength="max_j", chain_strength_factor=2.0, num_reads=2, seed=1)
    assert ss.info["chain_strength"] == pytest.approx(resolve_chain_strength(m.bqm, "max_j", 2.0))


@pytest.mark.slow
def test_the_seed_decides_the_chains_and_the_samples_whatever_the_cache(tmp_path):
    """``seed`` seeds minorminer too: two fresh caches give the same chains and samples;
    a second call on the same model keeps the embedding of the first."""
    m = build_model(propagate(parse_puzzle(TWO_GIVENS4), rules=[]))
    runs = []
    for name in ("a", "b"):
        sampler = get_sampler("mock-qpu", cache_dir=str(tmp_path / name), topology="chimera")
        runs.append(sampler.sample(m.bqm, num_reads=5, seed=11, num_sweeps=100,
                                   return_embedding=True))
    chains = [r.info["embedding_context"]["embedding"] for r in runs]
    assert chains[0] == chains[1]
    assert (runs[0].record.sample == runs[1].record.sample).all()
    again = sampler.sample(m.bqm, num_reads=5, seed=12, num_sweeps=100, return_embedding=True)
    assert again.info["embedding_context"]["embedding"] == chains[1]


@pytest.mark.slow
@pytest.mark.parametrize("params, message", [
    ({"annealing_time": 5000}, r"annealing_time = 5000 is outside the solver's range \[0.5, 2000\]"),
    ({"num_reads": 20000}, "mock-qpu: num_reads = 20000 must be an integer in 1..10000"),
    ({"auto_scale": "yes"}, "auto_scale = 'yes' must be true or false"),
    ({"label": 7}, "label = 7 must be a string"),
    ({"chain_break_method": "discard"}, "chain_break_method = 'discard'"),
    ({"num_reads": 10000, "annealing_time": 2000}, "QPU time.*limit"),
    ({"annealing_time": 20, "anneal_schedule": [[0, 0], [20, 1]]}, "not both"),
])
def test_qpu_parameters_are_checked_before_submission(params, message, tmp_path):
    m = build_model(propagate(parse_puzzle(TWO_GIVENS4), rules=[]))
    with pytest.raises(ConfigError, match=message):
        solve(m.puzzle, mock_cfg(tmp_path, rules=[], **params))


@pytest.mark.slow
def test_qpu_parameters_pass_through(tmp_path):
    cfg = mock_cfg(tmp_path, rules=[], annealing_time=50.0, auto_scale=False, label="my run",
                   chain_break_method="minimize_energy", answer_mode="raw")
    r = solve(parse_puzzle(TWO_GIVENS4), cfg)
    assert r.info["problem_label"] == "my run" and r.success_rate is not None
    assert r.sampler["params"]["annealing_time"] == 50.0
    sampler = get_sampler("mock-qpu", cache_dir=str(tmp_path))
    for method in (None, "weighted_random"):
        ss = sampler.sample(r.model.bqm, chain_break_method=method, return_embedding=True,
                            num_reads=2, seed=1)
        context = ss.info["embedding_context"]
        assert context["chain_break_method"] == (method or "majority_vote")
        assert sum(len(c) for c in context["embedding"].values()) == ss.info["num_qubits"]
    with pytest.raises(ConfigError, match="does not accept parameter.*anneling_time"):
        solve(parse_puzzle(TWO_GIVENS4), mock_cfg(tmp_path, rules=[], anneling_time=5))


# -- hybrid BQM and CQM through fake Leap solvers ------------------------------------------------

class _Done:
    """A resolved future."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


class FakeBQMSolver:
    """Leap's hybrid BQM solver, answered locally by seeded simulated annealing."""

    supported_problem_types = ["bqm"]
    name = "hybrid_binary_quadratic_model_fake"
    properties = {"category": "hybrid", "supported_problem_types": ["bqm"],
                  "minimum_time_limit": [[1, 3.0], [1024, 3.0], [5000, 10.0]],
                  "maximum_time_limit_hrs": 24.0, "quota_conversion_rate": 20,
                  "parameters": {"time_limit": "", "label": ""}}

    def __init__(self, fail=None):
        self.calls, self.fail = [], fail

    def upload_bqm(self, fv):
        fv.seek(0)
        return _Done(dimod.BQM.from_file(fv))

    def sample_bqm(self, bqm, **params):
        from dwave.samplers import SimulatedAnnealingSampler

        if self.fail:
            raise self.fail
        self.calls.append(params)
        ss = SimulatedAnnealingSampler().sample(bqm, num_reads=5, seed=4)
        ss.info.update(timing={"qpu_access_time": 40123, "run_time": 3.0e6, "charge_time": 3.0e6},
                       problem_id="fake-1")
        return types.SimpleNamespace(sampleset=ss)


class FakeCQMSolver(FakeBQMSolver):
    """Leap's hybrid CQM solver: the CQM as a penalty BQM, seeded SA, samples checked on the CQM."""

    supported_problem_types = ["cqm"]
    name = "hybrid_constrained_quadratic_model_fake"
    properties = {"category": "hybrid", "supported_problem_types": ["cqm"],
                  "minimum_time_limit_s": 5.0, "maximum_time_limit_hrs": 24.0,
                  "maximum_number_of_constraints": 100000, "maximum_number_of_variables": 500000,
                  "maximum_number_of_biases": 2000000000,
                  "maximum_number_of_quadratic_variables": 200000,
                  "parameters": {"time_limit": "", "label": ""}}

    def upload_problem(self, f):
        f.seek(0)
        return _Done(dimod.ConstrainedQuadraticModel.from_file(f))

    def sample_cqm(self, cqm, **params):
        from dwave.samplers import SimulatedAnnealingSampler

        self.calls.append({"cqm": cqm, **params})
        bqm, invert = dimod.cqm_to_bqm(cqm, lagrange_multiplier=2.0)
        ss = SimulatedAnnealingSampler().sample(bqm, num_reads=8, seed=5, num_sweeps=2000)
        out = dimod.SampleSet.from_samples_cqm([invert(s) for s in ss.samples()], cqm)
        out.info.update(timing={"qpu_access_time": 0, "run_time": 5.0e6, "charge_time": 5.0e6})
        return types.SimpleNamespace(sampleset=out)


@pytest.fixture
def cloud(monkeypatch):
    """Patch the dwave-cloud client so that ``get_solvers`` answers what the test wants."""
    from dwave.cloud.client.base import Client

    state = {"answer": []}

    def get_solvers(self, *args, **kwargs):
        if isinstance(state["answer"], BaseException):
            raise state["answer"]
        return list(state["answer"])

    monkeypatch.setattr(Client, "get_solvers", get_solvers)
    monkeypatch.setenv("DWAVE_API_TOKEN", TOKEN)
    return state


def test_hybrid_defaults_to_the_minimum_time_limit_and_decodes(cloud):
    solver = FakeBQMSolver()
    cloud["answer"] = [solver]
    cfg = Config.from_dict({"propagate": {"rules": []}, "sampler": {"name": "hybrid"},
                            "route": ROUTE})
    r = solve(parse_puzzle(TWO_GIVENS4), cfg)
    assert solver.calls[0]["time_limit"] == pytest.approx(3.0)
    assert solver.calls[0]["label"] == "qsudoku"
    assert r.info["time_limit"] == pytest.approx(3.0) == r.info["min_time_limit"]
    assert r.info["timing"]["qpu_access_time"] == 40123 and r.num_reads == 5
    assert r.success_rate is not None and r.num_variables == 42
    with pytest.raises(ConfigError, match="time_limit = 1 s is below the solver's minimum of 3 s"):
        solve(parse_puzzle(TWO_GIVENS4), cfg.with_overrides(params={"time_limit": 1}))


def test_hybrid_cqm_sends_one_hot_groups_as_constraints(cloud):
    solver = FakeCQMSolver()
    cloud["answer"] = [solver]
    p = parse_puzzle(TWO_GIVENS4)
    cfg = Config.from_dict({"propagate": {"rules": []}, "sampler": {"name": "hybrid-cqm"},
                            "route": ROUTE})
    r = solve(p, cfg)
    cqm = solver.calls[0]["cqm"]
    _, m, _ = build(p, cfg)
    open_cells = sum(1 for c in m.constraints if c.kind == "cell")
    assert len(cqm.discrete) == open_cells == 14 and len(cqm.constraints) == len(m.constraints)
    assert cqm.objective.num_variables == 0 or not any(cqm.objective.linear.values())
    assert solver.calls[0]["time_limit"] == pytest.approx(5.0)
    assert set(r.sampleset.variables) == set(m.variables)
    assert "is_feasible" in r.sampleset.record.dtype.names
    assert r.valid and r.info["num_discrete"] == 14 and 0 < r.info["feasible_fraction"] <= 1
    for sample, energy in r.sampleset.data(["sample", "energy"]):
        assert energy == pytest.approx(m.bqm.energy(sample))


# -- Leap's size limits, checked before any client or network call ------------------------------

def _count_clients(monkeypatch, cls_name):
    """Replace ``dwave.system.<cls_name>`` by a factory that counts its calls and fails."""
    import dwave.system

    made = []

    def factory(**config):
        made.append(config)
        raise AssertionError(f"{cls_name} was built")

    monkeypatch.setattr(dwave.system, cls_name, factory)
    return made


@pytest.mark.parametrize("name, cls_name, limit", [
    ("hybrid", "LeapHybridSampler", "maximum_number_of_variables"),
    ("hybrid-cqm", "LeapHybridCQMSampler", "maximum_number_of_constraints"),
    ("hybrid-nl", "LeapHybridNLSampler", "maximum_number_of_nodes")])
def test_a_model_over_the_published_limit_is_refused_before_any_client(
        name, cls_name, limit, cloud, monkeypatch, capsys):
    if name == "hybrid-nl":
        pytest.importorskip("dwave.optimization")
    from qsudoku.samplers.dwave import limits

    made = _count_clients(monkeypatch, cls_name)
    monkeypatch.setitem(limits.PUBLISHED, name, {**limits.PUBLISHED[name], limit: 5})
    assert main(["solve", TWO_GIVENS4, "--sampler", name, "--rules", "none", *LONG]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and made == []
    assert err.startswith(f"qsudoku: error: the model is too large for Leap's {name} solver: ")
    assert f"> {limit} 5 (published limit)" in err


def test_a_model_under_the_limit_reaches_the_token_check(monkeypatch, capsys):
    from qsudoku.samplers.dwave.limits import PUBLISHED

    assert PUBLISHED["hybrid"] == {"maximum_number_of_variables": 1_000_000,
                                   "maximum_number_of_biases": 200_000_000}
    made = _count_clients(monkeypatch, "LeapHybridSampler")
    assert main(["solve", TWO_GIVENS4, "--sampler", "hybrid", "--rules", "none", *LONG]) == 3
    err = capsys.readouterr().err
    assert err.startswith("qsudoku: error: no D-Wave API token") and made == []


def test_the_solvers_own_limit_is_checked_before_submission(cloud):
    solver = FakeBQMSolver()
    solver.properties = {**solver.properties, "maximum_number_of_biases": 100}
    cloud["answer"] = [solver]
    cfg = Config.from_dict({"propagate": {"rules": []}, "sampler": {"name": "hybrid"},
                            "route": ROUTE})
    bqm = build(parse_puzzle(TWO_GIVENS4), cfg)[1].bqm
    biases = bqm.num_variables + bqm.num_interactions  # 42 + 156
    with pytest.raises(ModelTooLargeError, match=rf"hybrid solver: {biases} biases > "
                       r"maximum_number_of_biases 100 \(hybrid_binary_quadratic_model_fake's"):
        solve(parse_puzzle(TWO_GIVENS4), cfg)
    assert solver.calls == []


def test_a_sampler_that_cannot_connect_tries_once(cloud, monkeypatch):
    from dwave.cloud.exceptions import SolverAuthenticationError
    from dwave.cloud.client.base import Client

    calls = []

    def refuse(self, *args, **kwargs):
        calls.append(1)
        raise SolverAuthenticationError("Invalid token or access denied")

    monkeypatch.setattr(Client, "get_solvers", refuse)
    sampler = get_sampler("hybrid")
    m = build_model(propagate(parse_puzzle(TWO_GIVENS4), rules=[]))
    for _ in range(2):
        with pytest.raises(BackendUnavailableError, match="rejected the API token"):
            sampler.sample(m.bqm)
    assert len(calls) == 1


def test_cqm_objective_keeps_what_is_not_a_penalty():
    p = parse_puzzle(TWO_GIVENS4)
    m = build_model(propagate(p, rules=[]), Weights(cell=2.0, row=0.5, column=0.75, box=1.5))
    cqm = cqm_from_groups(m.bqm, m.groups())
    assert not any(cqm.objective.linear.values()) and not cqm.objective.quadratic  # fitted per kind
    bqm = m.bqm.copy()
    v = m.variables[0]
    bqm.add_linear(v, 0.3)
    cqm = cqm_from_groups(bqm, m.groups())
    solution = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]  # a valid completion of TWO_GIVENS4
    assert p.is_solution(solution)
    x = dict(zip(m.variables, m.sample_of_grid(solution)))
    assert cqm.check_feasible(x)
    assert cqm.objective.energy(x) == pytest.approx(bqm.energy(x))


# -- failures: every one a BackendUnavailableError with one line ---------------------------------

def _cloud_exceptions():
    from dwave.cloud.api.exceptions import RequestTimeout
    from dwave.cloud.exceptions import (SolverAuthenticationError, SolverNotFoundError,
                                        SolverOfflineError)

    return [(SolverAuthenticationError(f"Invalid token {TOKEN} or access denied"),
             "rejected the API token"),
            (SolverNotFoundError("Solver with the requested features not available"),
             "'dwave solvers' lists"),
            (RequestTimeout("API request timed out"), "cannot reach the D-Wave cloud"),
            (requests.exceptions.ConnectionError("Max retries exceeded"), "cannot reach"),
            (SolverOfflineError("solver offline"), "offline or failing")]


@pytest.mark.parametrize("name", ["qpu", "hybrid", "hybrid-cqm", "hybrid-nl"])
def test_cloud_failures_at_connection(name, cloud):
    """The QPU connects when it is built, a Leap hybrid sampler at its first call."""
    cfg = Config.from_dict({"propagate": {"rules": []}, "sampler": {"name": name},
                            "route": ROUTE})
    for exc, message in _cloud_exceptions():
        cloud["answer"] = exc
        with pytest.raises(BackendUnavailableError, match=message) as err:
            solve(parse_puzzle(TWO_GIVENS4), cfg)
        text = str(err.value)
        assert TOKEN not in text and "\n" not in text and err.value.__cause__ is None
        assert err.value.exit_code == 3


@pytest.mark.parametrize("name", ["qpu", "hybrid", "hybrid-cqm", "hybrid-nl"])
def test_missing_token_and_profile(name, monkeypatch):
    with pytest.raises(BackendUnavailableError, match="no D-Wave API token found: set DWAVE_API_TOKEN"):
        get_sampler(name)
    with pytest.raises(BackendUnavailableError, match="profile 'nope' not found.*dwave config"):
        get_sampler(name, profile="nope")
    monkeypatch.setenv("DWAVE_CONFIG_FILE", "/nonexistent/dwave.conf")
    with pytest.raises(BackendUnavailableError, match="cannot read the D-Wave configuration"):
        get_sampler(name)


@pytest.mark.parametrize("name", ["qpu", "mock-qpu", "hybrid", "hybrid-cqm", "hybrid-nl"])
def test_without_the_qpu_extra_the_error_names_it(name, monkeypatch):
    for mod in ("dwave.system", "minorminer"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(BackendUnavailableError) as e:
        get_sampler(name)
    assert str(e.value).endswith("run: " + install_hint("qpu"))
    assert get_spec(name).extra == "qpu" and get_spec(name).offline is (name == "mock-qpu")


def _fake_qpu(cloud, monkeypatch):
    from dwave.cloud.solver import StructuredSolver
    from dwave.cloud.testing.mocks import qpu_pegasus_solver_data

    solver = StructuredSolver(client=None, data=qpu_pegasus_solver_data(4))
    cloud["answer"] = [solver]
    return solver


@pytest.mark.slow
def test_real_dwave_sampler_failures_during_sample(cloud, monkeypatch, tmp_path):
    from dwave.cloud.api.exceptions import RequestTimeout
    from dwave.cloud.exceptions import SolverFailureError

    solver = _fake_qpu(cloud, monkeypatch)
    sampler = get_sampler("qpu", cache_dir=str(tmp_path))
    assert type(sampler.child).__name__ == "DWaveSampler"
    m = build_model(propagate(parse_puzzle(TWO_GIVENS4), rules=[]))
    with pytest.raises(ConfigError, match=r"qpu: num_reads = 20000 must be an integer in 1..10000"):
        sampler.sample(m.bqm, num_reads=20000)
    with pytest.raises(ConfigError, match="does not accept parameter 'annealing_time'"):
        sampler.sample(m.bqm, annealing_time=20)
    for exc, message in [(RequestTimeout("API request timed out"), "cannot reach"),
                         (SolverFailureError(f"bad problem {TOKEN}"), "rejected or failed")]:
        def fail(*a, _exc=exc, **k):
            raise _exc
        monkeypatch.setattr(solver, "sample_bqm", fail)
        with pytest.raises(BackendUnavailableError, match=message) as err:
            cfg = Config.from_dict({"propagate": {"rules": []}, "route": ROUTE, "sampler": {
                "name": "qpu", "options": {"cache_dir": str(tmp_path)}}})
            solve(m.puzzle, cfg, sampler=sampler)
        assert TOKEN not in str(err.value)
    assert len(list(tmp_path.glob("*.json"))) == 1  # the embedding was cached before the failure


def test_cli_exit_3_with_one_line_and_fallback(cloud, capsys):
    from dwave.cloud.exceptions import SolverAuthenticationError

    cloud["answer"] = SolverAuthenticationError("Invalid token or access denied")
    assert main(["solve", TWO_GIVENS4, "--sampler", "qpu"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("qsudoku: error: D-Wave rejected the API token")
    assert main(["solve", TWO_GIVENS4, "--sampler", "hybrid", "--fallback", "sa", "--seed", "1", *LONG,
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["solved_by"] == "sa (1 round)" and "unavailable" in out["notes"][0]


@pytest.mark.slow
@pytest.mark.parametrize("token", [TOKEN, PLAIN_TOKEN])
def test_token_never_reaches_output_or_files(token, cloud, monkeypatch, tmp_path, capsys):
    from dwave.cloud.exceptions import SolverAuthenticationError

    monkeypatch.setenv("DWAVE_API_TOKEN", token)
    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path / "cache"))
    cloud["answer"] = SolverAuthenticationError(f"token {token} is not valid")
    codes = [main(["solve", TWO_GIVENS4, "--sampler", name, *LONG])
             for name in ("qpu", "hybrid", "hybrid-cqm", "hybrid-nl")]
    assert codes == [3, 3, 3, 3]
    cfg = tmp_path / "mock.toml"
    cfg.write_text('[propagate]\nrules = []\n[sampler]\nname = "mock-qpu"\n'
                   '[sampler.params]\nnum_reads = 4\nseed = 1\n')
    # exit 1 = no valid read
    assert main(["solve", TWO_GIVENS4, "--config", str(cfg), "--json", *LONG]) in (0, 1)
    assert main(["embed", TWO_GIVENS4, "--rules", "none", "--json"]) == 0
    leaky = tmp_path / "leaky.toml"
    leaky.write_text(f'[sampler]\nname = "qpu"\n[sampler.options]\ntoken = "{token}"\n')
    assert main(["solve", TWO_GIVENS4, "--config", str(leaky)]) == 2
    out = capsys.readouterr()
    assert "credential" in out.err and "embedding_cache_hit" in out.out
    assert token not in out.out + out.err
    files = [f for f in tmp_path.rglob("*") if f.is_file() and f != leaky]
    assert any(f.suffix == ".json" for f in files)
    for f in files:
        assert token not in f.read_text(errors="replace"), f


def test_scrub_removes_env_and_token_shaped_strings(monkeypatch):
    monkeypatch.setenv("DWAVE_API_TOKEN", PLAIN_TOKEN)
    text = scrub(f"a {PLAIN_TOKEN} b\n c ABC-{'0f' * 20}")
    assert text == "a <token> b c <token>"
    assert np.isclose(len(scrub("x" * 1000)), 240)
