"""The warm debug adapter: `wave-lsp debug --server` loads the debugger once and then serves
debug sessions over sockets, each connection one whole session (its own `Adapter` and `Session`,
nothing shared), for as long as it lives, so an editor's "Debug at this moment" pays neither a
process start nor the debugger's imports.

Where it listens: a Unix socket in a directory only this user can enter (POSIX, the default),
or TCP on 127.0.0.1 (`--port N`, 0 for any free port; and where Unix sockets are missing). Once
it listens it prints one JSON line on stdout, `{"socket": PATH}` or `{"port": N}`, which the
editor reads to connect. It exits when its stdin ends (the editor that started it went away)
or on SIGTERM; sessions still open end with it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading

from .adapter import serve


class _Received:
    """A socket read as `read_messages` reads a pipe (`read1`), portable where `os.read` on a
    socket is not."""

    def __init__(self, connection: socket.socket):
        self.connection = connection

    def read1(self, size: int) -> bytes:
        return self.connection.recv(size)


def _session(connection: socket.socket) -> None:
    """One debug session over `connection`, closed when it ends (never raises: a broken
    connection ends its own session only)."""
    try:
        with connection, connection.makefile("wb") as out:
            serve(_Received(connection), out)
    except OSError:
        pass


def _listening(port: int | None) -> tuple[socket.socket, dict, str | None]:
    """The listening socket, what to announce, and the private directory to remove after."""
    if port is None and hasattr(socket, "AF_UNIX"):
        folder = tempfile.mkdtemp(prefix="wave-dap-")        # mode 0700: this user only
        path = os.path.join(folder, "adapter.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        return listener, {"socket": path}, folder
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", port or 0))
    return listener, {"port": listener.getsockname()[1]}, None


def listen(port: int | None = None, stdin=None, stdout=None) -> int:
    """Serve sessions until `stdin` ends (a session per connection, on its own thread)."""
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    try:
        listener, where, folder = _listening(port)
    except OSError as err:
        print(f"wave-lsp debug: cannot listen: {err.strerror or err}", file=sys.stderr)
        return 1
    listener.listen(8)

    def stop() -> None:
        listener.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def terminated(*_) -> None:
        # an editor that exits ends our stdin and sends SIGTERM at once: the signal can come
        # while `finally` below cleans up, and the exit it raises would cut that short
        stop()
        sys.exit(0)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminated)
    threading.Thread(target=_accept, args=(listener,), daemon=True).start()
    print(json.dumps(where), file=stdout, flush=True)
    try:
        while stdin.read(4096):
            pass                                  # the editor writes nothing; its end is ours
    except (OSError, ValueError, KeyboardInterrupt):
        pass
    finally:
        stop()
    return 0


def _accept(listener: socket.socket) -> None:
    while True:
        try:
            connection, _ = listener.accept()
        except OSError:
            return                                # closed: the server is ending
        threading.Thread(target=_session, args=(connection,), daemon=True).start()
