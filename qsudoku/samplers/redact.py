"""Keep every D-Wave credential out of every message: our errors and D-Wave's own logging.

The credentials: the API token, the password of a proxy or of any URL's user information
(``http://user:PASSWORD@host``) and the values of extra HTTP headers
(``DWAVE_API_HEADERS``, ``headers`` in ``dwave.conf``).  D-Wave's packages log the client
configuration, token included, at ``DEBUG`` and ``TRACE`` level, and their formatter masks
only ``DEV-<hex>`` tokens.  :func:`install_log_redaction` puts a :class:`RedactingFilter`
on D-Wave's loggers and their handlers, and wraps the process's log-record factory
(:func:`install_record_redaction`), so that every record of D-Wave's loggers is redacted
as it is created, whatever logger, handler or Dask forwarding it meets later: the known
secrets (environment, every ``dwave.conf`` D-Wave would read), token-shaped strings,
``token=...``, ``'token': ...`` and ``'headers': ...`` values and URL passwords become
``<token>``.  The D-Wave factories install it before they create a client, so a worker
process that builds a D-Wave sampler installs it itself.

>>> redact("Client(token='abc123xyz', endpoint=None)")
"Client(token='<token>', endpoint=None)"
>>> redact("token DEV-" + "0123456789abcdef" * 3 + " was rejected")
'token <token> was rejected'
>>> redact("proxy http://u:pw1234@proxy.example:8080 in use")
'proxy http://u:<token>@proxy.example:8080 in use'
"""

from __future__ import annotations

import configparser
import contextlib
import logging
import os
import re
import sys
from typing import Iterable

__all__ = ["redact", "scrub", "mask", "MaskedStream", "masked_stderr", "RedactingFilter",
           "install_log_redaction", "known_secrets",
           "install_record_redaction", "header_values", "url_secrets", "option_secrets",
           "LOGGER_PREFIXES", "MASK", "SECRET_ENV"]

MASK = "<token>"
#: Loggers (and their children) that may log a client configuration.
LOGGER_PREFIXES = ("dwave", "hybrid", "urllib3")

# SAPI tokens are a short prefix and 32+ hex digits (the shape dwave-cloud's formatter masks).
_TOKEN_RE = re.compile(r"\b[0-9A-Za-z]{2,10}-[0-9A-Fa-f]{32,}\b")
# The value of a key named like a credential: token=abc, 'token': 'abc', "X-Auth-Token": "abc";
# and of the client's extra headers ('headers': 'X-Key: abc'), whose values are credentials.
_KEYED_RE = re.compile(
    r"""(?P<key>['"]?[\w-]*(?:token|password|passwd|secret|api[_-]?key|headers?|authorization)"""
    r"""['"]?\s*[:=]\s*)"""
    r"""(?P<value>'[^']*'|"[^"]*"|[^\s,;)}\]]+)""", re.IGNORECASE)
# The user information of a URL: scheme://user:password@host (the password masked).
_URL_USERINFO_RE = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@'\"]*):"
                              r"(?P<pw>[^/\s@'\"]+)@")

#: Environment variables of dwave-cloud-client that may hold a credential.
SECRET_ENV = ("DWAVE_API_TOKEN", "DWAVE_API_PROXY", "DWAVE_API_ENDPOINT", "DWAVE_API_HEADERS",
              "DWAVE_LEAP_API_ENDPOINT", "DWAVE_METADATA_API_ENDPOINT")


def url_secrets(url: str) -> set[str]:
    """The password (and user) of a ``scheme://user:password@host`` URL.

    >>> sorted(url_secrets("http://alice:pa55word@proxy:3128"))
    ['alice:pa55word', 'pa55word']
    >>> url_secrets("https://cloud.dwavesys.com/sapi")
    set()
    """
    found = set()
    for m in _URL_USERINFO_RE.finditer(url or ""):
        pw = m["pw"]
        user = m["head"].rsplit("//", 1)[-1]
        found.add(pw)
        if user:
            found.add(f"{user}:{pw}")
    return found


