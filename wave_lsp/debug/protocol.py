"""Debug Adapter Protocol framing: `Content-Length` headers around JSON messages, over binary
streams (the adapter's stdin and stdout).

Messages are requests (`{"type": "request", "command", "arguments"}`), responses and events;
every message the adapter sends carries its own increasing `seq`. Writing is thread-safe: the
execution thread sends `stopped` and `output` events while the reader thread answers requests.
"""

from __future__ import annotations

import json
import threading
from typing import Any, BinaryIO


class ProtocolError(Exception):
    """The input stream is not framed DAP (bad header, bad JSON)."""


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            if length is None:
                continue            # stray blank line between messages
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise ProtocolError(f"bad Content-Length header: {line!r}") from None
    body = stream.read(length)
    if len(body) < length:
        return None
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ProtocolError(f"message is not JSON: {err}") from None
    if not isinstance(message, dict):
        raise ProtocolError("message is not a JSON object")
    return message


class Channel:
    """Sends responses and events with increasing sequence numbers."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.seq = 0
        self.lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            self.seq += 1
            message["seq"] = self.seq
            body = json.dumps(message, separators=(",", ":")).encode("utf-8")
            try:
                self.stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass                # the client went away; the reader will see the end

    def event(self, name: str, body: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"type": "event", "event": name}
        if body is not None:
            message["body"] = body
        self.send(message)

    def respond(self, request: dict[str, Any], body: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"type": "response", "request_seq": request.get("seq", 0),
                                   "command": request.get("command", ""), "success": True}
        if body is not None:
            message["body"] = body
        self.send(message)

    def fail(self, request: dict[str, Any], text: str, show_user: bool = True) -> None:
        self.send({"type": "response", "request_seq": request.get("seq", 0),
                   "command": request.get("command", ""), "success": False, "message": text,
                   "body": {"error": {"id": 1, "format": text, "showUser": show_user}}})
