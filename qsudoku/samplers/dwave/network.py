"""What failed underneath a D-Wave request: the network cause read from an exception chain.

dwave-cloud-client reports every failed connection as a ``RequestTimeout``, so a host name
that does not resolve, a refused connection and no network all read "API request timed
out".  :func:`network_cause` walks the chain below that error to the socket error that
happened, so that the message names it and gives the advice that applies.

>>> import socket
>>> try:
...     raise ConnectionError("API request timed out") from socket.gaierror(
...         socket.EAI_NONAME, "Name or service not known")
... except ConnectionError as e:
...     network_cause(e)
Cause(text='the host name of the endpoint does not resolve (Name or service not known)', timeout=False)
"""

from __future__ import annotations

import errno
import socket
from typing import NamedTuple

__all__ = ["Cause", "network_cause", "exception_chain"]

#: ``errno`` values of a machine with no usable network (no interface up, no route).
_NO_NETWORK = {errno.ENETUNREACH: "the network is unreachable", errno.ENETDOWN: "the network is down"}


class Cause(NamedTuple):
    """What a failed request ran into.

    Attributes:
        text: The cause in words (``"the host name x.invalid does not resolve (...)"``).
        timeout: True only for a real timeout (no answer within the wait); advice to raise
            ``request_timeout`` applies to it and to nothing else.
    """

    text: str
    timeout: bool


def exception_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception it was raised from or wraps, outermost first, each once.

    >>> try:
    ...     raise KeyError("outer") from ValueError("inner")
    ... except KeyError as e:
    ...     [type(x).__name__ for x in exception_chain(e)]
    ['KeyError', 'ValueError']
    """
    seen: list[BaseException] = []
    todo: list = [exc]
    while todo:
        x = todo.pop(0)
        if not isinstance(x, BaseException) or any(x is s for s in seen):
            continue
        seen.append(x)
        wrapped = x.args[0] if x.args else None  # requests: ConnectionError(MaxRetryError)
        todo += [getattr(x, "reason", None), wrapped, x.__cause__, x.__context__]
    return seen


def _host(chain) -> str:
    """``"host"`` or ``"host:port"`` of the connection that failed, if the chain names it
    (urllib3's errors carry their connection or pool), else ``""``."""
    for x in chain:
        attrs = getattr(x, "__dict__", {})  # not urllib3's deprecated ``pool`` property
        for holder in (attrs.get("conn"), attrs.get("pool")):
            host = getattr(holder, "host", None)
            if isinstance(host, str) and host:
                port = getattr(holder, "port", None)
                return f"{host}:{port}" if port else host
    return ""


def network_cause(exc: BaseException) -> Cause | None:
    """The network cause of the failed request ``exc``, or ``None`` if its chain names none
    (then the request failed for a reason that is no network's, e.g. a TLS error).

    In this order: a name that does not resolve (or cannot be looked up: no network or no
    DNS server), a refused connection, no network, another failed connection, a timeout.
    """
    chain = exception_chain(exc)
    where = _host(chain)
    host = where.rsplit(":", 1)[0] if where else "of the endpoint"
    for x in chain:
        if isinstance(x, socket.gaierror):
            why = x.strerror or str(x)
            if x.errno == socket.EAI_AGAIN:
                return Cause(f"the host name {host} could not be looked up: no network, or no "
                             f"DNS server answers ({why})", False)
            return Cause(f"the host name {host} does not resolve ({why})", False)
    for x in chain:
        if isinstance(x, ConnectionRefusedError):
            return Cause(f"{where or 'the endpoint'} refused the connection (nothing listens "
                         "there)", False)
    for x in chain:
        if isinstance(x, OSError) and x.errno in _NO_NETWORK:
            return Cause(f"no network: {_NO_NETWORK[x.errno]}", False)
        if isinstance(x, OSError) and x.errno == errno.EHOSTUNREACH:
            return Cause(f"no route to {where or 'the endpoint'}", False)
    failed = [x for x in chain if _kinds(x) & {"NewConnectionError"}]
    if failed:  # a connection that failed for another reason: the deepest error says which
        last = chain[-1]
        return Cause(f"no connection to {where or 'the endpoint'} ({type(last).__name__}: "
                     f"{last})", False)
    if any(_kinds(x) & _TIMEOUTS or isinstance(x, TimeoutError) for x in chain):
        return Cause("no answer in time", True)
    return None


#: Class names of timeouts in requests, urllib3 and dwave-cloud-client (matched by name, so
#: that no module is imported for the check).
_TIMEOUTS = {"Timeout", "TimeoutError", "ReadTimeoutError", "ConnectTimeoutError",
             "RequestTimeout", "PollingTimeout"}


def _kinds(x: BaseException) -> set[str]:
    """The class names of ``x``'s type and of its bases."""
    return {k.__name__ for k in type(x).__mro__}
