"""The D-Wave cloud client (``qsudoku.samplers.dwave.cloud``): a config file or a secret that
is a FIFO is refused or skipped, not waited on; an endpoint that never answers ends in
exit 3 within the client's bounded wait; its timeout options are checked."""

from __future__ import annotations

import os
import stat

import pytest

from _backend_cases import FOUR, TOKEN, black_hole, dwave_env, qsudoku
from _cli import one_error, run


@pytest.mark.parametrize("sampler", ["qpu", "hybrid-nl"])
@pytest.mark.slow
def test_a_fifo_as_dwave_config_file_is_refused_not_waited_on(sampler, dwave_env, tmp_path):
    fifo = tmp_path / "dwave-fifo.conf"
    os.mkfifo(fifo)
    env = dict(dwave_env, DWAVE_CONFIG_FILE=str(fifo), DWAVE_API_TOKEN=TOKEN)
    code, out, err = qsudoku("solve", FOUR, "--sampler", sampler, "--time-budget", "60", env=env)
    assert code == 3 and out == ""
    line = one_error(err)
    assert str(fifo) in line and "DWAVE_CONFIG_FILE" in line and "is a FIFO" in line
    assert TOKEN not in out + err
    # with a fallback the solve goes on offline, as for a missing token: nothing lost
    code, out, err = qsudoku("solve", FOUR, "--sampler", sampler, "--fallback", "sa", "--seed", "1",
                             "--time-budget", "60", env=env)
    assert code == 0 and "VALID" in out and "solved by sa" in out
    assert "is a FIFO" in out + err and TOKEN not in out + err  # a note of the report
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # never opened, never replaced


def test_a_fifo_as_config_file_option_is_refused(dwave_env, tmp_path, capsys):
    from qsudoku.errors import BackendUnavailableError
    from qsudoku.samplers.dwave.cloud import check_config_files

    fifo = tmp_path / "cfg.fifo"
    os.mkfifo(fifo)
    with pytest.raises(BackendUnavailableError, match=r"\(from config_file\) is a FIFO"):
        check_config_files({"config_file": str(fifo)})
    with pytest.raises(BackendUnavailableError, match="is a directory"):
        check_config_files({"config_file": [str(tmp_path)]})
    check_config_files({"config_file": str(tmp_path / "missing.conf")})  # D-Wave's own error
    check_config_files({"config_file": False})


def test_secret_reading_skips_a_fifo(monkeypatch, tmp_path):
    from qsudoku.samplers.redact import known_secrets

    fifo = tmp_path / "x.fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("DWAVE_CONFIG_FILE", str(fifo))
    monkeypatch.setenv("DWAVE_API_TOKEN", TOKEN)
    assert TOKEN in known_secrets(str(fifo))  # returns: the FIFO was not opened


@pytest.mark.parametrize("sampler", ["qpu", "hybrid-nl"])
@pytest.mark.slow
def test_an_endpoint_that_never_answers_ends_in_exit_3(sampler, black_hole, dwave_env):
    env = dict(dwave_env, DWAVE_API_TOKEN=TOKEN, DWAVE_API_ENDPOINT=black_hole)
    code, out, err = qsudoku("solve", FOUR, "--sampler", sampler, "--option",
                             "request_timeout=0.5", "--time-budget", "60", env=env)
    assert code == 3 and out == ""
    line = one_error(err)
    assert f"no answer in time from the D-Wave endpoint {black_hole}" in line
    assert "request_timeout = 0.5 s" in line and TOKEN not in line
    code, out, err = qsudoku("solve", FOUR, "--sampler", sampler, "--option", "request_timeout=0.5",
                             "--fallback", "sa", "--seed", "1", "--time-budget", "60", env=env)
    assert code == 0 and "solved by sa" in out and TOKEN not in out + err


@pytest.mark.slow
def test_the_default_wait_is_bounded_and_reaches_the_client(black_hole, monkeypatch, tmp_path):
    """Without a request_timeout of the user's, qsudoku's CLIENT_DEFAULTS reach the client
    (here made short), where dwave-cloud-client's own would wait 60 s x 11 tries."""
    from qsudoku.errors import BackendUnavailableError
    from qsudoku.samplers import get_sampler
    from qsudoku.samplers.dwave import cloud

    t, tries = cloud.CLIENT_DEFAULTS["request_timeout"], 1 + cloud.CLIENT_DEFAULTS["http_retry_read"]
    assert t * tries <= 120 and cloud.CLIENT_DEFAULTS["http_retry_connect"] <= 1
    (tmp_path / "dwave.conf").write_text("")
    monkeypatch.setenv("DWAVE_CONFIG_FILE", str(tmp_path / "dwave.conf"))
    monkeypatch.setenv("DWAVE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DWAVE_API_ENDPOINT", black_hole)
    monkeypatch.setitem(cloud.CLIENT_DEFAULTS, "request_timeout", 0.3)
    with pytest.raises(BackendUnavailableError, match=r"request_timeout = 0\.3 s") as e:
        get_sampler("qpu", cache_dir=str(tmp_path / "emb"))
    assert black_hole in str(e.value) and TOKEN not in str(e.value)


@pytest.mark.parametrize("value", [0, -1, 1e308, "soon", float("inf")])
def test_a_timeout_option_out_of_range_is_bad_config(value, capsys):
    from qsudoku.errors import ConfigError
    from qsudoku.samplers.dwave.cloud import split_options

    with pytest.raises(ConfigError, match="request_timeout = .* must be a number of seconds > 0"):
        split_options("qpu", {"request_timeout": value})
    code, out, err = run(capsys, "solve", FOUR, "--sampler", "hybrid", "--option",
                         "polling_timeout=0")
    assert code == 2 and out == "" and "polling_timeout = 0 must be" in one_error(err)
