"""Every option and parameter of a sampler is checked before any work (issue 25, item 5):
type, range and finite, with the sampler's name and the parameter in one ParameterError."""

from __future__ import annotations

import dimod
import pytest

from qsudoku.errors import ConfigError, ParameterError
from qsudoku.samplers import get_sampler

BQM = dimod.BQM({(0, 0, 1): -1.0, (0, 0, 2): -1.0}, {((0, 0, 1), (0, 0, 2)): 2.0}, 1.0,
                "BINARY")
MOCK = {"qpu_sampler": "mock-qpu"}


@pytest.mark.parametrize("name, options, params, message", [
    ("aco", {}, {"num_ants": 10**9}, "aco: num_ants = 1000000000"),
    ("aco", {}, {"time_limit": 1e308}, "aco: time_limit = 1e+308"),
    ("aco", {}, {"time_limit": float("nan")}, "aco: time_limit = nan"),
    ("aco", {}, {"blame": "yes"}, "aco: blame = 'yes'"),
    ("aco", {}, {"refute": "false"}, "aco: refute = 'false' must be true, false or 'auto'"),
    ("aco", {}, {"stall": -1}, "aco: stall = -1"),
    ("aco", {}, {"stop_at_ground": "nonsense"}, "aco: stop_at_ground = 'nonsense'"),
    ("swap-tabu", {}, {"bump": -1}, "swap-tabu: bump = -1"),
    ("swap", {}, {"num_replicas": 10**9}, "swap: num_replicas"),
    ("swap", {}, {"beta_range": "hot"}, "swap: beta_range = 'hot'"),
    ("decompose", MOCK, {"energy_target": float("nan")}, "decompose: energy_target = nan"),
    ("decompose", MOCK, {"batch": -1}, "decompose: batch = -1"),
    ("decompose", MOCK, {"polish": "no"}, "decompose: polish = 'no'"),
    ("kerberos", MOCK, {"max_iter": 10**9}, "kerberos: max_iter = 1000000000"),
    ("kerberos", MOCK, {"max_iter": -1}, "kerberos: max_iter = -1"),
    ("kerberos", MOCK, {"energy_threshold": float("nan")}, "kerberos: energy_threshold = nan"),
    ("kerberos", MOCK, {"sa_reads": 0}, "kerberos: sa_reads = 0"),
    ("kerberos", MOCK, {"max_subproblem_size": 0}, "kerberos: max_subproblem_size = 0"),
    ("kerberos", MOCK, {"convergence": 0}, "kerberos: convergence = 0"),
    ("kerberos", MOCK, {"tabu_timeout": -1}, "kerberos: tabu_timeout = -1"),
    ("mock-qpu", {}, {"return_embedding": "yes"}, "mock-qpu: return_embedding = 'yes'"),
    ("mock-qpu", {}, {"num_sweeps": -1}, "mock-qpu: num_sweeps = -1"),
    ("sat", {}, {"time_limit": float("inf")}, "sat: time_limit = inf"),
    ("csp", {}, {"hall": "true"}, "csp: hall = 'true'"),
    ("cpsat", {}, {"num_workers": 0}, "cpsat: num_workers = 0"),
    ("exact", {}, {"max_variables": 10**6}, "exact: max_variables = 1000000"),
])
def test_bad_parameters_are_one_parameter_error(name, options, params, message):
    try:
        sampler = get_sampler(name, **options)
    except Exception as e:  # noqa: BLE001 - a missing optional extra
        pytest.skip(f"{name}: {e}")
    with pytest.raises(ParameterError) as e:
        sampler.sample(BQM, **params)
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("options, message", [
    ({"shape": [1000]}, "mock-qpu: shape = [1000]"),
    ({"shape": "abc"}, "mock-qpu: shape = 'abc'"),
    ({"topology": ["pegasus"]}, "mock-qpu: topology"),
    ({"embedding_parameters": 5}, "must be a table"),
    ({"embedding_parameters": {"tries": 10**9}}, "mock-qpu: embedding parameter tries"),
    ({"embedding_parameters": {"timeout": 1e308}}, "embedding parameter timeout"),
    ({"cache": "no"}, "mock-qpu: cache = 'no'"),
])
def test_bad_mock_qpu_options_are_refused_before_building_it(options, message):
    pytest.importorskip("dwave.system")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        get_sampler("mock-qpu", **options)


def test_bad_exact_constructor_options_are_refused():
    with pytest.raises(ParameterError, match="sat: time_limit = -1"):
        get_sampler("sat", time_limit=-1)
