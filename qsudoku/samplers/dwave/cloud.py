"""What the D-Wave samplers share with Leap: client options, errors and plain info.

Credentials are read only by D-Wave's own configuration (``DWAVE_API_TOKEN``, the
file written by ``dwave config create``, ``profile`` as a sampler option); an option
that looks like a credential is refused.  Every failure to reach a usable solver (no
token, bad token, no such solver, network) becomes a
:class:`~qsudoku.errors.BackendUnavailableError` with one line saying what to do, never
containing the token.

>>> split_options("qpu", {"profile": "prod", "cache": False}, local_keys=("cache",))
({'cache': False}, {'profile': 'prod'})
>>> plain({"t": (1, 2.5), "n": float("nan")})
{'t': [1, 2.5], 'n': None}
"""

from __future__ import annotations

import contextlib
import math
import os
import stat

import numpy as np

from qsudoku.errors import BackendUnavailableError, ConfigError
from qsudoku.samplers.dwave.network import network_cause
from qsudoku.samplers.redact import install_log_redaction, scrub

__all__ = ["CLIENT_OPTIONS", "CLIENT_DEFAULTS", "DEFAULT_LABEL", "cloud_errors", "check_credentials",
           "check_config_files", "client_options", "connect", "split_options", "plain"]

#: dwave-cloud-client options accepted as sampler options (``token`` is not one of them).
CLIENT_OPTIONS = ("profile", "config_file", "solver", "region", "endpoint", "proxy",
                  "request_timeout", "polling_timeout", "permissive_ssl", "headers")
_SECRET_WORDS = ("token", "password", "secret")
DEFAULT_LABEL = "qsudoku"
#: The longest ``request_timeout`` or ``polling_timeout`` a sampler option may set (a week).
MAX_TIMEOUT = 7 * 86400.0
#: What qsudoku's D-Wave clients wait for by default, below dwave-cloud-client's own (60 s per
#: request, retried up to 10 times: ten minutes and more on an endpoint that never answers):
#: 30 s per request, a read or connect timeout retried once, so a dead endpoint costs about
#: a minute per request, then exit 3.  A value set in ``dwave.conf``, the environment or a
#: sampler option (``request_timeout``, ``polling_timeout``) wins over these.
CLIENT_DEFAULTS = {"request_timeout": 30.0, "http_retry_read": 1, "http_retry_connect": 1}


# -- errors -------------------------------------------------------------------------------------

_OFFLINE_HINT = "or run offline with --fallback sa"


def _endpoint_and_timeout(client: dict | None, source, with_timeout: bool = True) -> str:
    """``"the endpoint URL (request_timeout = T s)"`` of a live client (``source.client``) or of
    the client options ``client`` as D-Wave would resolve them (no network); URL
    passwords are masked by :func:`scrub`.  ``with_timeout=False``: the endpoint alone."""
    config = getattr(getattr(source, "client", None), "config", None)
    try:
        if config is not None:
            endpoint, region, timeout = config.endpoint, config.region, config.request_timeout
        else:
            from dwave.cloud.config import load_config

            resolved = {**CLIENT_DEFAULTS, **load_config(**(client or {}))}
            endpoint, region = resolved.get("endpoint"), resolved.get("region")
            timeout = resolved.get("request_timeout")
    except Exception:  # noqa: BLE001 - only a description; the error itself is raised anyway
        return "the D-Wave endpoint"
    where = f"endpoint {endpoint}" if endpoint else f"region {region or 'na-west-1'}"
    wait = f" (request_timeout = {timeout} s)" if with_timeout else ""
    return scrub(f"the D-Wave {where}{wait}")


