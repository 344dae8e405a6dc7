"""Helpers of the CLI, stream, sampler and budget tests moved beside their modules: a
qsudoku child process with a timeout and an environment of the test's own, its one error
line, the options that take seconds, and samplers that return no usable sample set.
"""

from __future__ import annotations

import os
import subprocess
import sys

from _puzzles import EASY4


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

SECONDS_OPTIONS = [("count", "--time-budget"), ("embed", "--time-budget"),
                   ("solve", "--time-budget"), ("show", "--time-budget"),
                   ("sweep", "--time-budget"), ("bench", "--time-budget"),
                   ("fairness", "--time-budget"), ("generate", "--time-budget")]

#: Float options that are not seconds, each range-checked by its command (nan and inf too).
OTHER_FLOATS = {("generate", "fraction")}


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


def _solve_line(capsys, tmp_path, *flags):
    from qsudoku.cli import main

    (tmp_path / "e.txt").write_text(EASY4 + "\n")
    code = main(["solve", str(tmp_path / "e.txt"), *flags])
    return code, capsys.readouterr()
