"""The CLI front end: reproducible output for a seed, help and usage exit codes.

Bad puzzles and configs have their own files (test_files.py,
test_config.py, test_fuzz.py); this one checks what any run must guarantee.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from qsudoku import Config, parse_puzzle, solve
from qsudoku.cli import build_parser, main
from qsudoku.samplers import get_sampler, get_spec, names

from _cli import one_error, run
from _puzzles import BOX_GIVEN4, EASY4, FOUR_GIVENS4, SEED004, TWO_SOLUTIONS4
from _misc_cases import OTHER_FLOATS, SECONDS_OPTIONS, one_line, qsudoku

REPO = Path(__file__).resolve().parents[1]


def _without_timings(line: str) -> dict:
    d = json.loads(line)
    assert d.pop("timings")
    d.pop("backend_timing")
    d["info"].pop("problem_id", None)  # a fresh id per QPU (or mock) call
    d["info"].pop("embedding_cache_hit", None)  # the second run reuses the first's embedding
    return d


def _offline_samplers_to_reproduce() -> list[str]:
    """Offline samplers whose seeded output should be bit-identical.  Left out: tabu (it
    stops on a wall-clock timeout) and the route's samplers, swap-tabu and swap, whose reads
    stop at the first ground state in parallel threads: their answer is reproducible, their
    read counts are not (test_route_with_a_seed_gives_the_same_answer).  Read from the
    registry alone: building every sampler (the mock QPU's graph) at collection would cost
    every run of the fast loop seconds; the test skips one that takes no seed."""
    return [name for name in names()
            if get_spec(name).offline and name not in ("tabu", "swap")
            and "stall" not in get_spec(name).defaults]


def _seeded(name: str) -> None:
    """Skip the test unless sampler ``name`` can be built here and takes a ``seed``."""
    try:
        takes_seed = "seed" in get_sampler(name).parameters
    except Exception:  # an extra that is not installed: nothing to reproduce
        pytest.skip(f"{name}: cannot be built here")
    if not takes_seed:
        pytest.skip(f"{name}: takes no seed")


def test_same_seed_same_json_output(capsys):
    """``qsudoku solve ... --sampler sa --seed 7 --json`` twice: identical apart from timings."""
    runs = [run(capsys, "solve", SEED004, "--sampler", "sa", "--seed", "7", "--json", "--no-route")
            for _ in range(2)]
    assert runs[0][0] == runs[1][0]
    a, b = (_without_timings(r[1]) for r in runs)
    assert a == b and a["sampler"]["params"]["seed"] == 7 and a["num_reads"] > 0


def test_route_with_a_seed_gives_the_same_answer(capsys):
    """The default route stops on wall-clock time and at the first ground state (reads run
    in parallel threads), so its read counts may differ between runs; its answer may not."""
    runs = [json.loads(run(capsys, "solve", SEED004, "--seed", "7", "--json")[1])
            for _ in range(2)]
    keys = ("valid", "solution", "energy", "num_variables", "num_interactions", "sampler")
    assert [{k: r[k] for k in keys} for r in runs][0] == {k: runs[1][k] for k in keys}
    assert runs[0]["valid"] and runs[0]["solved_by"].startswith("aco (")


@pytest.mark.slow
@pytest.mark.parametrize("sampler", _offline_samplers_to_reproduce())
def test_every_seeded_offline_sampler_reproduces(capsys, sampler):
    _seeded(sampler)
    # One round: a time budget makes read counts machine-dependent.  A generous budget, so
    # that an exact backend's time limit (the budget left) never decides the outcome.
    argv = ["solve", SEED004, "--sampler", sampler, "--seed", "7", "--json", "--reads", "4",
            "--no-route", "--time-budget", "60"]
    (c1, o1, _), (c2, o2, _) = run(capsys, *argv), run(capsys, *argv)
    assert c1 == c2 and _without_timings(o1) == _without_timings(o2)


def test_same_seed_same_samples():
    p = parse_puzzle(SEED004)
    cfg = Config().with_overrides(sampler="sa", seed=7, reads=8, params={"num_sweeps": 50})
    r1, r2 = solve(p, cfg), solve(p, cfg)
    assert list(r1.sampleset.variables) == list(r2.sampleset.variables)
    assert np.array_equal(r1.sampleset.record.sample, r2.sampleset.record.sample)
    assert np.array_equal(r1.sampleset.record.energy, r2.sampleset.record.energy)
    r3 = solve(p, cfg.with_overrides(seed=8))
    assert not np.array_equal(r1.sampleset.record.sample, r3.sampleset.record.sample)


@pytest.mark.slow
def test_same_seed_same_output_across_processes():
    """Separate interpreters with different hash seeds print the same results."""
    outs = []
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        proc = subprocess.run([sys.executable, "-m", "qsudoku", "solve", SEED004, "--seed", "7",
                               "--sampler", "sa", "--json", "--reads", "10"], capture_output=True, text=True,
                              cwd=REPO, env=env, timeout=120)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr
        outs.append(_without_timings(proc.stdout))
    assert outs[0] == outs[1]


def test_help_and_version_exit_0(capsys):
    assert main(["--help"]) == 0 and "solve" in capsys.readouterr().out
    assert main(["--version"]) == 0 and "qsudoku" in capsys.readouterr().out


def test_every_subcommand_has_help(capsys):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert "solve" in sub.choices
    for name in sub.choices:
        assert main([name, "--help"]) == 0, name
        assert "usage: qsudoku " + name in capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["solve"], ["solve", "--reads"],
                                  ["--no-such-flag", "solve", SEED004]])
def test_usage_errors_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and "error:" in err and out == ""


def test_samplers_command_lists_the_registry(capsys):
    code, out, err = run(capsys, "samplers")
    assert code == 0 and all(name in out for name in ("sa", "tabu", "exact"))


def test_bad_input_exit_code_wins_over_invalid_result(tmp_path, capsys):
    """A run with an invalid result (1) and a bad line (2) exits 2: the worst of both."""
    path = tmp_path / "two.txt"
    path.write_text(SEED004 + "\n" + "x" * 81 + "\n")
    code, out, err = run(capsys, "solve", path, "--keep-going", "--json", "--sampler", "random",
                         "--reads", "1", "--seed", "0", "--no-route", "--no-fallback")
    assert code == 2 and json.loads(out)["valid"] is False and "two.txt:2:1" in err


def test_check_unique_flags_an_ambiguous_puzzle_with_a_second_solution(capsys):
    code, out, _ = run(capsys, "solve", FOUR_GIVENS4, "--check-unique")
    assert code == 0 and "unique: yes (exact count)" in out
    code, out, _ = run(capsys, "solve", BOX_GIVEN4, "--check-unique",
                       "--json", "--sampler", "csp")
    d = json.loads(out)
    assert code == 1 and d["valid"] is True
    assert d["unique"] is False and d["solutions_found"] == "at least 2 solutions"
    second = d["second_solution"]
    assert second != d["solution"] and parse_puzzle(second).is_solution(
        [int(c) for c in second])


def test_check_unique_that_ran_out_of_time_is_undecided_not_false():
    from qsudoku.commands.solve import _count_fields, _count_text
    from qsudoku.exact.count import SolutionCount

    p = parse_puzzle(FOUR_GIVENS4)
    stopped = SolutionCount(1, True, complete=False, solutions=[[0] * 16])
    assert _count_fields(p, stopped)["unique"] is None
    assert "not decided" in _count_text(p, stopped)
    two = SolutionCount(2, True, complete=False, solutions=[[0] * 16, [1] * 16])
    assert _count_fields(p, two)["unique"] is False


# -- one line per usage error, and the small things a run says -----------------------------
@pytest.mark.parametrize("argv,piece", [
    (["solve", SEED004, "--seed", "abc"], "argument --seed: invalid int value: 'abc'"),
    (["qubo", SEED004, "-o", "x.json", "--index", "two"], "argument --index: invalid int"),
    (["solve", SEED004, "--variant", "y"], "argument --variant: invalid choice: 'y'"),
])
def test_a_bad_option_value_is_one_line(capsys, argv, piece):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"qsudoku {argv[0]}: error: ") and piece in err


def test_solve_index_picks_one_puzzle_like_qubo(tmp_path, capsys):
    path = tmp_path / "two.txt"
    path.write_text("1" + "." * 80 + "\n" + SEED004 + "\n")
    code, out, err = run(capsys, "solve", path, "--index", "2", "--json")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 1 and json.loads(lines[0])["puzzle"] == SEED004
    for command in (["solve"], ["qubo", "-o", str(tmp_path / "m.json")]):
        for k, message in (("3", "--index 3: the input has only 2 puzzles"),
                           ("0", "--index 0 must be >= 1")):
            code, out, err = run(capsys, command[0], path, *command[1:], "--index", k)
            assert code == 2 and err == f"qsudoku: error: {message}\n"


def test_unknown_rule_lists_none(capsys):
    code, out, err = run(capsys, "solve", SEED004, "--rules", "bogus")
    assert code == 2 and "unknown propagation rule 'bogus'" in err and "or none" in err


def test_config_params_dropped_by_sampler_are_named(tmp_path, capsys):
    cfg = tmp_path / "sa.toml"
    cfg.write_text('[sampler]\nname = "sa"\n[sampler.params]\nnum_sweeps = 50\nseed = 3\n')
    code, out, err = run(capsys, "solve", SEED004, "--config", cfg, "--sampler", "random",
                         "--time-budget", "0.05")
    notes = [line for line in err.splitlines() if "replaces the config's sampler" in line]
    assert code == 0 and len(notes) == 1 and "sampler.params.num_sweeps is not used" in notes[0]
    assert "seed" not in notes[0]
    run(capsys, "solve", SEED004, "--config", cfg, "--sampler", "sa", "--time-budget", "0.05")
    assert "replaces" not in capsys.readouterr().err


@pytest.mark.slow
def test_random_info_counts_every_read(capsys):
    # random never solves SEED004, so its rounds (100 reads each, a few ms) go on to the end
    # of the budget: 1 s holds dozens of them even under load (0.05 s once held only one),
    # and the info's num_reads must be every round's reads, not the best round's 100.
    code, out, err = run(capsys, "solve", SEED004, "--sampler", "random", "--seed", "1",
                         "--time-budget", "1", "--no-fallback", "--json")
    d = json.loads(out)
    assert code == 1 and not d["valid"], err
    assert d["rounds"] > 1 and d["info"]["num_reads"] == d["num_reads"] == 100 * d["rounds"]


def test_fewer_reads_note_reads_well(capsys):
    code, out, err = run(capsys, "solve", SEED004, "--sampler", "aco", "--reads", "50",
                         "--seed", "1", "--param", "stop_at_ground=true", "--json")
    notes = [n for n in json.loads(out)["notes"] if "reads asked" in n]
    assert code == 0 and notes and "it stops at its first ground state" in notes[0]
    assert "stop at stop" not in notes[0]


def test_bench_existing_output_names_the_ways_on(tmp_path, capsys):
    out_csv = tmp_path / "r.csv"
    out_csv.write_text("key\n")
    code, out, err = run(capsys, "bench", SEED004, "--sampler", "random", "-o", out_csv)
    assert code == 2 and "--overwrite" in err and "--resume" in err


@pytest.mark.slow
def test_show_hist_says_where_it_wrote_and_counts_reads(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from qsudoku.plots import grid

    titles = []
    real = grid.energy_histogram
    monkeypatch.setattr(grid, "energy_histogram",
                        lambda *a, **k: titles.append(k["title"]) or real(*a, **k))
    hist = tmp_path / "h.svg"
    code, out, err = run(capsys, "show", SEED004, "--solve", "--sampler", "sa", "--reads", "1",
                         "--no-route", "--no-fallback", "--seed", "1", "-o",
                         tmp_path / "g.svg", "--hist", hist)
    assert code in (0, 1) and f"wrote {hist}" in err and hist.exists()
    assert titles == ["<argument>:1: 1 read"]


# One vocabulary: one flag name per meaning in every subcommand, old spellings with a note

OUTPUT_COMMANDS = ("bench", "sweep", "show", "qubo", "export", "generate")
#: command -> (old spelling, new option strings) still accepted for this release
OLD_SPELLINGS = [("bench", "--out", "-o/--output"), ("sweep", "--out", "-o/--output"),
                 ("show", "--out", "-o/--output"), ("bench", "--limit", "--first"),
                 ("sweep", "--limit", "--first"), ("count", "--limit", "--max-solutions"),
                 ("count", "--time-limit", "--time-budget"), ("embed", "--timeout", "--time-budget"),
                 ("generate", "--format", "--to")]


def _visible_options(command: str) -> dict:
    """Option string -> action of what ``qsudoku COMMAND --help`` shows."""
    import argparse

    sub = build_parser(command)._subparsers._group_actions[0].choices[command]
    return {s: a for a in sub._actions if a.help is not argparse.SUPPRESS for s in a.option_strings}


@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
def test_every_command_that_writes_a_file_takes_dash_o_and_output(command):
    options = _visible_options(command)
    assert options["-o"] is options["--output"], command


def test_one_flag_name_per_meaning_in_every_subcommand():
    """The seconds a command may spend on a puzzle are --time-budget, the output file
    -o/--output, the first N puzzles --first; --format is only the input format."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for command in sub.choices:
        options = _visible_options(command)
        assert not {"--out", "--limit", "--time-limit", "--timeout"} & set(options), command
        if "--format" in options:
            assert options["--format"].choices == ["auto", "line", "grid", "tuples"], command
    for command in ("solve", "bench", "sweep", "show", "count", "embed"):
        assert "--time-budget" in _visible_options(command), command


@pytest.mark.parametrize("command, old, new", OLD_SPELLINGS)
def test_an_old_spelling_does_what_the_new_name_does_with_a_one_line_note(capsys, command,
                                                                          old, new):
    value = {"--format": "tsv", "--out": "r.png"}.get(old, "3")
    args = [] if command == "generate" else ["P"]
    args += ["-o", "x.png"] if command == "show" and old != "--out" else []

    def parse(flag):
        return vars(build_parser(command).parse_args([command, *args, flag, value]))

    assert parse(old) == parse(new.split("/")[-1])
    err = capsys.readouterr().err
    assert err == f"qsudoku: note: {old} is deprecated; use {new}\n"  # once: for the old name
    assert main([command, "--help"]) == 0
    assert f"{old} " not in capsys.readouterr().out  # hidden from --help


def test_old_spellings_print_the_note_on_stderr_and_keep_json_clean(capsys):
    new = run(capsys, "count", TWO_SOLUTIONS4, "--max-solutions", "3", "--time-budget", "5",
              "--json")
    old = run(capsys, "count", TWO_SOLUTIONS4, "--limit", "3", "--time-limit", "5", "--json")
    assert new[0] == old[0] == 1
    records = [json.loads(out) for _, out, _ in (new, old)]  # stdout is JSON lines only
    for r in records:
        r.pop("seconds")
    assert records[0] == records[1] and records[0]["count"] == 2
    assert new[2] == ""
    assert old[2].splitlines() == ["qsudoku: note: --limit is deprecated; use --max-solutions",
                                   "qsudoku: note: --time-limit is deprecated; use --time-budget"]


def test_generate_to_is_the_output_format(capsys):
    new = run(capsys, "generate", "--size", "4", "--seed", "1", "--to", "tsv", "--count", "2")
    old = run(capsys, "generate", "--size", "4", "--seed", "1", "--format", "tsv", "--count", "2")
    assert new[0] == old[0] == 0 and new[1] == old[1] and new[1].count("\t") == 6
    assert old[2] == "qsudoku: note: --format is deprecated; use --to\n"
    code, _, err = run(capsys, "generate", "--size", "4", "--to", "tsv", "--format", "line")
    assert code == 2 and "--format: not allowed with argument --to" in err


@pytest.mark.slow
def test_bench_and_sweep_write_dash_o_and_still_take_out(tmp_path, capsys):
    fast = ["--sampler", "random", "--reads", "1", "--rules", "none", "--quiet"]
    for command, extra in (("bench", []), ("sweep", ["--grid", "cell=1"])):
        for flag in ("-o", "--output", "--out"):
            out = tmp_path / f"{command}{flag.strip('-')}.csv"
            code, _, err = run(capsys, command, EASY4, EASY4, *fast, *extra, "--first", "1",
                               flag, out)
            assert code == 0 and out.exists(), (command, flag, err)
            assert (flag == "--out") == ("--out is deprecated; use -o/--output" in err)
            assert len(out.read_text().splitlines()) == 2  # a header, the first puzzle


@pytest.mark.slow
def test_show_output_is_required_under_either_name(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    code, _, err = run(capsys, "show", SEED004)
    assert code == 2 and "-o/--output is required" in err
    for flag in ("-o", "--output", "--out"):
        out = tmp_path / f"g{flag.strip('-')}.svg"
        code, _, err = run(capsys, "show", SEED004, flag, out)
        assert code == 0 and out.exists(), err


# -- secrets stay masked in our own messages --------------------------------------------------
TOK = "DEV-" + "0123abcd" * 5  # the shape of a D-Wave token
P4 = "1......2........"


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["solve", P4, "--param", f"seed={TOK}"],
    ["solve", P4, "--sampler", TOK],
    ["solve", P4, "--rules", TOK],
    ["solve", P4, "--weight", f"cell={TOK}"],
    ["solve", P4, "--seed", TOK],  # argparse's own usage error
    ["solve", TOK + ".txt"],
    ["bench", P4, "--sampler", "sa", "-o", "{tmp}/r.csv", "--param", f"seed={TOK}"],
    ["sweep", P4, "--sampler", "sa", "-o", "{tmp}/s.csv", "--grid", f"seed={TOK}"],
    ["bench", P4, "--sampler", "sa", "-o", "{tmp}/r.csv", "--scheduler",
     f"tcp://u:{TOK}@127.0.0.1:1"],
    ["bench", P4, "--sampler", "sa", "-o", "{tmp}/r.csv", "--scheduler",
     "tcp://u:hunter2@127.0.0.1:1"],
])
def test_a_token_in_an_argument_error_is_masked(capsys, tmp_path, argv):
    code, out, err = run(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert code == 2 and "<token>" in err, err
    assert TOK not in out + err and "hunter2" not in out + err and "0123abcd0123" not in err
    for f in tmp_path.iterdir():
        assert TOK not in f.read_text(errors="replace") and "hunter2" not in f.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("where", ["env", "config"])
def test_a_scheduler_password_from_the_environment_or_config_is_masked(capsys, tmp_path,
                                                                      monkeypatch, where):
    address = f"tcp://user:{TOK}@127.0.0.1:1"
    argv = ["bench", P4, "--sampler", "sa", "-o", tmp_path / "r.csv"]
    if where == "env":
        monkeypatch.setenv("QSUDOKU_SCHEDULER", address)
    else:
        (tmp_path / "c.toml").write_text(f'[cluster]\nscheduler = "{address}"\n')
        argv += ["--config", tmp_path / "c.toml"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and TOK not in out + err
    assert one_error(err) == ("qsudoku: error: scheduler address 'tcp://<token>@127.0.0.1:1' "
                              "holds a user and password, which no Dask address does (a "
                              "secured cluster uses tls:// with certificates)")


def test_masking_ends_with_the_command(capsys):
    import sys

    before = sys.stderr
    run(capsys, "solve", P4, "--sampler", TOK)
    assert sys.stderr is before


@pytest.mark.parametrize("value", ["nan", "inf", "-0.1", "1.5"])
def test_a_fraction_out_of_range_is_one_line(value, capsys):
    from qsudoku.cli import main

    assert main(["generate", "--size", "4", "--fraction", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--fraction" in err[0] and "between 0 and 1" in err[0]


def test_every_seconds_option_is_listed():
    """The table below covers every option of seconds (a float) of every command."""
    from qsudoku.cli import build_parser
    from qsudoku.commands.common import SecondsAction, SecondsListAction

    parser = build_parser()
    found = set()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            if (name, action.dest) not in OTHER_FLOATS:  # seconds go through SecondsAction
                assert action.type is not float, (name, action.dest)
            if isinstance(action, (SecondsAction, SecondsListAction)):
                found.add((name, action.option_strings[0]))
    assert found == set(SECONDS_OPTIONS), found


@pytest.mark.parametrize("command, flag", SECONDS_OPTIONS)
@pytest.mark.parametrize("value", ["inf", "nan", "1e999", "0", "abc"])
def test_a_limit_must_be_finite(capsys, tmp_path, command, flag, value):
    from qsudoku.cli import main

    (tmp_path / "e.txt").write_text(EASY4 + "\n")
    code = main([command, str(tmp_path / "e.txt"), f"{flag}={value}"])
    err = capsys.readouterr().err
    assert code == 2
    line = one_line(err)
    assert flag in line and ("finite number of seconds" in line or "not a number" in line)


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["solve", "--help"]])
def test_help_on_a_closed_stdout_is_exit_4(tmp_path, argv):
    out = qsudoku(tmp_path, *argv, preexec_fn=lambda: os.close(1))
    assert out.returncode == 4
    assert "standard output" in one_line(out.stderr) and "closed" in out.stderr


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["solve", "--help"]])
def test_help_into_a_pipe_whose_reader_left_is_a_quiet_stop(tmp_path, argv):
    read, write = os.pipe()
    os.close(read)
    try:
        out = qsudoku(tmp_path, *argv, stdout=write, stderr=subprocess.PIPE, capture_output=False)
    finally:
        os.close(write)
    assert out.returncode == 0 and out.stderr == ""  # as `qsudoku solve F | head -1`


@pytest.mark.slow
def test_solve_with_stdout_and_stderr_closed_is_exit_4(tmp_path):
    (tmp_path / "e.txt").write_text(EASY4 + "\n")

    def close_both():
        os.close(1)
        os.close(2)

    out = qsudoku(tmp_path, "solve", "e.txt", preexec_fn=close_both, capture_output=False)
    assert out.returncode == 4