def _translate(exc: BaseException, what: str, constructing: bool, client=None, source=None):
    """The :class:`BackendUnavailableError` for a D-Wave cloud failure (``None`` if not one)."""
    import requests
    from dwave.cloud.api import exceptions as api
    from dwave.cloud import exceptions as cloud
    from dwave.cloud.config.exceptions import ConfigFileError

    name, msg = type(exc).__name__, scrub(str(exc))
    detail = f"{name}: {msg}" if msg else name
    network = (requests.exceptions.RequestException, ConnectionError, TimeoutError,
               cloud.PollingTimeout, api.RequestTimeout, cloud.ProblemUploadError)
    cause = network_cause(exc) if isinstance(exc, network) else None
    if cause is not None and not cause.timeout:  # dwave-cloud-client calls it a timeout
        return BackendUnavailableError(
            f"cannot reach {_endpoint_and_timeout(client, source, with_timeout=False)}: "
            f"{scrub(cause.text)}; check the network, proxy or endpoint (DWAVE_API_ENDPOINT, "
            f"[sampler.options] endpoint), {_OFFLINE_HINT}")
    if isinstance(exc, api.ResourceAuthenticationError):
        text = (f"D-Wave rejected the API token ({detail}); check DWAVE_API_TOKEN or the profile "
                "written by 'dwave config create' ('dwave ping' tests it)")
    elif isinstance(exc, api.ResourceAccessForbiddenError):
        text = (f"D-Wave denied access to the {what} solver ({detail}); 'dwave solvers' lists the "
                "solvers your token's project can use")
    elif isinstance(exc, (cloud.SolverNotFoundError, api.ResourceNotFoundError)):
        text = (f"no {what} solver available to your token matches the request ({detail}); "
                "'dwave solvers' lists them; pick one with [sampler.options] solver = \"NAME\"")
    elif isinstance(exc, api.ResourceLimitsExceededError):
        text = f"D-Wave quota or rate limit exceeded ({detail}); check your Leap account or retry later"
    elif isinstance(exc, (requests.exceptions.Timeout, TimeoutError, cloud.PollingTimeout,
                          api.RequestTimeout)):
        text = (f"cannot reach the D-Wave cloud: no answer in time from "
                f"{_endpoint_and_timeout(client, source)} ({detail}); check the network, proxy "
                "or endpoint, raise [sampler.options] request_timeout (or polling_timeout), "
                f"{_OFFLINE_HINT}")
    elif isinstance(exc, (cloud.SolverOfflineError, api.InternalServerError)):
        text = f"the D-Wave {what} solver is offline or failing ({detail}); retry later {_OFFLINE_HINT}"
    elif isinstance(exc, cloud.SolverFailureError):
        text = (f"the D-Wave {what} solver rejected or failed the problem ({detail}); check the "
                "sampling parameters")
    elif isinstance(exc, network):  # the timeouts are above
        text = (f"cannot reach the D-Wave cloud ({detail}); check the network, proxy or region, "
                f"{_OFFLINE_HINT}")
    elif isinstance(exc, ConfigFileError):
        text = f"cannot read the D-Wave configuration ({detail}); fix it or run 'dwave config create'"
    elif constructing and isinstance(exc, ValueError) and "token" in msg.lower():
        # not "token: set ...": stderr masks a value after "token:" as a credential
        text = ("no D-Wave API token found: set DWAVE_API_TOKEN or run 'dwave config create' "
                f"(choose a profile with [sampler.options] profile = \"NAME\"), {_OFFLINE_HINT}")
    elif constructing and isinstance(exc, ValueError) and "profile" in msg.lower():
        text = f"{msg}; 'dwave config ls' lists the config files, 'dwave config create --profile NAME' adds one"
    elif constructing and isinstance(exc, ValueError):
        text = f"D-Wave configuration problem ({detail}); check 'dwave config' and [sampler.options]"
    else:
        return None
    return BackendUnavailableError(text)


def _config_paths(config_file) -> list[tuple[str, str]]:
    """The D-Wave configuration files ``load_config(config_file=...)`` would open, each with
    where it came from (as :func:`dwave.cloud.config.load_config` picks them)."""
    if config_file is False:
        return []
    if config_file is None or config_file is True:
        env = os.environ.get("DWAVE_CONFIG_FILE")
        if env and config_file is None:
            return [(env, "DWAVE_CONFIG_FILE")]
        from dwave.cloud.config import get_configfile_paths

        return [(p, "D-Wave's configuration path") for p in get_configfile_paths()]
    if isinstance(config_file, str):
        return [(config_file, "config_file")]
    return [(p, "config_file") for p in config_file if isinstance(p, str)]


