"""Answering `initialize` before the protocol libraries are loaded.

Importing lsprotocol's type definitions takes about half a second, longer than an editor should
wait for the server's first answer. On stdio, the first message is read here with nothing but
the standard library. When the same client (same initialize parameters, apart from its process
id) has started this same server before, the response pygls produced then is stored in the user
cache, and it is sent at once; pygls still receives the `initialize` request, so its state is
exactly as usual, and its own (identical) response is dropped. Otherwise pygls answers and its
response is stored for next time.

The cache key covers the parameters, the wave-lsp version, the source of every server module,
the pygls and lsprotocol versions and the emulator engine (the answer names it), so a changed
server never reuses an old answer. The answers used last are kept (`KEPT`; an answer sent from
the cache counts as used), the others deleted when a new one is stored: one per workspace,
client and version would otherwise pile up for good.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import BinaryIO

from ..cache import cache_dir, keep_newest, package_stamp, write_atomically
from ..ide.engine import engine
from ..files import read_regular

HEADER_END = b"\r\n\r\n"
KEPT = 64          # initialize answers kept in the cache: more than one person's clients use
PATTERN = "initialize-*.json"


def read_first_message(fd: int) -> tuple[bytes, dict | None]:
    """Everything read from `fd` (at least the first message, possibly more) and that message
    decoded, or None when it is not a well-formed JSON-RPC message."""
    data = b""
    while HEADER_END not in data:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return data, None
        data += chunk
    head, _, rest = data.partition(HEADER_END)
    length = None
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = int(value.strip())
    if length is None:
        return data, None
    while len(rest) < length:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return data, None
        data += chunk
        rest += chunk
    try:
        message = json.loads(rest[:length])
    except ValueError:
        return data, None
    return data, message if isinstance(message, dict) else None


def cache_path(params: dict) -> Path:
    """Where the response for these initialize parameters is kept."""
    from .. import __version__

    keyed = {k: v for k, v in params.items() if k != "processId"}
    digest = hashlib.sha256(json.dumps(keyed, sort_keys=True).encode())
    digest.update(f"{__version__} {package_stamp('pygls')} {package_stamp('lsprotocol')}".encode())
    digest.update(repr(engine()).encode())        # the result names the engine (native or not)
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.read_bytes())
    return cache_dir() / PATTERN.replace("*", digest.hexdigest()[:32])


def send(stdout: BinaryIO, message: dict) -> None:
    body = json.dumps(message).encode("utf-8")
    stdout.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdout.flush()


class InitializeFilter:
    """Stands between pygls and stdout: drops pygls' answer to the initialize request when it
    was already sent from the cache, or stores it in the cache when it was not."""

    def __init__(self, stdout: BinaryIO, request_id, path: Path | None, answered: bool) -> None:
        self._stdout = stdout
        self._id = request_id
        self._path = path
        self._answered = answered
        self._done = False

    def write(self, data: bytes) -> None:
        stored = False
        if not self._done and self._is_response(data):
            self._done = True
            if self._answered:
                return
            stored = self._store(data)
        self._stdout.write(data)
        self._stdout.flush()
        if stored:              # after the answer went out: the client waits for nothing
            keep_newest(PATTERN, KEPT)

    def flush(self) -> None:
        self._stdout.flush()

    def close(self) -> None:
        self._stdout.close()

    def _is_response(self, data: bytes) -> bool:
        _, _, body = data.partition(HEADER_END)
        if b'"id"' not in body:
            return False
        try:
            message = json.loads(body)
        except ValueError:
            return False
        return isinstance(message, dict) and message.get("id") == self._id and (
            "result" in message or "error" in message)

    def _store(self, data: bytes) -> bool:
        """Keep the answer for the next start; whether it was kept."""
        if self._path is None:
            return False
        message = json.loads(data.partition(HEADER_END)[2])
        if "result" not in message:
            return False
        try:
            write_atomically(self._path, json.dumps(message["result"]).encode("utf-8"))
        except OSError:
            return False
        return True


def early_initialize(stdin: BinaryIO, stdout: BinaryIO) -> tuple[bytes, InitializeFilter | BinaryIO]:
    """Read the first message; answer it from the cache when possible. Returns the bytes read
    (for the real server to process) and the stream the server must write to."""
    try:
        fd = stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return b"", stdout
    data, message = read_first_message(fd)
    if not message or message.get("method") != "initialize" or "id" not in message:
        return data, stdout
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    path: Path | None = None
    cached = None
    try:
        path = cache_path(params)
        cached = json.loads(read_regular(path, 1 << 20).decode("utf-8"))
    except (OSError, ValueError):
        pass
    if cached is not None:
        send(stdout, {"jsonrpc": "2.0", "id": message["id"], "result": cached})
        try:
            os.utime(path)            # used now: the last to be deleted
        except OSError:
            pass
    return data, InitializeFilter(stdout, message["id"], path, answered=cached is not None)
