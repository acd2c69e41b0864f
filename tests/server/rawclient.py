"""A raw JSON-RPC client over a real `wave-lsp serve` subprocess: it writes exactly the bytes a
test gives it (malformed ones included) and reads the server's framed messages."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO, Iterator

INIT_PARAMS = {"processId": None, "rootUri": None, "capabilities": {}}


def frame(message: dict | bytes, header: bytes | None = None) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    if header is None:
        header = b"Content-Length: %d\r\n\r\n" % len(body)
    return header + body


def read_messages(stream: BinaryIO) -> Iterator[dict]:
    """The framed JSON messages the server writes, until its output ends."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                return
            if line == b"\r\n":
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        body = stream.read(length)
        if len(body) < length:
            return          # the server was stopped while it wrote: its output ends here
        yield json.loads(body)


class RawClient:
    def __init__(self, cache: Path, args: tuple[str, ...] = (),
                 env: dict[str, str] | None = None) -> None:
        env = dict(os.environ, XDG_CACHE_HOME=str(cache), **(env or {}))
        self.proc = subprocess.Popen([sys.executable, "-m", "wave_lsp", "serve", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr: list[bytes] = []
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self) -> None:
        for line in self.proc.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def _read(self) -> None:
        for message in read_messages(self.proc.stdout):
            self.messages.put(message)
        self.messages.put(None)

    def send(self, data: bytes | dict) -> None:
        self.proc.stdin.write(data if isinstance(data, bytes) else frame(data))
        self.proc.stdin.flush()

    def request(self, msg_id, method: str, params=None) -> None:
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def notify(self, method: str, params=None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def next(self, timeout: float = 20.0) -> dict | None:
        return self.messages.get(timeout=timeout)

    def response(self, msg_id, timeout: float = 30.0) -> dict:
        """The response to `msg_id` (other messages before it are kept in `self.seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.1, deadline - time.monotonic()))
            assert message is not None, f"the server closed its output; stderr:\n{self.stderr}"
            self.seen.append(message)
            if message.get("id") == msg_id and "method" not in message:
                return message

    seen: list

    def errors_with_null_id(self) -> list[dict]:
        return [m for m in self.seen if "error" in m and m.get("id") is None]

    def initialize(self) -> dict:
        self.seen = []
        self.request(0, "initialize", INIT_PARAMS)
        answer = self.response(0)
        self.notify("initialized", {})
        return answer

    def wait(self, timeout: float = 30.0) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