def header_values(headers) -> set[str]:
    """The values of extra HTTP headers, given as D-Wave reads them: ``"Name: value"``
    lines, or a mapping.

    >>> sorted(header_values("X-Api-Key: k3y-value\\nX-Other: second"))
    ['k3y-value', 'second']
    """
    if isinstance(headers, dict):
        items = [str(v) for v in headers.values()]
    else:
        items = [line.partition(":")[2] for line in str(headers or "").splitlines()]
    return {v.strip() for v in items if v.strip()}


#: Client options whose values are URLs that may carry a ``user:password@``.
URL_OPTIONS = ("proxy", "endpoint", "leap_api_endpoint", "metadata_api_endpoint")


def option_secrets(options: dict | None) -> set[str]:
    """The credentials among client options given to D-Wave's client (``--option``,
    ``[sampler.options]``): every header value and the passwords of URL options.

    >>> sorted(option_secrets({"headers": "X-Secret: HDRVAL", "proxy": "http://u:pw99@h:1",
    ...                        "solver": "Advantage_system4.1"}))
    ['HDRVAL', 'pw99', 'u:pw99']
    """
    found: set[str] = set()
    for key, value in (options or {}).items():
        if key == "headers":
            found |= header_values(value)
        elif key in URL_OPTIONS or isinstance(value, str):
            found |= url_secrets(str(value))
    return found


