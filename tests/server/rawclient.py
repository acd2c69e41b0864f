"""A raw JSON-RPC client over a real `wave-lsp serve` subprocess: it writes exactly the bytes a
test gives it (malformed ones included) and reads the server's framed messages; and the servers
the tests of a module share (`SharedServers`), each test under names of its own (`Fresh`)."""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from tests.forkserver import serve_command

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
        self.proc = subprocess.Popen(serve_command(*args, env=env),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.messages: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
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
        # the reader sees the output end first (a forked server's ends a moment after its
        # shim: the fork server kills it then), not a stream closed under it
        self._reader.join(10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


class SharedServers:
    """Servers the tests of one module share, one per name (a set of initialization options),
    each started by `start(folder, *args)` when a test first asks for it. A test on a shared
    server uses documents and request ids of its own (`Fresh`). A test that fails stops its
    server, so that what it left behind (a job of ten minutes, a half-read message) is no later
    test's business: the next test of that name starts a fresh one."""

    def __init__(self, folder: Callable[[str], Path], start: Callable[..., RawClient]) -> None:
        self.folder = folder
        self.start = start
        self.started: dict[str, RawClient] = {}

    @contextmanager
    def session(self, name: str, *args, **kwargs) -> Iterator[RawClient]:
        client = self.started.get(name)
        if client is None or client.proc.poll() is not None:
            client = self.started[name] = self.start(self.folder(name), *args, **kwargs)
        client.seen = []
        try:
            yield client
        except BaseException:
            self.started.pop(name).close()
            raise

    def close(self) -> None:
        for client in self.started.values():
            client.close()


_fresh = itertools.count()


class Fresh:
    """A test's own names on a shared server: document URIs and request ids no other test
    uses."""

    def __init__(self) -> None:
        self.number = next(_fresh)

    def uri(self, name: str = "doc") -> str:
        return f"file:///tmp/wave-lsp-shared/{name}-{self.number}.wave"

    def id(self, n: int) -> str:
        return f"{self.number}.{n}"
