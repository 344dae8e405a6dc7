"""Bad configs and parameters: a ConfigError naming the key (and the file), exit 2.

Every case goes through the CLI in-process; a few check :class:`Config` directly.
"""

from __future__ import annotations

import pytest

from qsudoku.config import DEFAULT_CONFIG_PATH, Config, load_config
from qsudoku.errors import ConfigError
from qsudoku.samplers.registry import check_values

from _cli import one_error, run
from _puzzles import EASY4, ONE_GIVEN4
from _misc_cases import _solve_line, one_line, qsudoku
import os
from _input_cases import write
from _puzzles import EASY4_SET

TOKEN = "DEV-abc123-not-a-real-token"


CONFIG_CASES = [
    # (id, TOML text, pieces of the error line besides the file name)
    ("unknown_top", "[samplr]\nname = 'sa'\n", ["unknown key 'samplr'"]),
    ("unknown_nested", "[sampler]\nnmae = 'sa'\n", ["unknown key 'sampler.nmae'", "known keys"]),
    ("unknown_weight", "[qubo.weights]\ncel = 1.0\n", ["unknown key 'qubo.weights.cel'"]),
    ("unknown_rule_key", "[propagate]\nrule = []\n", ["unknown key 'propagate.rule'"]),
    ("section_not_table", "sampler = 3\n", ["sampler = 3 must be a table"]),
    ("weights_not_table", "[qubo]\nweights = 3\n", ["qubo.weights = 3 must be a table"]),
    ("params_not_table", "[sampler]\nparams = [1]\n", ["sampler.params must be a table"]),
    ("name_type", "[sampler]\nname = 3\n", ["sampler.name = 3 must be a string"]),
    ("fallback_type", "[sampler]\nfallback = true\n", ["sampler.fallback = True"]),
    ("unknown_sampler", "[sampler]\nname = 'annealer9000'\n",
     ["sampler.name = 'annealer9000' is not a registered sampler", "choose from"]),
    ("unknown_fallback", "[sampler]\nfallback = 'nope'\n", ["sampler.fallback = 'nope'"]),
    ("rules_string", "[propagate]\nrules = 'naked_single'\n", ["propagate.rules must be a list"]),
    ("rules_int", "[propagate]\nrules = 0\n", ["propagate.rules must be a list"]),
    ("rules_ints", "[propagate]\nrules = [1, 2]\n", ["propagate.rules must be a list"]),
    ("unknown_rule", "[propagate]\nrules = ['naked_quad']\n", ["'naked_quad'", "choose from"]),
    ("weight_string", "[qubo.weights]\ncell = 'x'\n", ["weight cell = 'x'"]),
    ("weight_negative", "[qubo.weights]\nbox = -1\n", ["weight box = -1"]),
    ("weight_zero", "[qubo.weights]\nrow = 0\n", ["weight row = 0"]),
    ("weight_nan", "[qubo.weights]\nunit = nan\n", ["weight row = nan"]),
    ("weight_inf", "[qubo.weights]\nextra = inf\n", ["weight extra = inf"]),
    ("negative_reads", "[sampler.params]\nnum_reads = -1\n", ["num_reads = -1", ">= 1"]),
    ("zero_reads", "[sampler.params]\nnum_reads = 0\n", ["num_reads = 0"]),
    ("zero_sweeps", "[sampler.params]\nnum_sweeps = 0\n", ["num_sweeps = 0"]),
    ("float_reads", "[sampler.params]\nnum_reads = 2.5\n", ["num_reads = 2.5"]),
    ("bool_reads", "[sampler.params]\nnum_reads = true\n", ["num_reads = True"]),
    ("text_reads", "[sampler.params]\nnum_reads = 'many'\n", ["num_reads = 'many'"]),
    ("huge_reads", "[sampler.params]\nnum_reads = 100000000000\n", ["above the limit"]),
    ("negative_seed", "[sampler.params]\nseed = -7\n", ["seed = -7", ">= 0"]),
    ("negative_timeout", "[sampler]\nname = 'tabu'\n[sampler.params]\ntimeout = -5\n",
     ["timeout = -5"]),
    ("name_param_int", "[sampler.params]\nproposal_acceptance_criteria = 0\n",
     ["proposal_acceptance_criteria = 0 must be a name"]),
    ("unknown_exact_fallback", "[route]\nexact_fallback = 'sat, nope'\n",
     ["route.exact_fallback = 'nope' is not a registered sampler"]),
    ("fallback_limit_negative", "[route]\nfallback_time_limit = -1\n",
     ["route.fallback_time_limit = -1"]),
    ("fallback_limit_text", "[route]\nfallback_time_limit = 'soon'\n",
     ["route.fallback_time_limit = 'soon'"]),
    ("bad_toml", "[sampler\nname = 'sa'\n", ["not valid TOML"]),
    ("duplicate_key", "[sampler]\nname = 'sa'\nname = 'tabu'\n", ["not valid TOML"]),
]


