"""The real QPU and Leap hybrid solvers on a 4x4 puzzle (opt-in, see conftest)."""

import pytest

from qsudoku.config import Config
from qsudoku.io import parse_puzzle
from qsudoku.pipeline import solve

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
