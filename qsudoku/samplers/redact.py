"""Keep the D-Wave API token out of every message: our errors and D-Wave's own logging.

D-Wave's packages log the client configuration, token included, at ``DEBUG`` and
``TRACE`` level (``DWAVE_LOG_LEVEL=trace`` prints it about thirty times); their own
formatter masks only tokens of the ``DEV-<hex>`` shape.  :func:`install_log_redaction`
puts a :class:`RedactingFilter` on D-Wave's loggers and on their handlers, so every
record is rewritten before any handler formats it: the known secrets (the token of
``DWAVE_API_TOKEN`` and the ``token`` entries of every ``dwave.conf`` D-Wave would read),
token-shaped strings, and the value of anything logged as ``token=...`` or
``'token': ...`` become ``<token>``.  The D-Wave factories install it before they
create a client.

>>> redact("Client(token='abc123xyz', endpoint=None)")
"Client(token='<token>', endpoint=None)"
>>> redact("token DEV-" + "0123456789abcdef" * 3 + " was rejected")
'token <token> was rejected'
"""

from __future__ import annotations

import configparser
import logging
import os
import re
from typing import Iterable

__all__ = ["redact", "scrub", "RedactingFilter", "install_log_redaction", "known_secrets",
           "LOGGER_PREFIXES", "MASK"]

MASK = "<token>"
#: Loggers (and their children) that may log a client configuration.
LOGGER_PREFIXES = ("dwave", "hybrid", "urllib3")

# SAPI tokens are a short prefix and 32+ hex digits (the shape dwave-cloud's formatter masks).
_TOKEN_RE = re.compile(r"\b[0-9A-Za-z]{2,10}-[0-9A-Fa-f]{32,}\b")
# The value of a key named like a credential: token=abc, 'token': 'abc', "X-Auth-Token": "abc".
_KEYED_RE = re.compile(
    r"""(?P<key>['"]?[\w-]*(?:token|password|secret)['"]?\s*[:=]\s*)"""
    r"""(?P<value>'[^']*'|"[^"]*"|[^\s,;)}\]]+)""", re.IGNORECASE)


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
    return _KEYED_RE.sub(_mask_keyed, text)


def scrub(text: str) -> str:
    """:func:`redact` ``text`` and put it on one line of at most 240 characters (for errors).

    >>> scrub("no\\n  solver " + "x" * 300)[:12]
    'no solver xx'
    """
    text = " ".join(redact(text, _FILTER.secrets).split())
    return text if len(text) <= 240 else text[:237] + "..."


def known_secrets(config_file: str | None = None) -> set[str]:
    """The tokens D-Wave could read here: ``DWAVE_API_TOKEN`` and every ``token`` entry of
    ``config_file``, ``DWAVE_CONFIG_FILE`` and the ``dwave.conf`` files on D-Wave's path.

    The files are read with :mod:`configparser`, not through D-Wave (which logs them).
    """
    found = {os.environ.get("DWAVE_API_TOKEN", "").strip()}
    paths = [p for p in (config_file, os.environ.get("DWAVE_CONFIG_FILE")) if p]
    try:
        from dwave.cloud.config import get_configfile_paths

        paths += list(get_configfile_paths())
    except (ImportError, OSError, ValueError):
        pass
    for path in paths:
        parser = configparser.ConfigParser(interpolation=None, default_section="defaults")
        try:
            parser.read(os.path.expanduser(str(path)), encoding="utf-8")
        except (OSError, configparser.Error, UnicodeError):
            continue
        for section in [parser.defaults(), *(parser[s] for s in parser.sections())]:
            value = section.get("token")
            if value:
                found.add(value.strip())
    return {s for s in found if s}


class RedactingFilter(logging.Filter):
    """A logging filter that rewrites each record's message (and traceback) with :func:`redact`.

    It never drops a record.  Records pass several handlers; a rewritten record stays
    rewritten, so one filter on the first handler protects the others too.

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


def install_log_redaction(config_file: str | None = None) -> RedactingFilter:
    """Put the process-wide :class:`RedactingFilter` on every existing logger under
    :data:`LOGGER_PREFIXES` and on each of their handlers; learn the tokens of
    :func:`known_secrets`.  Idempotent; call it before creating a D-Wave client.

    Returns:
        The filter (its ``secrets`` may be extended).
    """
    _FILTER.secrets.update(known_secrets(config_file))
    manager = logging.Logger.manager
    for name in list(manager.loggerDict):
        if name.split(".")[0] not in LOGGER_PREFIXES:
            continue
        logger = manager.loggerDict[name]
        if isinstance(logger, logging.Logger):
            _attach(logger)
            for handler in logger.handlers:
                _attach(handler)
    return _FILTER