@pytest.mark.parametrize("text,pieces", [c[1:] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES])
@pytest.mark.parametrize("puzzle", [EASY4, ONE_GIVEN4], ids=["propagation_only", "sampled"])
def test_bad_config_file_names_key_and_file_exit_2(tmp_path, capsys, text, pieces, puzzle):
    """Checked up front: also when propagation solves the puzzle and nothing is sampled."""
    path = tmp_path / "bad.toml"
    path.write_text(text)
    code, out, err = run(capsys, "solve", puzzle, "--config", path)
    line = one_error(err)
    assert code == 2 and out == ""
    assert str(path) in line, line
    for piece in pieces:
        assert piece in line, (piece, line)


def test_binary_and_missing_config_files(tmp_path, capsys):
    junk = tmp_path / "junk.toml"
    junk.write_bytes(bytes(range(256)))
    for path, piece in [(junk, "not valid TOML"), (tmp_path / "none.toml", "config file not found"),
                        (tmp_path, "a directory, not a regular file")]:
        code, out, err = run(capsys, "solve", EASY4, "--config", path)
        line = one_error(err)
        assert code == 2 and piece in line and str(path) in line


def test_parameter_the_sampler_does_not_accept(tmp_path, capsys):
    path = tmp_path / "extra.toml"
    path.write_text("[sampler]\nname = 'sa'\n[sampler.params]\nnum_sweep = 10\n")
    code, out, err = run(capsys, "solve", ONE_GIVEN4, "--config", path)
    line = one_error(err)
    assert code == 2 and "does not accept parameter(s) num_sweep" in line
    assert f"(in {path})" in line and "num_sweeps" in line  # lists what it does accept


def test_sampler_option_the_constructor_does_not_accept(tmp_path, capsys):
    path = tmp_path / "opt.toml"
    path.write_text("[sampler.options]\nturbo = true\n")
    code, out, err = run(capsys, "solve", ONE_GIVEN4, "--config", path)
    assert code == 2 and "bad option" in one_error(err) and "turbo" in err


def test_credentials_in_a_config_are_refused_and_not_echoed(tmp_path, capsys):
    path = tmp_path / "secret.toml"
    path.write_text(f"[sampler.options]\ntoken = '{TOKEN}'\n")
    code, out, err = run(capsys, "solve", EASY4, "--config", path)
    line = one_error(err)
    assert code == 2 and "sampler.options.token" in line and "DWAVE_API_TOKEN" in line
    assert TOKEN not in out + err


