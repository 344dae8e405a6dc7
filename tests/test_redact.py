"""The D-Wave token appears nowhere: D-Wave's own trace logging included (offline: a client is
created and its configuration loaded, which never touches the network)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from qsudoku.samplers.redact import RedactingFilter, install_log_redaction, known_secrets, redact
from _misc_cases import qsudoku
from _puzzles import SEED004

pytest.importorskip("dwave.cloud")

ENV_TOKEN = "plainEnvSecret4711"  # not of the DEV-<hex> shape D-Wave masks itself
FILE_TOKEN = "plainFileSecret0815"

_CREATE_CLIENT = """
from qsudoku.samplers.dwave.cloud import cloud_errors
from dwave.cloud import Client
with cloud_errors("QPU", constructing=True):
    client = Client.from_config()
client.close()
"""


def _run(code, env_extra, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DWAVE_")}
    env.update(env_extra, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("source", ["env", "file"])
def test_trace_logging_never_prints_the_token(tmp_path, source):
    conf = tmp_path / "dwave.conf"
    conf.write_text(f"[defaults]\ntoken = {FILE_TOKEN}\n")
    extra = {"DWAVE_LOG_LEVEL": "trace"}
    extra.update({"DWAVE_API_TOKEN": ENV_TOKEN} if source == "env" else
                 {"DWAVE_CONFIG_FILE": str(conf)})
    secret = ENV_TOKEN if source == "env" else FILE_TOKEN
    out = _run(_CREATE_CLIENT, extra, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    logged = out.stdout + out.stderr
    assert "<token>" in logged  # D-Wave did log the configuration ...
    assert secret not in logged  # ... with the token masked


@pytest.mark.slow
def test_without_the_filter_dwave_prints_the_token(tmp_path):
    """The check above can fail: D-Wave's trace logging does print a plain token."""
    code = "from dwave.cloud import Client\nClient.from_config().close()\n"
    out = _run(code, {"DWAVE_LOG_LEVEL": "trace", "DWAVE_API_TOKEN": ENV_TOKEN}, tmp_path)
    assert ENV_TOKEN in out.stderr


def test_filter_rewrites_records_of_child_loggers_and_exceptions(monkeypatch):
    monkeypatch.setenv("DWAVE_API_TOKEN", ENV_TOKEN)
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(self.format(record))

    parent = logging.getLogger("dwave.cloud")
    handler = Keep()
    parent.addHandler(handler)
    old_level = parent.level
    parent.setLevel(logging.DEBUG)
    try:
        flt = install_log_redaction()
        assert flt in handler.filters
        child = logging.getLogger("dwave.cloud.qsudoku_test_child")  # created after installing
        child.debug("config = %r", {"token": ENV_TOKEN, "endpoint": None})
        try:
            raise RuntimeError(f"bad token {ENV_TOKEN}")
        except RuntimeError:
            child.exception("failed")
    finally:
        parent.removeHandler(handler)
        parent.setLevel(old_level)
    assert len(records) == 2
    assert all(ENV_TOKEN not in r for r in records)
    assert "'token': '<token>'" in records[0] and "bad token <token>" in records[1]


def test_known_secrets_reads_every_config_file(tmp_path, monkeypatch):
    conf = tmp_path / "a.conf"
    conf.write_text(f"[defaults]\ntoken = {FILE_TOKEN}\n[other]\ntoken = second-one\n")
    monkeypatch.setenv("DWAVE_API_TOKEN", ENV_TOKEN)
    monkeypatch.delenv("DWAVE_CONFIG_FILE", raising=False)
    assert {FILE_TOKEN, "second-one", ENV_TOKEN} <= known_secrets(str(conf))


@pytest.mark.parametrize("text, secret", [
    ("Creating Client(token='t0psecret', x=1)", "t0psecret"),
    ('{"X-Auth-Token": "abc-def"}', "abc-def"),
    ("password=hunter2 next", "hunter2"),
    ("sent ABC-" + "0f" * 20, "ABC-" + "0f" * 20),
])
def test_redact_masks_keyed_and_token_shaped_values(text, secret):
    assert secret not in redact(text)
    assert "<token>" in redact(text)


def test_filter_keeps_records_and_survives_bad_format_args():
    rec = logging.LogRecord("dwave", logging.INFO, __file__, 1, "%d items", ("x",), None)
    assert RedactingFilter().filter(rec) is True
    assert "items" in rec.getMessage()


PROXY_PW, ENDPOINT_PW, HEADER_VALUE = "proxyPw0815x", "endpointPw4711y", "headerKey2323z"


