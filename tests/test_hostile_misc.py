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