FLAG_CASES = [
    (["--reads", "-1"], ["num_reads = -1"]),
    (["--reads", "0"], ["num_reads = 0"]),
    (["--reads", "99999999999"], ["above the limit"]),
    (["--seed", "-1"], ["seed = -1"]),
    (["--param", "num_sweeps=0"], ["num_sweeps = 0"]),
    (["--param", "num_reads=1e999"], ["num_reads = inf"]),
    (["--param", "garbage"], ["--param 'garbage' is not of the form KEY=VALUE"]),
    (["--param", "=3"], ["--param '=3'"]),
    (["--weight", "cell=0"], ["weight cell = 0"]),
    (["--weight", "cell=x"], ["weight cell = 'x'"]),
    (["--weight", "colour=1"], ["unknown weight", "colour"]),
    (["--weight", "cell"], ["--weight 'cell' is not of the form KEY=VALUE"]),
    (["--rules", "naked_quad"], ["'naked_quad'"]),
    (["--sampler", "nope"], ["unknown sampler 'nope'"]),
    (["--box", "0x3"], ["box shape '0x3' must have positive sides"]),
    (["--box", "3by3"], ["box shape '3by3'"]),
    (["--box", "3x3"], ["boxes of 3x3 do not tile a 4x4 grid"]),
    (["--digits", "Z-A"], ["digits range Z-A is reversed"]),
    (["--digits", "1123"], ["repeat a symbol"]),
    (["--digits", "0-9A-F"], ["have 16 symbols, a 4x4 grid needs 4"]),
    (["--size", "0"], ["grid size 0 is not supported"]),
    (["--size", "-3"], ["grid size -3"]),
    (["--regions", "abc"], ["region map has 3 cells"]),
    (["--regions", "a" * 16], ["1 regions, a 4x4 jigsaw needs 4"]),
]


@pytest.mark.parametrize("flags,pieces", FLAG_CASES, ids=[" ".join(f[0]) for f in FLAG_CASES])
def test_bad_flag_is_one_error_line_exit_2(capsys, flags, pieces):
    code, out, err = run(capsys, "solve", EASY4, *flags)
    line = one_error(err)
    assert code == 2 and out == ""
    for piece in pieces:
        assert piece in line, (piece, line)


def test_unknown_parameter_flag_when_sampling(capsys):
    code, out, err = run(capsys, "solve", ONE_GIVEN4, "--param", "num_sweep=10")
    assert code == 2 and "does not accept parameter(s) num_sweep" in one_error(err)


@pytest.mark.parametrize("flags", [["--reads", "x"], ["--seed", "1.5"], ["--variant", "y"],
                                   ["--format", "xml"], ["--size", "four"]])
def test_argparse_type_errors_are_exit_2(capsys, flags):
    code, out, err = run(capsys, "solve", EASY4, *flags)
    assert code == 2 and "error: argument" in err


def test_flag_overrides_a_good_config(tmp_path, capsys):
    path = tmp_path / "ok.toml"
    path.write_text("[sampler.params]\nnum_reads = 5\nnum_sweeps = 20\n")
    code, out, err = run(capsys, "solve", ONE_GIVEN4, "--config", path, "--reads", "-2")
    assert code == 2 and "num_reads = -2" in one_error(err)


def test_a_huge_or_endless_config_is_refused_after_its_cap_exit_2(tmp_path, capsys, monkeypatch):
    import os

    import qsudoku.config.files as config_files

    monkeypatch.setattr(config_files, "MAX_CONFIG_BYTES", 64)
    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * 70 + "\n")  # valid TOML, one byte per character
    code, out, err = run(capsys, "solve", EASY4, "--config", path)
    assert code == 2 and out == "" and f"{path}: larger than 64 bytes" in one_error(err)
    path.write_text("# " + "x" * 60 + "\n")  # within the cap: read as usual
    assert load_config(str(path)) == Config()
    fifo = tmp_path / "endless.toml"  # a FIFO would block: refused before any read
    os.mkfifo(fifo)
    code, out, err = run(capsys, "solve", EASY4, "--config", fifo)
    assert code == 2 and f"{fifo}: a FIFO, not a regular file" in one_error(err)


