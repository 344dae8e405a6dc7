"""A TCP listener that accepts every connection and never answers, for tests of bounded waits."""

from __future__ import annotations

import contextlib
import socket
import threading


@contextlib.contextmanager
def mute_listener(backlog: int = 64):
    """Yield the port of a listener on 127.0.0.1 that accepts connections, holds them open
    and never sends a byte; everything is closed on exit."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(backlog)
    held: list = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()