def _mask_keyed(match: re.Match) -> str:
    value = match["value"]
    quote = value[0] if value[:1] in ("'", '"') else ""
    return f"{match['key']}{quote}{MASK}{quote}"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with ``secrets``, ``DWAVE_API_TOKEN``, token-shaped strings and credential
    values replaced by ``<token>``.

    >>> redact("header X-Auth-Token: s3cr3t-value sent", ())
    'header X-Auth-Token: <token> sent'
    """
    known = set(secrets)
    env = os.environ.get("DWAVE_API_TOKEN", "").strip()
    if env:
        known.add(env)
    for secret in sorted((s for s in known if len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _TOKEN_RE.sub(MASK, text)
    text = _URL_USERINFO_RE.sub(lambda m: f"{m['head']}:{MASK}@", text)
    return _KEYED_RE.sub(_mask_keyed, text)


def mask(text: str) -> str:
    """:func:`redact` ``text`` with every secret learned in this process: qsudoku's own
    messages (an argument quoted in an error, a scheduler address) are masked as D-Wave's
    logs are.

    >>> mask("parameter seed = 'DEV-" + "0123abcd" * 5 + "' must be an integer >= 0")
    "parameter seed = '<token>' must be an integer >= 0"
    >>> mask("scheduler address 'tcp://u:hunter2@host:1' is not valid")
    "scheduler address 'tcp://u:<token>@host:1' is not valid"
    """
    return redact(text, _FILTER.secrets)


def scrub(text: str) -> str:
    """:func:`mask` ``text`` and put it on one line of at most 240 characters (for errors).

    >>> scrub("no\\n  solver " + "x" * 300)[:12]
    'no solver xx'
    """
    text = " ".join(mask(text).split())
    return text if len(text) <= 240 else text[:237] + "..."


class MaskedStream:
    """A text stream (standard error) that :func:`mask` s everything written to it, so no
    line of qsudoku's (errors, notes, warnings, argparse's usage errors) shows a secret.

    >>> import io
    >>> out = io.StringIO()
    >>> _ = MaskedStream(out).write("--sampler DEV-" + "0" * 32 + " is unknown")
    >>> out.getvalue()
    '--sampler <token> is unknown'
    """

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        return self.stream.write(mask(text) if isinstance(text, str) else text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self.stream, name)


@contextlib.contextmanager
def masked_stderr():
    """Within the block, ``sys.stderr`` is a :class:`MaskedStream` over the real one."""
    previous = sys.stderr
    sys.stderr = MaskedStream(previous) if previous is not None else None
    try:
        yield
    finally:
        if isinstance(sys.stderr, MaskedStream):  # else a command replaced it: theirs stays
            sys.stderr = previous


def known_secrets(config_file: str | None = None) -> set[str]:
    """The credentials D-Wave could read here: the token, proxy and endpoint passwords and
    header values of the environment (:data:`SECRET_ENV`) and of every ``token``,
    ``proxy``, ``endpoint`` and ``headers`` entry of ``config_file``, ``DWAVE_CONFIG_FILE``
    and the ``dwave.conf`` files on D-Wave's path.

    The files are read with :mod:`configparser`, not through D-Wave (which logs them).
    """
    found = {os.environ.get("DWAVE_API_TOKEN", "").strip()}
    found |= header_values(os.environ.get("DWAVE_API_HEADERS", ""))
    for name in SECRET_ENV:
        found |= url_secrets(os.environ.get(name, ""))
    paths = [p for p in (config_file, os.environ.get("DWAVE_CONFIG_FILE")) if p]
    try:
        from dwave.cloud.config import get_configfile_paths

        paths += list(get_configfile_paths())
    except (ImportError, OSError, ValueError):
        pass
    for path in paths:
        parser = configparser.ConfigParser(interpolation=None, default_section="defaults")
        path = os.path.expandvars(os.path.expanduser(str(path)))
        if not os.path.isfile(path):  # a FIFO would block here; D-Wave's factories refuse it
            continue
        try:
            parser.read(path, encoding="utf-8")
        except (OSError, configparser.Error, UnicodeError):
            continue
        for section in [parser.defaults(), *(parser[s] for s in parser.sections())]:
            value = section.get("token")
            if value:
                found.add(value.strip())
            found |= header_values(section.get("headers", ""))
            for key in URL_OPTIONS:
                found |= url_secrets(section.get(key, ""))
    return {s for s in found if s}


class RedactingFilter(logging.Filter):
    """A logging filter that rewrites each record's message (and traceback) with
    :func:`redact`; it never drops a record, and a rewritten record stays rewritten.

    >>> f = RedactingFilter()
    >>> f.secrets.add("hunter22")
    >>> rec = logging.LogRecord("dwave.cloud", logging.DEBUG, __file__, 1, "cfg %r", ({"t": "hunter22"},), None)
    >>> f.filter(rec), rec.getMessage()
    (True, "cfg {'t': '<token>'}")
    """

    def __init__(self):
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record: redact its parts instead
            message = f"{record.msg} {record.args}"
        record.msg, record.args = redact(message, self.secrets), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        return True


_FILTER = RedactingFilter()


def _attach(obj) -> None:
    if _FILTER not in obj.filters:
        obj.addFilter(_FILTER)


def install_log_redaction(config_file: str | None = None,
                          options: dict | None = None) -> RedactingFilter:
    """Put the process-wide :class:`RedactingFilter` on every existing logger under
    :data:`LOGGER_PREFIXES` and on each of their handlers; learn the tokens of
    :func:`known_secrets` and the credentials among the client ``options``
    (:func:`option_secrets`).  Idempotent; call it before creating a D-Wave client.

    Returns:
        The filter (its ``secrets`` may be extended).
    """
    _FILTER.secrets.update(known_secrets(config_file) | option_secrets(options))
    install_record_redaction()
    manager = logging.Logger.manager
    for name, logger in list(manager.loggerDict.items()):
        if _is_dwave(name) and isinstance(logger, logging.Logger):
            _attach(logger)
            for handler in logger.handlers:
                _attach(handler)
    return _FILTER


_FACTORY_INSTALLED = False
_SECRETS_READ = False


def _is_dwave(name: str) -> bool:
    return name.split(".")[0] in LOGGER_PREFIXES


def install_record_redaction() -> None:
    """Redact every log record of D-Wave's loggers (:data:`LOGGER_PREFIXES`) as it is
    created, in this process: the log-record factory is wrapped once (idempotent), so it
    holds for loggers and handlers created later and for records Dask forwards.

    Cheap: nothing is imported; the config files are read at the first D-Wave record.
    """
    global _FACTORY_INSTALLED
    if _FACTORY_INSTALLED:
        return
    _FACTORY_INSTALLED = True
    previous = logging.getLogRecordFactory()

    def factory(*args, **kwargs):
        global _SECRETS_READ
        record = previous(*args, **kwargs)
        if _is_dwave(str(record.name)):
            if not _SECRETS_READ:
                _SECRETS_READ = True
                _FILTER.secrets.update(known_secrets())
            _FILTER.filter(record)
        return record

    logging.setLogRecordFactory(factory)