# -- Config directly ---------------------------------------------------------------------
def test_default_toml_is_the_builtin_default():
    from qsudoku.samplers import default_params

    toml, builtin = load_config(DEFAULT_CONFIG_PATH), Config()
    assert (toml.propagate, toml.qubo, toml.sampler, toml.route) == (
        builtin.propagate, builtin.qubo, builtin.sampler, builtin.route)
    assert toml.sampler.name == "aco" and toml.route.enabled and not toml.sampler.params
    assert default_params("swap")


def test_unit_shorthand_and_explicit_kind():
    cfg = Config.from_dict({"qubo": {"weights": {"unit": 2.0, "box": 3.0}}})
    w = cfg.qubo.weights
    assert (w.cell, w.row, w.column, w.box, w.extra) == (1.0, 2.0, 2.0, 3.0, 2.0)


def test_with_overrides_checks_values_and_drops_other_samplers_params():
    cfg = Config.from_dict({"sampler": {"name": "sa", "params": {"num_sweeps": 20}}})
    assert dict(cfg.with_overrides(reads=3, seed=1).sampler.params) == {
        "num_sweeps": 20, "num_reads": 3, "seed": 1}
    assert dict(cfg.with_overrides(sampler="tabu").sampler.params) == {}
    with pytest.raises(ConfigError, match="num_reads = 0"):
        cfg.with_overrides(reads=0)
    with pytest.raises(ConfigError, match="unknown weight"):
        cfg.with_overrides(weights={"colour": 1.0})


def test_the_sampler_table_holds_values_and_the_readers_check_them():
    """``SamplerConfig`` only holds its values; where a configuration is read (a file's
    table, an override) and where the plan is made, they are checked, with the same
    message."""
    from qsudoku.config import SamplerConfig
    from qsudoku.solving.plan import make_plan

    bad = SamplerConfig("sa", params={"num_reads": 0})  # no error: a table of values
    message = "sa: num_reads = 0 must be an integer in 1..10000000"
    with pytest.raises(ConfigError) as e:
        make_plan(Config(sampler=bad))
    assert str(e.value) == message
    with pytest.raises(ConfigError) as e:
        bad.checked()
    assert str(e.value) == message
    with pytest.raises(ConfigError) as e:
        Config.from_dict({"sampler": {"name": "sa", "params": {"num_reads": 0}}}, "my.toml")
    assert str(e.value) == f"my.toml: {message}"
    with pytest.raises(ConfigError, match=r"sampler\.options\.x = nan"):
        Config().with_overrides(options={"x": float("nan")})


@pytest.mark.parametrize("params,ok", [
    ({"num_reads": 1, "num_sweeps": 1, "seed": 0}, True),
    ({"num_restarts": 0}, True),  # tabu: a plain tabu search
    ({"chain_strength": lambda *a: 1.0}, True),  # dwave-system accepts a callable
    ({"time_limit": 0.5, "annealing_time": 20}, True),
    ({"time_limit": 0}, False),
    ({"time_limit": float("nan")}, False),
    ({"annealing_time": float("inf")}, False),
    ({"num_reads": 10 ** 7 + 1}, False),
    ({"seed": True}, False),
    ({"beta_schedule_type": 3}, False),
])
def test_check_values(params, ok):
    if ok:
        check_values(params)
    else:
        with pytest.raises(ConfigError, match=next(iter(params))):
            check_values(params, "cfg.toml")


def test_config_error_from_dict_without_a_file_has_no_empty_prefix():
    with pytest.raises(ConfigError) as e:
        Config.from_dict({"sampler": {"name": 3}})
    assert str(e.value) == "sampler.name = 3 must be a string"


