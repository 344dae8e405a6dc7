"""The real QPU and Leap hybrid solvers on a 4x4 puzzle (opt-in, see conftest)."""

import pytest

from qsudoku.config import Config
from qsudoku.io import parse_puzzle
from qsudoku.solving import solve

pytestmark = pytest.mark.qpu

FOUR = "1......2........"


def _cfg(name, **params):
    return Config.from_dict({"propagate": {"rules": []},
                             "sampler": {"name": name, "params": params}})


def test_qpu_solves_4x4_and_reports_timing_and_chains(cache_dir):
    cfg = _cfg("qpu", num_reads=100, label="qsudoku test")
    first = solve(parse_puzzle(FOUR), cfg)
    info = first.info
    assert info["timing"]["qpu_access_time"] > 0 and info["problem_id"]
    assert info["num_qubits"] >= first.num_variables and 0 <= info["chain_break_fraction"] <= 1
    assert first.success_rate is not None
    second = solve(parse_puzzle(FOUR), cfg)
    assert second.info["embedding_cache_hit"] is True


@pytest.mark.parametrize("name", ["hybrid", "hybrid-cqm"])
def test_hybrid_solves_4x4(name, cache_dir):
    r = solve(parse_puzzle(FOUR), _cfg(name))
    assert r.valid
    assert r.info["time_limit"] == pytest.approx(r.info["min_time_limit"])
    assert r.info["timing"]


def test_decompose_on_the_qpu_solves_6x6_in_small_subproblems(cache_dir):
    """The decompose path on hardware: clique-embedded subproblems, real timing summed."""
    cfg = Config.from_dict({"sampler": {"name": "decompose", "options": {"qpu_sampler": "qpu"},
                                        "params": {"subproblem_size": 24, "qpu_reads": 50,
                                                   "max_calls": 40, "seed": 1,
                                                   "label": "qsudoku test"}},
                            "route": {"enabled": False}})
    r = solve(parse_puzzle("1.....2.....3.....4.....5.....6....."), cfg)
    info = r.info
    assert info["qpu_calls"] >= 1 and info["max_subproblem_variables"] <= 24
    assert 1 <= info["longest_chain"] <= 8
    assert info["qpu_access_time"] > 0 and info["estimated_qpu_access_time"] > 0
    assert r.valid


def test_kerberos_on_the_qpu_solves_4x4(cache_dir):
    cfg = Config.from_dict({"sampler": {"name": "kerberos", "options": {"qpu_sampler": "qpu"},
                                        "params": {"max_iter": 5, "energy_threshold": 0.0,
                                                   "qpu_params": {"label": "qsudoku test"}}},
                            "route": {"enabled": False}})
    r = solve(parse_puzzle(FOUR), cfg)
    assert r.valid and r.info["qpu_calls"] >= 0
