"""A `wave-lsp serve --tcp/--ws` subprocess on 127.0.0.1 and raw clients for it: a TCP peer that
writes exactly the bytes a test gives it and reads the server's framed messages, and WebSocket
connections. Every wait is bounded."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import threading
import time
from pathlib import Path

from tests.forkserver import serve_command

from .rawclient import INIT_PARAMS, frame, read_messages

HOVER = {"textDocument": {"uri": "file:///tmp/t.wave"}, "position": {"line": 0, "character": 0}}


class NetServer:
    """The server subprocess, listening on 127.0.0.1:`port` (`transport` "tcp" or "ws")."""

    def __init__(self, transport: str, port: int, cache: Path) -> None:
        self.address = ("127.0.0.1", port)
        env = dict(os.environ, XDG_CACHE_HOME=str(cache))
        self.proc = subprocess.Popen(
            serve_command(f"--{transport}", f"127.0.0.1:{port}", env=env),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=env)
        self._stderr: list[bytes] = []      # drained, so that a full pipe never blocks it
        threading.Thread(target=lambda: self._stderr.extend(self.proc.stderr),
                         daemon=True).start()

    def wait_listening(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                # a probe: it closes its side and waits until the server has let it go (a
                # connection that never initializes is not the server's client)
                with socket.create_connection(self.address, timeout=30) as probe:
                    probe.shutdown(socket.SHUT_WR)
                    while probe.recv(4096):
                        pass
                return
            except OSError:
                assert self.proc.poll() is None, self.stderr()
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.1)

    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)


class TcpPeer:
    """One TCP connection to the server."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.sock = socket.create_connection(address, timeout=30)
        self.messages: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        self.closed = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for message in read_messages(self.sock.makefile("rb")):
                self.messages.put(message)
        except (OSError, ValueError):
            pass
        self.closed.set()
        self.messages.put(None)

    def send(self, data: bytes | dict) -> None:
        self.sock.sendall(data if isinstance(data, bytes) else frame(data))

    def request(self, msg_id, method: str, params=None) -> None:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method,
                   **({"params": params} if params is not None else {})})

    def notify(self, method: str, params=None) -> None:
        self.send({"jsonrpc": "2.0", "method": method,
                   **({"params": params} if params is not None else {})})

    def next(self, timeout: float = 30) -> dict | None:
        return self.messages.get(timeout=timeout)

    def response(self, msg_id, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.1, deadline - time.monotonic()))
            assert message is not None, "the server closed the connection"
            self.seen.append(message)
            if message.get("id") == msg_id and "method" not in message:
                return message

    def initialize(self) -> dict:
        self.request(0, "initialize", INIT_PARAMS)
        answer = self.response(0)
        self.notify("initialized", {})
        return answer

    def still_answers(self, msg_id) -> None:
        self.request(msg_id, "textDocument/hover", HOVER)
        assert "result" in self.response(msg_id)

    def close(self) -> None:
        self.sock.close()


def ws_connect(address: tuple[str, int], **options):
    from websockets.sync.client import connect
    return connect(f"ws://{address[0]}:{address[1]}", open_timeout=30, **options)


def ws_send(ws, message: dict) -> None:
    ws.send(json.dumps(dict(message, jsonrpc="2.0")))


def ws_until(ws, found, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if found(message):
            return message
