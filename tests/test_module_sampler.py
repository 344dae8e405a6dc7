"""``--sampler module:Class``: any importable dimod.Sampler runs through the one solve path
(the registry resolves it); a module that is not there, or a class that is not a sampler, is
exit 2 in one line; OpenJij (the ``peers`` extra) solves seed004; the dwave-examples
formulation of ``benchmarks/`` answers in the reduced QUBO's variables."""

from __future__ import annotations

import pytest

from qsudoku import Config, parse_puzzle, solve
from qsudoku.config.files import load_config
from qsudoku.errors import ConfigError
from qsudoku.samplers.registry import accepted_params, get_sampler, get_spec, imported_spec

from _cli import one_error, run
from _puzzles import SEED004, SEED004_SOLUTION
from _shared import REPO

SA = "dwave.samplers:SimulatedAnnealingSampler"


def test_a_module_that_is_not_there_is_exit_2_naming_it(capsys):
    code, out, err = run(capsys, "solve", SEED004, "--sampler", "nosuch_mod:Foo")
    assert code == 2 and out == ""
    assert "nosuch_mod" in one_error(err)


@pytest.mark.parametrize("name, said", [
    ("dimod:BinaryQuadraticModel", "is not a dimod.Sampler"),
    ("dimod:NoSuchClass", "has no attribute 'NoSuchClass'"),
    ("dimod:", "module:Class"),
])
def test_what_is_not_a_sampler_class_is_exit_2(capsys, name, said):
    code, _, err = run(capsys, "solve", SEED004, "--sampler", name)
    assert code == 2
    assert said in one_error(err)


def test_an_imported_sampler_runs_the_solve_path_under_its_name(capsys):
    code, out, err = run(capsys, "solve", SEED004, "--sampler", SA, "--reads", "20",
                         "--seed", "3", "--no-fallback", "--time-budget", "20")
    assert code == 0, err
    assert f"solved by {SA}" in out
    r = solve(parse_puzzle(SEED004), Config().with_overrides(sampler=SA, reads=5, seed=1))
    assert r.valid and r.sampler["name"] == SA
    assert r.sampler["params"]["num_reads"] == 5  # the config's on top of its own defaults


def test_the_registry_is_the_one_home_of_an_imported_spec():
    spec = get_spec(SA)
    assert spec is imported_spec(SA) and spec.offline and dict(spec.defaults) == {}
    assert type(get_sampler(SA)).__name__ == "SimulatedAnnealingSampler"
    with pytest.raises(ConfigError, match="nosuch_mod"):
        Config().with_overrides(sampler="nosuch_mod:Foo")


