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

import numpy as np

from qsudoku.errors import BackendUnavailableError, ConfigError
from qsudoku.samplers.redact import install_log_redaction, scrub

__all__ = ["CLIENT_OPTIONS", "DEFAULT_LABEL", "cloud_errors", "check_credentials", "split_options",
           "plain"]

#: dwave-cloud-client options accepted as sampler options (``token`` is not one of them).
CLIENT_OPTIONS = ("profile", "config_file", "solver", "region", "endpoint", "proxy",
                  "request_timeout", "polling_timeout", "permissive_ssl", "headers")
_SECRET_WORDS = ("token", "password", "secret")
DEFAULT_LABEL = "qsudoku"


# -- errors -------------------------------------------------------------------------------------

_OFFLINE_HINT = "or run offline with --fallback sa"


def _translate(exc: BaseException, what: str, constructing: bool):
    """The :class:`BackendUnavailableError` for a D-Wave cloud failure (``None`` if not one)."""
    import requests
    from dwave.cloud.api import exceptions as api
    from dwave.cloud import exceptions as cloud
    from dwave.cloud.config.exceptions import ConfigFileError

    name, msg = type(exc).__name__, scrub(str(exc))
    detail = f"{name}: {msg}" if msg else name
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
    elif isinstance(exc, (cloud.SolverOfflineError, api.InternalServerError)):
        text = f"the D-Wave {what} solver is offline or failing ({detail}); retry later {_OFFLINE_HINT}"
    elif isinstance(exc, cloud.SolverFailureError):
        text = (f"the D-Wave {what} solver rejected or failed the problem ({detail}); check the "
                "sampling parameters")
    elif isinstance(exc, (requests.exceptions.RequestException, ConnectionError, TimeoutError,
                          cloud.PollingTimeout, cloud.ProblemUploadError)):
        text = (f"cannot reach the D-Wave cloud ({detail}); check the network, proxy or region, "
                f"{_OFFLINE_HINT}")
    elif isinstance(exc, ConfigFileError):
        text = f"cannot read the D-Wave configuration ({detail}); fix it or run 'dwave config create'"
    elif constructing and isinstance(exc, ValueError) and "token" in msg.lower():
        text = ("no D-Wave API token: set DWAVE_API_TOKEN or run 'dwave config create' (choose a "
                f"profile with [sampler.options] profile = \"NAME\"), {_OFFLINE_HINT}")
    elif constructing and isinstance(exc, ValueError) and "profile" in msg.lower():
        text = f"{msg}; 'dwave config ls' lists the config files, 'dwave config create --profile NAME' adds one"
    elif constructing and isinstance(exc, ValueError):
        text = f"D-Wave configuration problem ({detail}); check 'dwave config' and [sampler.options]"
    else:
        return None
    return BackendUnavailableError(text)


@contextlib.contextmanager
def cloud_errors(what: str, constructing: bool = False, client: dict | None = None):
    """Re-raise D-Wave cloud failures as one-line :class:`BackendUnavailableError` (no traceback chain,
    so the original message, which might quote a token, is never shown).  ``constructing``:
    a client is being created from the options ``client``, so D-Wave's logging is made to
    redact first the token and every credential of those options (header values, URL
    passwords) and of their ``config_file``
    (:func:`~qsudoku.samplers.redact.install_log_redaction`)."""
    if constructing:
        install_log_redaction((client or {}).get("config_file"), client)
    try:
        yield
    except (BackendUnavailableError, ConfigError):
        raise
    except Exception as e:  # noqa: BLE001 - filtered by _translate
        err = _translate(e, what, constructing)
        if err is None:
            raise
        raise err from None


def check_credentials(what: str, client: dict) -> None:
    """Read D-Wave's configuration for the client options ``client`` (config file, profile,
    environment) and fail as a client would on a missing token, profile or unreadable
    file, without building a client or touching the network (a Leap hybrid sampler
    connects later, when it has a model that fits the solver's limits)."""
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
