"""Debug Adapter Protocol framing: `Content-Length` headers around JSON messages, over binary
streams (the adapter's stdin and stdout), cut by the framing shared with the language server.

Messages are requests (`{"type": "request", "command", "arguments"}`), responses and events;
every message the adapter sends carries its own increasing `seq`. Writing is thread-safe: the
execution thread sends `stopped` and `output` events while the reader thread answers requests.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any, BinaryIO, Callable, Iterator

from ..framing import CHUNK, Deframer, FramingError, decode_json, frame


def read_messages(stream: BinaryIO, report: Callable[[str], None]) -> Iterator[dict[str, Any]]:
    """The messages on `stream` until its end, cut by the framing the language server uses
    (`wave_lsp.framing`): a malformed frame or body is reported (`report(reason)`) and skipped,
    and reading resumes at the next message."""
    deframer = Deframer(report)
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    while True:
        try:
            chunk = os.read(fd, CHUNK) if fd is not None else stream.read1(CHUNK)
        except (OSError, ValueError):
            chunk = b""
        if not chunk:
            deframer.finish()
            return
        deframer.feed(chunk)
        while (body := deframer.next_body()) is not None:
            try:
                yield decode_json(body)
            except FramingError as err:
                report(str(err))


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
                self.stream.write(frame(body))
                self.stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass                # the client went away; the reader will see the end

    def event(self, name: str, body: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"type": "event", "event": name}
        if body is not None:
            message["body"] = body
        self.send(message)

    def respond(self, request: dict[str, Any], body: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"type": "response", **_answering(request), "success": True}
        if body is not None:
            message["body"] = body
        self.send(message)

    def fail(self, request: dict[str, Any], text: str, show_user: bool = True) -> None:
        self.send({"type": "response", **_answering(request), "success": False, "message": text,
                   "body": {"error": {"id": 1, "format": text, "showUser": show_user}}})


def _answering(request: dict[str, Any]) -> dict[str, Any]:
    """The `request_seq` and `command` of a response: the request's when they have their types
    (an integer, a string), 0 and "" otherwise."""
    seq, command = request.get("seq"), request.get("command")
    return {"request_seq": seq if isinstance(seq, int) and not isinstance(seq, bool) else 0,
            "command": command if isinstance(command, str) else ""}