def test_a_config_file_may_name_an_imported_sampler(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[sampler]\nname = "{SA}"\n[sampler.params]\nnum_reads = 4\n')
    assert load_config(str(cfg)).sampler.name == SA
    cfg.write_text('[sampler]\nname = "nosuch_mod:Foo"\n')
    with pytest.raises(ConfigError, match="nosuch_mod"):
        load_config(str(cfg))


def test_bench_takes_per_sampler_params_of_dotted_modules(tmp_path, capsys):
    out = tmp_path / "b.csv"
    code, _, err = run(capsys, "bench", SEED004, "--sampler", f"sa,{SA}",
                       "--param", f"{SA}.num_reads=7", "--param", "sa.num_reads=3",
                       "--seed", "0", "-o", out, "--quiet")
    assert code == 0, err
    rows = {r["sampler"]: r for r in __import__("csv").DictReader(out.open())}
    assert rows[SA]["num_reads"] == "7" and rows["sa"]["num_reads"] == "3"


def test_sweep_takes_an_imported_sampler(tmp_path, capsys):
    out = tmp_path / "s.csv"
    code, _, err = run(capsys, "sweep", SEED004, "--sampler", SA, "--reads", "3",
                       "--grid", "num_sweeps=10,20", "--seed", "0", "-o", out, "--quiet")
    assert code == 0, err
    rows = list(__import__("csv").DictReader(out.open()))
    assert len(rows) == 2 and {r["sampler"] for r in rows} == {SA}


def test_openjij_solves_seed004(capsys):
    pytest.importorskip("openjij", reason="OpenJij comes with the peers extra")
    code, out, err = run(capsys, "solve", SEED004, "--sampler", "openjij:SASampler",
                         "--seed", "1")
    assert code == 0, err
    assert "VALID" in out and "openjij:SASampler" in out
    r = solve(parse_puzzle(SEED004), Config().with_overrides(sampler="openjij:SASampler",
                                                            seed=2))
    assert r.valid and "".join(map(str, r.grid)) == SEED004_SOLUTION


def test_openjij_takes_its_reads_though_its_parameters_do_not_list_them():
    openjij = pytest.importorskip("openjij", reason="OpenJij comes with the peers extra")
    assert "num_reads" not in openjij.SASampler().parameters
    assert {"num_reads", "seed", "num_sweeps"} <= accepted_params(openjij.SASampler())


# -- the dwave-examples formulation (benchmarks/dwave_examples.py) ------------------------------

@pytest.fixture
def dwave_examples(monkeypatch):
    monkeypatch.chdir(REPO)  # module:Class resolves as python -m does: from the root
    from benchmarks import dwave_examples

    return dwave_examples


def test_its_bqm_is_all_labels_with_the_clues_fixed(dwave_examples):
    puzzle = parse_puzzle(SEED004)
    bqm = dwave_examples.build_bqm(puzzle)
    clues = sum(1 for d in puzzle.givens if d)
    assert bqm.num_variables == 9 ** 3 - clues
    solution = [int(c) for c in SEED004_SOLUTION]
    ground = {(r, c, d): int(solution[9 * r + c] == d) for (r, c, d) in bqm.variables}
    assert bqm.energy(ground) == pytest.approx(0.0)
    broken = dict(ground)
    first = next(v for v in bqm.variables if ground[v] == 1)
    broken[first] = 0
    assert bqm.energy(broken) > 0


@pytest.mark.slow
def test_its_reads_are_decoded_against_the_reduced_model(dwave_examples, tmp_path, capsys):
    name = "benchmarks.dwave_examples:DwaveExamplesSampler"
    r = solve(parse_puzzle("1..." "..2." ".3.." "...4"),
              Config().with_overrides(sampler=name, reads=20, seed=0, fallback=None,
                                      route={"enabled": False}))
    assert r.valid and r.sampler["name"] == name
    out = tmp_path / "d.csv"
    code, _, err = run(capsys, "bench", SEED004, "--sampler", name, "--reads", "2",
                       "--seed", "0", "-o", out, "--quiet")
    assert code == 0, err
    (row,) = list(__import__("csv").DictReader(out.open()))
    assert row["num_reads"] == "2" and row["status"] == "ok"
    assert int(row["num_variables"]) < 300  # the reduced QUBO's: the one decoded against


def test_a_read_its_own_formulation_breaks_never_counts(dwave_examples, monkeypatch):
    """A read whose own energy is above 0 but whose projection onto the reduced QUBO would
    be valid (the error in a cell propagation fixed) comes back as all zeros."""
    import dimod
    import numpy as np

    from qsudoku.solving import build

    puzzle = parse_puzzle(SEED004)
    _, model, _ = build(puzzle)
    solution = [int(c) for c in SEED004_SOLUTION]
    fixed = next(i for i in range(81) if not puzzle.givens[i] and model.fixed[i])
    own = dwave_examples.build_bqm(puzzle)

    def wrong(self, bqm, **kw):  # the solution, but with the propagated cell's digit off
        sample = {(r, c, d): int(solution[9 * r + c] == d) for (r, c, d) in bqm.variables}
        r, c = divmod(fixed, 9)
        sample[(r, c, solution[fixed])] = 0
        return dimod.SampleSet.from_samples_bqm(sample, bqm)

    monkeypatch.setattr("dwave.samplers.SimulatedAnnealingSampler.sample", wrong)
    ss = dwave_examples.DwaveExamplesSampler().sample(model.bqm, puzzle=puzzle, num_reads=1)
    assert own.num_variables > model.num_variables
    assert not np.asarray(ss.record.sample).any() and ss.first.energy > 0


# -- the study (benchmarks/studies/hard9_tts.toml) at a reduced size ----------------------------

@pytest.mark.slow
def test_the_hard9_study_runs_every_sampler_at_a_reduced_size(tmp_path, capsys, monkeypatch):
    """``--first 1`` with one or two reads each: every sampler of the study gives its row
    (the peers only when the peers extra is installed), and the pooled summary has the
    table's columns."""
    import csv

    from qsudoku.commands.spec import read_spec

    pytest.importorskip("openjij", reason="the study's OpenJij peers come with the peers extra")
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("QSUDOKU_NO_SHARED", "1")
    spec = REPO / "benchmarks" / "studies" / "hard9_tts.toml"
    samplers = read_spec(str(spec))["options"]["sampler"].split(",")
    small = [f"{s}.num_reads=1" for s in samplers if s not in ("sat", "cpsat")]
    out = tmp_path / "results.csv"
    code, _, err = run(capsys, "bench", "--spec", spec, "--first", "1", "-o", out, "--quiet",
                       "--no-progress", *[w for p in small for w in ("--param", p)],
                       "--param", "decompose.time_limit=1")
    assert code == 0, err
    rows = list(csv.DictReader(out.open()))
    assert {r["sampler"] for r in rows} == set(samplers)
    assert len(rows) == 2 * len(samplers)
    summary = list(csv.DictReader((tmp_path / "results.summary.csv").open()))
    assert {s["set"] for s in summary} == {"all"} and len(summary) == len(samplers)
    for col in ("solved", "p_read", "p_read_low", "p_read_high", "tts99_median",
                "tts99_median_low", "tts99_median_high", "tts99_q90", "tts99_q90_low",
                "tts99_q90_high", "wall_median", "t_sample_median"):
        assert col in summary[0], col
    exact = {s["sampler"]: s for s in summary if s["sampler"] in ("sat", "cpsat")}
    assert [s["solved"] for s in exact.values()] == ["2", "2"]  # the references solve both
    assert (tmp_path / "results.provenance.json").is_file()
