"""The offline D-Wave error names its cause (issue 49, item 5): a name that does not resolve,
no network, a refused connection, a timeout; timeout advice only for a timeout; never the
token.  Everything here runs offline: the name lookups are answered by a stand-in for
``socket.getaddrinfo`` or by the reserved ``.invalid`` domain, the refused connection is a
closed port of 127.0.0.1, the timeout a listener that never answers."""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys

import pytest

pytest.importorskip("dwave.system", reason="the D-Wave samplers need the [qpu] extra")

from qsudoku.samplers.dwave.network import exception_chain, network_cause  # noqa: E402

from _cli import one_error, run  # noqa: E402
from _servers import mute_listener  # noqa: E402
from _shared import REPO  # noqa: E402

TOKEN = "DEV-" + "fa4e" * 10  # token-shaped: must never be shown
FOUR = "1......2........"
TIMEOUT_ADVICE = "request_timeout"


@pytest.fixture
def leap(monkeypatch, tmp_path):
    """A D-Wave environment of the test's own: a fake token, an empty config, a private
    cache; returns a setter of the endpoint."""
    (tmp_path / "dwave.conf").write_text("")
    for key in [k for k in os.environ if k.startswith("DWAVE_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DWAVE_CONFIG_FILE", str(tmp_path / "dwave.conf"))
    monkeypatch.setenv("DWAVE_API_TOKEN", TOKEN)
    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path / "cache"))
    return lambda url: monkeypatch.setenv("DWAVE_API_ENDPOINT", url)


def _solve_qpu(capsys, *extra):
    code, out, err = run(capsys, "solve", FOUR, "--sampler", "qpu", "--no-fallback", *extra)
    line = one_error(err)
    assert code == 3 and out == "" and TOKEN not in out + err
    return line


def _lookup_fails(monkeypatch, code: int, text: str):
    def getaddrinfo(host, *args, **kwargs):
        raise socket.gaierror(code, text)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_name_that_does_not_resolve_is_named(leap, monkeypatch, capsys):
    leap("https://nosuch.invalid/sapi/v2")
    _lookup_fails(monkeypatch, socket.EAI_NONAME, "Name or service not known")
    line = _solve_qpu(capsys)
    assert ("cannot reach the D-Wave endpoint https://nosuch.invalid/sapi/v2: the host name "
            "nosuch.invalid does not resolve (Name or service not known)") in line
    assert TIMEOUT_ADVICE not in line and "in time" not in line
    assert line.endswith("or run offline with --fallback sa")


def test_no_network_for_the_lookup_is_named(leap, monkeypatch, capsys):
    leap("https://cloud.example.com/sapi/v2")
    _lookup_fails(monkeypatch, socket.EAI_AGAIN, "Temporary failure in name resolution")
    line = _solve_qpu(capsys)
    assert "the host name cloud.example.com could not be looked up: no network" in line
    assert TIMEOUT_ADVICE not in line


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    return port


def test_a_refused_connection_is_named(leap, capsys):
    port = _closed_port()
    leap(f"http://127.0.0.1:{port}/sapi/v2")
    line = _solve_qpu(capsys)
    assert f"127.0.0.1:{port} refused the connection" in line
    assert TIMEOUT_ADVICE not in line and "in time" not in line


def test_a_refused_connection_falls_back_when_asked(leap, capsys):
    leap(f"http://127.0.0.1:{_closed_port()}/sapi/v2")
    code, out, err = run(capsys, "solve", FOUR, "--sampler", "qpu", "--fallback", "sa",
                         "--seed", "1")
    assert code == 0 and "solved by sa" in out and TOKEN not in out + err


@pytest.mark.slow
def test_a_real_timeout_keeps_its_advice(leap, capsys):
    with mute_listener() as port:
        leap(f"http://127.0.0.1:{port}/sapi")
        line = _solve_qpu(capsys, "--option", "request_timeout=0.3")
    assert "no answer in time" in line and "raise [sampler.options] request_timeout" in line
    assert "refused" not in line and "resolve" not in line


@pytest.mark.slow
def test_the_issue_command_as_typed(tmp_path):
    """The command of the report, in a child process, with the reserved ``.invalid`` name
    (it never resolves: the answer is 'does not resolve', or 'could not be looked up' on
    a machine without DNS)."""
    (tmp_path / "dwave.conf").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DWAVE_")}
    env.update(DWAVE_API_TOKEN=TOKEN, DWAVE_API_ENDPOINT="https://nosuch.invalid/sapi/v2",
               DWAVE_CONFIG_FILE=str(tmp_path / "dwave.conf"), PYTHONPATH=str(REPO),
               QSUDOKU_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-m", "qsudoku", "solve", FOUR, "--sampler", "qpu",
                        "--no-fallback"], capture_output=True, text=True, env=env, timeout=240)
    assert p.returncode == 3 and p.stdout == "" and TOKEN not in p.stderr
    line = one_error(p.stderr)
    assert "nosuch.invalid" in line and ("does not resolve" in line or "looked up" in line)
    assert TIMEOUT_ADVICE not in line


# -- the chain, read without any request -------------------------------------------------------

def _raised(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        raise outer from inner
    except BaseException as e:  # noqa: BLE001 - the test's own chain
        return e


@pytest.mark.parametrize("inner,words", [
    (OSError(errno.ENETUNREACH, "Network is unreachable"), "no network: the network is unreachable"),
    (OSError(errno.ENETDOWN, "Network is down"), "no network: the network is down"),
    (OSError(errno.EHOSTUNREACH, "No route to host"), "no route to the endpoint"),
    (ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"), "refused the connection"),
    (socket.timeout("timed out"), "no answer in time"),
])
def test_the_cause_is_read_below_the_wrapper(inner, words):
    from dwave.cloud.api.exceptions import RequestTimeout

    cause = network_cause(_raised(RequestTimeout("API request timed out"), inner))
    assert cause is not None and words in cause.text
    assert cause.timeout == (words == "no answer in time")


def test_a_failed_connection_is_no_timeout_though_urllib3_says_so():
    """urllib3's NewConnectionError is a ConnectTimeoutError: a connection that failed for
    a reason of its own is reported with that reason, not as a timeout."""
    import urllib3.exceptions as u3

    failed = u3.NewConnectionError(None, "Failed to establish a new connection: odd")
    wrapped = u3.MaxRetryError(None, "/sapi", reason=failed)
    cause = network_cause(_raised(OSError("outer"), wrapped))
    assert cause is not None and not cause.timeout and "NewConnectionError" in cause.text
    assert any(x is failed for x in exception_chain(wrapped))


def test_an_error_with_no_network_cause_is_left_alone():
    assert network_cause(ValueError("bad")) is None