@pytest.mark.slow
def test_a_config_that_sets_rules_is_the_rules_used(tmp_path):
    """``[propagate] rules = []`` alone gives a 4x4 puzzle's full model: the sampler runs and
    nothing is solved by propagation (the finishing rules go with the default rules only,
    as ``--rules`` on the command line); rules given with ``finish_rules`` keep both."""
    from qsudoku import solve
    from qsudoku.io import parse_puzzle
    from qsudoku.model.propagate import propagate
    from qsudoku.model.qubo import build_model

    puzzle = parse_puzzle("....4.....2..34.")  # unique; singles alone solve it
    path = tmp_path / "bare.toml"
    path.write_text("[propagate]\nrules = []\n")
    cfg = load_config(str(path))
    assert cfg.propagate.rules == () and cfg.propagate.finish_rules == ()
    r = solve(puzzle, cfg.with_overrides(seed=1))
    assert r.valid and r.solved_by.startswith("aco") and r.rounds >= 1
    full = build_model(propagate(puzzle, rules=()))  # only the givens eliminate
    assert r.num_variables == full.num_variables > 2 * puzzle.givens.count(0)
    assert solve(puzzle, Config()).solved_by == "propagation"  # the defaults finish it
    both = tmp_path / "both.toml"
    both.write_text('[propagate]\nrules = []\nfinish_rules = ["naked_single"]\n')
    assert load_config(str(both)).propagate.finish_rules == ("naked_single",)


@pytest.mark.parametrize("flag", ["bogus=1", "Cell=1"])
def test_an_unknown_weight_lists_the_config_keys(capsys, tmp_path, flag):
    code, out = _solve_line(capsys, tmp_path, "--weight", flag)
    line = one_line(out.err)
    assert code == 2 and "unknown weight" in line
    assert "known keys: cell, unit, row, column, box, extra" in line
    assert "__init__" not in line


def test_weight_unit_means_what_it_means_in_a_config_file(tmp_path):
    import qsudoku
    from qsudoku.config import load_config

    (tmp_path / "c.toml").write_text("[qubo.weights]\nunit = 2.0\nbox = 3.0\n")
    from_file = load_config(str(tmp_path / "c.toml")).qubo.weights
    from_flag = qsudoku.Config().with_overrides(weights={"unit": 2.0, "box": 3.0}).qubo.weights
    assert from_file == from_flag and (from_flag.row, from_flag.box, from_flag.cell) == (2.0, 3.0, 1.0)


def test_weight_unit_on_the_command_line(capsys, tmp_path):
    code, out = _solve_line(capsys, tmp_path, "--weight", "unit=2", "--json")
    # the default sampler reads the one-hot groups, not the weights: one note says so
    assert code == 0 and out.err.count("\n") == 1
    assert out.err.startswith("qsudoku: note: the penalty weights row=2, column=2, box=2, "
                              "extra=2 do not change what aco does")


def test_a_config_with_a_byte_order_mark_is_read(capsys, tmp_path):
    (tmp_path / "c.toml").write_bytes(b"\xef\xbb\xbf[sampler]\nname = \"sa\"\n")
    code, out = _solve_line(capsys, tmp_path, "--config", str(tmp_path / "c.toml"), "--json")
    assert code == 0 and out.err == ""


def test_config_fifo_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "c.toml"
    os.mkfifo(fifo)
    code, out, err = run(capsys, "solve", EASY4_SET[0], "--config", fifo)
    assert code == 2 and one_error(err).endswith(f"{fifo}: a FIFO, not a regular file: a "
                                                 "config must be a file")


@pytest.mark.parametrize("text", ["a = " + "[" * 5000 + "]" * 5000,
                                  "a = " + "{b=" * 3000 + "1" + "}" * 3000,
                                  "[" + ".".join(["t"] * 3000) + "]"])
def test_config_deeply_nested_is_one_line_exit_2(tmp_path, capsys, text):
    path = write(tmp_path, "deep.toml", text + "\n")
    code, out, err = run(capsys, "solve", EASY4_SET[0], "--config", path)
    assert code == 2 and one_error(err).endswith(f"{path}: nested too deeply to read (a config "
                                                 "is a few tables deep)")
