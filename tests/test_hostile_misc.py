"""Hostile input that must end in one line and a documented exit code (issue 30, items 3-6).

Secrets given to D-Wave's client never show in its trace; a closed stdin or stdout,
infinite limits, tampered resume numbers and foreign samplers are errors, never an
internal error; a time budget bounds the first round; ``--weight``, sweep axes,
byte-order marks and ``--digits`` follow the config file's grammar.  Subprocess cases
carry a timeout, so a regression fails instead of hanging.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SEED004 = "2.513...4....48........7.2..385...92....9.7........45.86.97....95.....31..4......"


def qsudoku(tmp_path, *argv, env_extra=None, timeout=60, **kwargs):
    """``python -m qsudoku ARGV`` in ``tmp_path`` with a private HOME -> CompletedProcess."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DWAVE_")}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), **(env_extra or {}))
    kwargs.setdefault("capture_output", True)
    return subprocess.run([sys.executable, "-m", "qsudoku", *map(str, argv)], cwd=tmp_path,
                          env=env, text=True, timeout=timeout, **kwargs)


def one_line(err: str) -> str:
    """The single ``qsudoku: error:`` line of ``err`` (fails if there is more)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qsudoku: error: "), err
    return lines[0]


# -- 3. secrets ---------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["option", "config"])
def test_client_option_secrets_never_reach_the_trace(tmp_path, where):
    pytest.importorskip("dwave.system")
    (tmp_path / "p.txt").write_text(SEED004 + "\n")
    options = {"headers": '"X-Secret: HDRVAL77"', "proxy": '"http://bob:PRXPASS55@127.0.0.1:9"'}
    if where == "option":
        argv = [f"--option={k}={v}" for k, v in options.items()]
    else:
        (tmp_path / "c.toml").write_text("[sampler.options]\n" + "".join(
            f"{k} = {v}\n" for k, v in options.items()))
        argv = ["--config", "c.toml"]
    out = qsudoku(tmp_path, "solve", "p.txt", "--sampler", "qpu", "--no-fallback", *argv,
                  env_extra={"DWAVE_LOG_LEVEL": "trace"})
    logged = out.stdout + out.stderr
    assert out.returncode == 3, logged[-2000:]
    assert "headers" in logged and "<token>" in logged  # D-Wave did trace its configuration ...
    assert "HDRVAL77" not in logged and "PRXPASS55" not in logged  # ... masked


# -- 4. no internal error -----------------------------------------------------------------

def test_closed_stdin_is_one_line(tmp_path):
    out = qsudoku(tmp_path, "solve", "-", stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    assert out.returncode == 2
    assert "standard input is closed" in one_line(out.stderr)


def test_load_puzzles_without_any_stdin(monkeypatch):
    from qsudoku.errors import PuzzleFormatError
    from qsudoku.io import load_puzzles

    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(PuzzleFormatError, match="<stdin>: standard input is closed"):
        load_puzzles("-", stdin=None)


SECONDS_OPTIONS = [("count", "--time-limit"), ("embed", "--timeout"), ("solve", "--time-budget"),
                   ("show", "--time-budget"), ("sweep", "--time-budget"), ("bench", "--time-budget")]


def test_every_seconds_option_is_listed():
    """The table below covers every option of seconds (a float) of every command."""
    from qsudoku.cli import build_parser
    from qsudoku.commands.common import SecondsAction

    parser = build_parser()
    found = set()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            assert action.type is not float, (name, action.dest)  # floats go through SecondsAction
            if isinstance(action, SecondsAction) or action.metavar == "S[,S2...]":
                found.add((name, action.option_strings[0]))
    assert found == set(SECONDS_OPTIONS), found


@pytest.mark.parametrize("command, flag", SECONDS_OPTIONS)
@pytest.mark.parametrize("value", ["inf", "nan", "1e999", "0", "abc"])
def test_a_limit_must_be_finite(capsys, tmp_path, command, flag, value):
    from qsudoku.cli import main

    (tmp_path / "e.txt").write_text("12.434.2.1.3..21\n")
    code = main([command, str(tmp_path / "e.txt"), f"{flag}={value}"])
    err = capsys.readouterr().err
    assert code == 2
    line = one_line(err)
    assert flag in line and ("finite number of seconds" in line or "not a number" in line)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["solve", "--help"]])
def test_help_on_a_closed_stdout_is_exit_4(tmp_path, argv):
    out = qsudoku(tmp_path, *argv, preexec_fn=lambda: os.close(1))
    assert out.returncode == 4
    assert "standard output" in one_line(out.stderr) and "closed" in out.stderr


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["solve", "--help"]])
def test_help_into_a_pipe_whose_reader_left_is_a_quiet_stop(tmp_path, argv):
    read, write = os.pipe()
    os.close(read)
    try:
        out = qsudoku(tmp_path, *argv, stdout=write, stderr=subprocess.PIPE, capture_output=False)
    finally:
        os.close(write)
    assert out.returncode == 0 and out.stderr == ""  # as `qsudoku solve F | head -1`


def test_solve_with_stdout_and_stderr_closed_is_exit_4(tmp_path):
    (tmp_path / "e.txt").write_text("12.434.2.1.3..21\n")

    def close_both():
        os.close(1)
        os.close(2)

    out = qsudoku(tmp_path, "solve", "e.txt", preexec_fn=close_both, capture_output=False)
    assert out.returncode == 4


class _Returns:
    """A foreign sampler whose ``sample`` returns ``value(bqm)``."""

    parameters: dict = {}
    properties: dict = {}

    def __init__(self, value):
        self.value = value

    def sample(self, bqm, **kwargs):
        return self.value(bqm)


def _sampleset_without_the_model(bqm):
    import dimod

    return dimod.SampleSet.from_samples({"zz": 1}, "BINARY", 0.0)


def _empty_sampleset(bqm):
    import dimod

    return dimod.SampleSet.from_samples_bqm([], bqm)


@pytest.mark.parametrize("value, said", [
    (lambda bqm: None, "returned None, not a dimod.SampleSet"),
    (lambda bqm: [1, 0], "returned a list, not a dimod.SampleSet"),
    (_empty_sampleset, "returned an empty SampleSet"),
    (_sampleset_without_the_model, "returned a SampleSet without 15 of the model's 15 variables"),
])
def test_a_foreign_sampler_that_returns_nothing_usable(value, said):
    import qsudoku
    from qsudoku.errors import SamplerOutputError

    with pytest.raises(SamplerOutputError, match=f"sampler '_Returns' {said}"):
        qsudoku.solve(qsudoku.parse_puzzle("1..." "..2." "...." "...4"), sampler=_Returns(value))


def test_the_null_sampler_is_named():
    import dimod

    import qsudoku
    from qsudoku.errors import QSudokuError

    with pytest.raises(QSudokuError, match="sampler 'NullSampler' returned an empty SampleSet"):
        qsudoku.solve(qsudoku.parse_puzzle("1..." "..2." "...." "...4"), sampler=dimod.NullSampler())


@pytest.mark.parametrize("value", ["inf", "nan", "1e999", "text"])
def test_a_tampered_integer_column_is_read_as_missing(capsys, tmp_path, value):
    import csv

    from qsudoku.cli import main

    (tmp_path / "e.txt").write_text("12.434.2.1.3..21\n1.3..41.21.3.3.1\n")
    argv = ["bench", str(tmp_path / "e.txt"), "--out", str(tmp_path / "r.csv"), "--sampler",
            "sa", "--reads", "2", "--no-progress"]
    assert main(argv) == 0
    with open(tmp_path / "r.csv", newline="") as f:
        rows = list(csv.reader(f))
    for col in ("num_reads", "size", "rounds"):
        rows[1][rows[0].index(col)] = value
    with open(tmp_path / "r.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)
    capsys.readouterr()
    for _ in range(2):  # the summary, and every later resume, read the row
        assert main([*argv, "--resume"]) == 0
        err = capsys.readouterr().err
        assert "internal error" not in err and "0 new rows, 2 in" in err