@pytest.mark.slow
def test_trace_logging_masks_proxy_endpoint_and_header_credentials(tmp_path):
    """The proxy's password, a password in the endpoint URL and the header values are
    credentials too: D-Wave's trace logging prints each of them, masked."""
    extra = {"DWAVE_LOG_LEVEL": "trace", "DWAVE_API_TOKEN": ENV_TOKEN,
             "DWAVE_API_PROXY": f"http://user:{PROXY_PW}@127.0.0.1:9",
             "DWAVE_API_ENDPOINT": f"https://eu:{ENDPOINT_PW}@127.0.0.1:9/sapi/v2/",
             "DWAVE_API_HEADERS": f"X-Api-Key: {HEADER_VALUE}"}
    out = _run(_CREATE_CLIENT, extra, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    logged = out.stdout + out.stderr
    assert "'proxy': 'http://" in logged and "127.0.0.1:9" in logged  # it was logged ...
    for secret in (ENV_TOKEN, PROXY_PW, ENDPOINT_PW, HEADER_VALUE):
        assert secret not in logged, secret  # ... masked


@pytest.mark.slow
def test_without_the_filter_dwave_prints_proxy_and_header_credentials(tmp_path):
    """The check above can fail: unredacted, D-Wave prints the proxy password and headers."""
    code = "from dwave.cloud import Client\nClient.from_config().close()\n"
    out = _run(code, {"DWAVE_LOG_LEVEL": "trace", "DWAVE_API_TOKEN": ENV_TOKEN,
                      "DWAVE_API_PROXY": f"http://user:{PROXY_PW}@127.0.0.1:9",
                      "DWAVE_API_HEADERS": f"X-Api-Key: {HEADER_VALUE}"}, tmp_path)
    assert PROXY_PW in out.stderr and HEADER_VALUE in out.stderr


def test_records_are_redacted_as_created_for_any_handler(monkeypatch):
    """Installed, the record factory redacts records of D-Wave loggers created later,
    seen by a handler on the root logger that carries no filter (as Dask's log
    forwarding in a worker would be)."""
    from qsudoku.samplers import redact as mod

    monkeypatch.setenv("DWAVE_API_PROXY", f"http://user:{PROXY_PW}@proxy:8080")
    monkeypatch.setenv("DWAVE_API_HEADERS", f"X-Api-Key: {HEADER_VALUE}")
    monkeypatch.setattr(mod, "_SECRETS_READ", False)
    mod.install_record_redaction()
    mod.install_record_redaction()  # idempotent
    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    root, handler = logging.getLogger(), Keep()
    root.addHandler(handler)
    logger = logging.getLogger("dwave.cloud.qsudoku_late_child_4242")
    old = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        logger.debug("session %r", {"proxy": f"http://user:{PROXY_PW}@proxy:8080",
                                    "X-Api-Key": HEADER_VALUE})
        logging.getLogger("qsudoku.elsewhere").warning("kept %s", "as is")
    finally:
        root.removeHandler(handler)
        logger.setLevel(old)
    assert len(seen) == 2 and "kept as is" in seen[1]
    assert PROXY_PW not in seen[0] and HEADER_VALUE not in seen[0] and "<token>" in seen[0]


@pytest.mark.parametrize("text, secret", [
    ("proxy=http://alice:s3cretPw@proxy:3128", "s3cretPw"),
    ("GET https://bob:pw-9876@host/sapi", "pw-9876"),
    ("{'headers': 'X-Api-Key: k3yv4lue'}", "k3yv4lue"),
])
def test_redact_masks_url_passwords_and_headers(text, secret):
    assert secret not in redact(text) and "<token>" in redact(text)


@pytest.mark.slow
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


def test_secrets_proxy_endpoint_and_headers_are_masked(monkeypatch):
    from qsudoku.samplers import redact as mod

    monkeypatch.setenv("DWAVE_API_PROXY", "http://u:Pr0xyPass@proxy:3128")
    monkeypatch.setenv("DWAVE_API_ENDPOINT", "https://u:EndP0intPass@host/sapi/v2/")
    monkeypatch.setenv("DWAVE_API_HEADERS", "X-Key: HeaderS3cret")
    secrets = mod.known_secrets()
    text = mod.redact("{'endpoint': 'https://u:EndP0intPass@host/sapi/v2/', 'proxy': "
                      "'http://u:Pr0xyPass@proxy:3128', 'headers': 'X-Key: HeaderS3cret'} "
                      "session headers {'X-Key': 'HeaderS3cret'}", secrets)
    for secret in ("Pr0xyPass", "EndP0intPass", "HeaderS3cret"):
        assert secret not in text
    assert "@host/sapi/v2/" in text and "<token>" in text
