"""``sqa``, ``rotor``, ``pt`` and ``pa``: their defaults solve the seed004 puzzle, their
parameters are checked, seeded runs repeat, and they run in solve, bench (on a local Dask
cluster of processes) and sweep."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from qsudoku import Config, parse_puzzle, solve
from qsudoku.cli import main
from qsudoku.errors import ParameterError
from qsudoku.experiments.table import read_rows
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.samplers import get_sampler
from qsudoku.samplers.registry import check_sampler_values
from _puzzles import SEED004, THREE_GIVENS4

NEW = ("sqa", "rotor", "pt", "pa")


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW)
def test_defaults_solve_seed004(name):
    result = solve(parse_puzzle(SEED004), Config().with_overrides(sampler=name, seed=3))
    assert result.valid and result.solved_by.startswith(name)


@pytest.mark.parametrize("name", NEW)
@pytest.mark.slow
def test_a_seed_repeats_the_reads_and_an_unseeded_run_names_its_seed(name):
    bqm = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=())).bqm
    sampler = get_sampler(name)
    a, b = (sampler.sample(bqm, num_reads=3, seed=11) for _ in range(2))
    assert np.array_equal(a.record.sample, b.record.sample)
    assert np.allclose(a.record.energy, bqm.energies(a))  # energies are the BQM's
    if name in ("pt", "pa"):
        drawn = sampler.sample(bqm, num_reads=3)
        again = sampler.sample(bqm, num_reads=3, seed=drawn.info["seed"])
        assert np.array_equal(drawn.record.sample, again.record.sample)


@pytest.mark.parametrize("name, params, message", [
    ("sqa", {"transverse_field": -1}, "sqa: transverse_field = -1"),
    ("sqa", {"beta_schedule_type": "custom"}, "sqa: beta_schedule_type = 'custom'"),
    ("rotor", {"beta_range": [5, 1]}, "rotor: beta_range = [5, 1]"),
    ("pt", {"num_replicas": 1}, "pt: num_replicas = 1"),
    ("pt", {"convergence": 0}, "pt: convergence = 0"),
    ("pa", {"num_iter": 0}, "pa: num_iter = 0"),
    ("pa", {"beta_range": [0, 1]}, "pa: beta_range = [0, 1]"),
])
def test_bad_values_are_one_line_errors_before_and_inside_sample(name, params, message):
    with pytest.raises(ParameterError, match=message.replace("[", r"\[")):
        check_sampler_values(name, params)
    bqm = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=())).bqm
    with pytest.raises(ParameterError, match=message.replace("[", r"\[")):
        get_sampler(name).sample(bqm, **params)


@pytest.mark.slow
def test_bench_on_a_local_dask_cluster_and_sweep(tmp_path, capsys):
    out = str(tmp_path / "bench.csv")
    code = main(["bench", SEED004, "--sampler", ",".join(NEW), "--seed", "2", "--jobs", "2",
                 "--param", "pa.num_reads=20", "-o", out, "--quiet"])
    assert code == 0
    rows = read_rows(out)
    assert sorted(r["sampler"] for r in rows) == sorted(NEW)
    assert all(str(r["valid"]) in ("True", "true", "1") for r in rows)
    for name, grid in (("sqa", "transverse_field=0.25,0.5"), ("pt", "num_replicas=2,4")):
        sweep = str(tmp_path / f"{name}.csv")
        assert main(["sweep", SEED004, "--sampler", name, "--grid", grid, "--seed", "1",
                     "--reads", "2", "-o", sweep, "--quiet"]) == 0
        rows = read_rows(sweep)
        assert len(rows) == 2 and {r["sampler"] for r in rows} == {name}


@pytest.mark.slow
def test_building_pt_and_pa_imports_no_dwave_hybrid():
    code = ("import sys; from qsudoku.samplers import get_sampler; "
            "[get_sampler(n) for n in ('pt', 'pa')]; print('hybrid' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW)
def test_seed_zero_repeats_the_reads_too(name):
    """dwave-samplers' path-integral kernel reads seed 0 as "seed from the OS"; sqa passes
    SEED_FOR_ZERO for it.  A random 40-spin model, where two unseeded runs differ."""
    import dimod

    from qsudoku.samplers.sqa.sampler import SEED_FOR_ZERO

    bqm = dimod.generators.ran_r(1, 40, seed=3)
    sampler = get_sampler(name)
    a, b = (sampler.sample(bqm, num_reads=10, num_sweeps=100, seed=0).record
            for _ in range(2))
    assert np.array_equal(a.sample, b.sample) and np.array_equal(a.energy, b.energy)
    if name == "sqa":
        c = sampler.sample(bqm, num_reads=10, num_sweeps=100, seed=SEED_FOR_ZERO).record
        assert np.array_equal(a.sample, c.sample)