def check_config_files(client: dict | None = None) -> None:
    """Refuse a D-Wave configuration file that is not a regular file (a FIFO would block the
    first read forever, a directory or device is no config) before anything opens it:
    a :class:`BackendUnavailableError` (exit 3; ``--fallback`` runs as for a missing
    token).  A missing file is left to D-Wave's own error."""
    for path, source in _config_paths((client or {}).get("config_file")):
        full = os.path.expandvars(os.path.expanduser(path))
        try:
            mode = os.stat(full).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode):
            kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "a device" if
                    stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
            raise BackendUnavailableError(
                f"the D-Wave configuration file {path!r} (from {source}) is {kind}, not a regular "
                "file; point it at a dwave.conf written by 'dwave config create', "
                f"{_OFFLINE_HINT}")


def client_options(client: dict) -> dict:
    """``client`` with :data:`CLIENT_DEFAULTS` as the client's defaults (which a value of
    ``dwave.conf``, the environment or the options overrides).

    >>> client_options({"solver": "x"})["defaults"]["request_timeout"]
    30.0
    """
    return {**client, "defaults": dict(CLIENT_DEFAULTS)}


def connect(what: str, cls, client: dict):
    """``cls`` (a dwave-system sampler) built from the client options ``client`` with
    :data:`CLIENT_DEFAULTS`, its failures re-raised by :func:`cloud_errors`."""
    with cloud_errors(what, constructing=True, client=client):
        return cls(**client_options(client))


@contextlib.contextmanager
def cloud_errors(what: str, constructing: bool = False, client: dict | None = None, source=None):
    """Re-raise D-Wave cloud failures as one-line :class:`BackendUnavailableError` (no
    traceback chain: the original message might quote a token).  ``constructing``: a
    client is being created from the options ``client``, so its configuration files are
    checked (:func:`check_config_files`) and D-Wave's logging redacts their credentials
    (:func:`~qsudoku.samplers.redact.install_log_redaction`).  ``source``: the connected
    sampler (its ``client`` names the endpoint and timeout of a request that timed out)."""
    if constructing:
        check_config_files(client)
        install_log_redaction((client or {}).get("config_file"), client)
    try:
        yield
    except (BackendUnavailableError, ConfigError):
        raise
    except Exception as e:  # noqa: BLE001 - filtered by _translate
        err = _translate(e, what, constructing, client, source)
        if err is None:
            raise
        raise err from None


def check_credentials(what: str, client: dict) -> None:
    """Read D-Wave's configuration for the client options ``client`` and fail as a client
    would on a missing token, profile or unreadable file, without building a client or
    touching the network (a Leap hybrid sampler connects once its model fits)."""
    from dwave.cloud.config import load_config

    with cloud_errors(what, constructing=True, client=client):
        config = load_config(**client)
        if not config.get("token"):
            raise ValueError("API token not defined")


def split_options(name: str, options: dict, client_keys=CLIENT_OPTIONS, local_keys=()):
    """Split sampler options into ours and dwave-cloud-client's; refuse tokens and unknown keys."""
    local, client = {}, {}
    for key, value in options.items():
        if any(w in key.lower() for w in _SECRET_WORDS):
            raise ConfigError(f"sampler option {key!r} looks like a credential; tokens never go in "
                              "qsudoku options: set DWAVE_API_TOKEN or run 'dwave config create'")
        if key in local_keys:
            local[key] = value
        elif key in client_keys:
            if key in ("request_timeout", "polling_timeout") and value is not None and (
                    isinstance(value, bool) or not isinstance(value, (int, float))
                    or not 0 < value <= MAX_TIMEOUT):
                raise ConfigError(f"sampler {name!r}: {key} = {value!r} must be a number of "
                                  f"seconds > 0 and at most {MAX_TIMEOUT:g} (a week)")
            client[key] = value
        else:
            raise ConfigError(f"sampler {name!r} has no option {key!r}; options: "
                              f"{', '.join(sorted((*local_keys, *client_keys)))}")
    return local, client


def plain(x):
    """JSON-friendly copy of an ``info`` value (numpy scalars, tuples, classes, ...)."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set)):
        return [plain(v) for v in x]
    if isinstance(x, (str, bool, int)) or x is None:
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, np.generic):
        return plain(x.item())
    return getattr(x, "__name__", None) or str(x)
