"""The server's answers arrive whole even when its output pipe is non-blocking.

The non-blocking flag belongs to the open pipe, which every process holding it shares: any of
them may set it. A buffered stdout then gives up in the middle of a large message once the pipe
is full (the client is slower than the server), and the client waits forever for the rest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

from wave_lsp.framing import WholeWriter

from .rawclient import INIT_PARAMS, frame, read_messages
from .test_editor_jobs import long_text


def _slow_reader(fd: int, into: bytearray, delay: float) -> threading.Thread:
    def read() -> None:
        time.sleep(delay)                     # the pipe fills meanwhile
        while chunk := os.read(fd, 4096):
            into.extend(chunk)
            time.sleep(0.0005)
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_a_buffered_stream_loses_the_rest_of_a_message_on_a_full_non_blocking_pipe():
    """What goes wrong without `WholeWriter` (so the test below can fail)."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    received = bytearray()
    reader = _slow_reader(r, received, 0.5)
    stream = os.fdopen(w, "wb")
    message = bytes(range(256)) * 4096          # 1 MiB
    try:
        stream.write(message)
        stream.flush()
        lost = False
    except BlockingIOError:
        lost = True
    finally:
        try:
            stream.close()
        except BlockingIOError:
            pass
    reader.join(10)
    assert lost and len(received) < len(message)


def test_the_whole_writer_waits_for_room_and_writes_everything():
    r, w = os.pipe()
    os.set_blocking(w, False)
    received = bytearray()
    reader = _slow_reader(r, received, 0.5)
    with os.fdopen(w, "wb") as stream:
        writer = WholeWriter(stream)
        messages = [bytes([i]) * (300_000 + i) for i in range(3)]
        for message in messages:
            assert writer.write(message) == len(message)
    reader.join(30)
    assert bytes(received) == b"".join(messages)
    assert writer.nonblocking_seen > 0


def test_the_server_answers_whole_through_a_non_blocking_pipe(tmp_path):
    """A real `wave-lsp serve` whose stdout pipe the client made non-blocking, read slowly: the
    semantic tokens of a 20,000-line document (hundreds of KB) arrive whole, and the server says
    in its log what it met."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    log = tmp_path / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "wave_lsp", "serve", "--log-file", str(log)],
                            stdin=subprocess.PIPE, stdout=w, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path)))
    os.close(w)
    uri = "file:///tmp/big.wave"
    for message in (
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT_PARAMS},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": uri, "languageId": "wave", "version": 1, "text": long_text(7, 20_000)}}},
            {"jsonrpc": "2.0", "id": 1, "method": "textDocument/semanticTokens/full",
             "params": {"textDocument": {"uri": uri}}}):
        proc.stdin.write(frame(message))
    proc.stdin.flush()
    received = bytearray()
    reader = _slow_reader(r, received, 2.0)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            messages = list(_whole_messages(bytes(received)))
            if any(m.get("id") == 1 for m in messages):
                break
            time.sleep(0.2)
        answer = next((m for m in _whole_messages(bytes(received)) if m.get("id") == 1), None)
        assert answer is not None, f"no whole answer in {len(received)} bytes"
        assert len(answer["result"]["data"]) > 100_000
    finally:
        proc.stdin.close()
        proc.kill()
        proc.wait()
    assert "non-blocking" in log.read_text(encoding="utf-8")


def _whole_messages(data: bytes):
    import io
    try:
        yield from read_messages(io.BytesIO(data))
    except json.JSONDecodeError:          # a body spliced with the next message: data lost
        return
