"""The stdio transport: reading the client's byte stream, framing messages, and the lifecycle
rules of the Language Server Protocol that sit below any feature.

A thread reads whatever bytes stdin has and hands them to the event loop; `serve` then frames and
dispatches every message already received before any request task takes its first step, so a
request cancelled while still queued is never computed.

Framing follows the base protocol (header lines `Name: value` ended by an empty line, then
`Content-Length` bytes of JSON), read the way HTTP headers are: names in any case, optional space
after the colon. A bad message never deafens the session: a header without a valid length, a
length that runs into the next header, or a body that is not JSON is answered with a JSON-RPC
`-32700 Parse error` (id null), and reading resumes at the next `Content-Length` header. (No JSON
body can contain one: a JSON string cannot hold a raw line break.)

Lifecycle (LSP "Server lifecycle"): before `initialize`, requests get `-32002
ServerNotInitialized` and notifications are dropped; after `shutdown`, requests get `-32600
InvalidRequest`; `exit` ends the server with status 0 after `shutdown`, 1 without. A request whose
parameters do not have the protocol's shape gets `-32602 InvalidParams`; a message that is not a
JSON-RPC 2.0 request, notification or response gets `-32600`. Every request is answered: one
whose dispatch fails gets `-32603 InternalError`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from typing import Any, BinaryIO, Callable

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

CHUNK = 1 << 16
MAX_HEADER_BYTES = 1 << 16     # a header block longer than this is junk
MAX_CONTENT_LENGTH = 1 << 30   # the most one message may announce

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603
SERVER_NOT_INITIALIZED = -32002

_HEADER_END = b"\r\n\r\n"
# A Content-Length header line: where a message starts. It cannot occur inside a JSON body.
_LENGTH_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*([+-]?\d+)[ \t]*\r\n", re.IGNORECASE)
_HEADER_LINE = re.compile(rb"([!-9;-~]+)[ \t]*:[ \t]*(.*)")

logger = logging.getLogger("wave_lsp.server")


def _no_traceback_for_client_errors(record: logging.LogRecord) -> bool:
    """pygls logs a full traceback for every message whose params have the wrong shape and for
    every deliberate JSON-RPC error (an unknown command, an invalid new name): those are the
    client's errors, answered with an error response; they are logged in one line."""
    if str(record.msg).startswith("Unable to deserialize message"):
        return False
    if record.exc_info and isinstance(record.exc_info[1], JsonRpcException):
        record.msg = f"{record.getMessage()}: {record.exc_info[1]}"
        record.args, record.exc_info, record.exc_text = None, None, None
        record.levelno, record.levelname = logging.INFO, "INFO"
    return True


logging.getLogger("pygls.protocol.json_rpc").addFilter(_no_traceback_for_client_errors)


class ChunkReader:
    """The bytes of a blocking binary stream, pumped by a thread into a buffer on the loop."""

    def __init__(self, stream: BinaryIO, prefix: bytes = b"") -> None:
        self._stream = stream
        self.buffer = bytearray(prefix)  # bytes already read (see handshake.py) come first
        self.eof = False
        self._more = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._pump, name="wave-lsp-stdin", daemon=True).start()

    def _pump(self) -> None:
        try:
            fd = self._stream.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        try:
            while True:
                chunk = os.read(fd, CHUNK) if fd is not None else self._stream.read1(CHUNK)
                if not chunk:
                    break
                self._loop.call_soon_threadsafe(self._feed, chunk)
        except (OSError, ValueError):
            pass
        finally:
            try:
                self._loop.call_soon_threadsafe(self._feed, b"")
            except RuntimeError:  # the loop is already closed
                pass

    def _feed(self, chunk: bytes) -> None:
        if chunk:
            self.buffer += chunk
        else:
            self.eof = True
        self._more.set()

    async def more(self) -> bool:
        """Wait for more bytes; False at the end of the stream."""
        if self.eof:
            return False
        self._more.clear()
        await self._more.wait()
        return True


class Framer:
    """Cuts JSON bodies out of a `ChunkReader`, recovering from any malformed message."""

    def __init__(self, reader: ChunkReader, report: Callable[[str], None]) -> None:
        self._reader = reader
        self._report = report  # called with the reason for each unusable piece of input

    async def next_body(self) -> bytes | None:
        """The next message body (bytes that should be JSON), or None at the end of input."""
        buf = self._reader.buffer
        while True:
            end = buf.find(_HEADER_END)
            if end < 0:
                if len(buf) > MAX_HEADER_BYTES:
                    self._skip_junk(len(buf) - 64, "no message header in the input")
                if not await self._reader.more():
                    if buf.strip():
                        self._report(f"the input ends inside a message header "
                                     f"({len(buf)} bytes dropped)")
                    buf.clear()
                    return None
                continue
            length = self._content_length(end)
            if length is None:
                continue
            body = await self._body(end + len(_HEADER_END), length)
            if body is not None:
                return body

    def _content_length(self, end: int) -> int | None:
        """The length announced by the header block ending at `end` (consumed), or None when it
        has none that is valid (the block is then dropped and reported)."""
        buf = self._reader.buffer
        block = bytes(buf[:end])
        found = list(_LENGTH_HEADER.finditer(block + b"\r\n"))
        if not found:
            del buf[:end + len(_HEADER_END)]
            self._report(f"message header without a valid Content-Length: {_show(block)}")
            self._resync()
            return None
        match = found[-1]
        if match.start():  # bytes before the header: junk, or headers of a broken message
            junk = block[:match.start()]
            lines = junk.split(b"\r\n")
            if lines[-1] or any(not _HEADER_LINE.fullmatch(line) for line in lines[:-1]):
                self._report(f"{len(junk)} bytes before a message header dropped: "
                             f"{_show(junk)}")
        tail = block[match.end():]
        if tail and any(not _HEADER_LINE.fullmatch(line) for line in tail.split(b"\r\n")):
            self._report(f"malformed header line in {_show(block)}")
        del buf[:end + len(_HEADER_END)]
        length = int(match.group(1))
        if not 0 < length <= MAX_CONTENT_LENGTH or match.group(1)[:1] in b"+-":
            self._report(f"invalid Content-Length {match.group(1).decode()}")
            self._resync()
            return None
        return length

    async def _body(self, start: int, length: int) -> bytes | None:
        """`length` bytes of body (the header block is already consumed, so `start` is 0), or
        None when another message's header turns up inside them."""
        buf = self._reader.buffer
        del start
        scanned = 0
        while True:
            limit = min(len(buf), length + 64)  # a header may start inside and end past it
            header = _LENGTH_HEADER.search(buf, max(0, scanned - 64), limit)
            if header is not None and header.start() < length:  # the announced length runs into the next message
                del buf[:header.start()]
                self._report(f"Content-Length {length} runs into the next message; "
                             f"{header.start()} bytes dropped")
                return None
            scanned = limit
            if len(buf) >= length:
                body = bytes(buf[:length])
                del buf[:length]
                return body
            if not await self._reader.more():
                self._report(f"the input ends inside a message body "
                             f"({len(buf)} of {length} bytes)")
                buf.clear()
                return None

    def _resync(self) -> None:
        """Drop what follows a broken header up to the next Content-Length header."""
        buf = self._reader.buffer
        match = _LENGTH_HEADER.search(buf)
        if match is not None:
            if match.start():
                del buf[:match.start()]
        else:  # keep a tail that may be the start of a header cut by the read
            self._skip_junk(max(0, len(buf) - 64), None)

    def _skip_junk(self, count: int, reason: str | None) -> None:
        if count <= 0:
            return
        del self._reader.buffer[:count]
        if reason:
            self._report(f"{reason}: {count} bytes dropped")


def _show(data: bytes, limit: int = 60) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return repr(text) + ("…" if len(data) > limit else "")


def _valid_id(value: Any) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


class Session:
    """The lifecycle state and the dispatch of decoded messages to pygls' protocol."""

    def __init__(self, protocol, error_handler: Callable | None = None) -> None:
        self.protocol = protocol
        self.error_handler = error_handler
        self.initialized = False
        self.exit_code: int | None = None

    @property
    def shut_down(self) -> bool:
        return bool(getattr(self.protocol, "_shutdown", False))

    def error(self, msg_id: Any, code: int, message: str) -> None:
        self.protocol._send_data({"jsonrpc": "2.0", "id": msg_id if _valid_id(msg_id) else None,
                                  "error": {"code": code, "message": message}})

    def parse_error(self, reason: str) -> None:
        logger.warning("protocol error: %s", reason)
        self.error(None, PARSE_ERROR, f"Parse error: {reason}")

    def handle_body(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as err:
            self.parse_error(f"the message body is not JSON ({err.__class__.__name__}: "
                             f"{str(err)[:120]})")
            return
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            what = "a batch (LSP has none)" if isinstance(data, list) else \
                "not a JSON-RPC 2.0 message"
            self.error(data.get("id") if isinstance(data, dict) else None, INVALID_REQUEST,
                       f"Invalid Request: {what}")
            return
        method = data.get("method")
        if "method" in data:
            if not isinstance(method, str) or ("id" in data and not _valid_id(data["id"])):
                self.error(data.get("id"), INVALID_REQUEST,
                           "Invalid Request: 'method' must be a string and 'id' an integer or "
                           "a string")
                return
            params = data.get("params")
            if params is not None and not isinstance(params, (dict, list)):
                if "id" in data:
                    self.error(data["id"], INVALID_PARAMS, f"Invalid params for {method}: "
                                                           "must be an object or an array")
                return
            if "id" in data:
                self._request(data, method)
            else:
                self._notification(data, method)
        elif "id" in data and ("result" in data or "error" in data):
            self._dispatch(data)
        else:
            self.error(data.get("id"), INVALID_REQUEST,
                       "Invalid Request: neither a request, a notification nor a response")

    def _request(self, data: dict, method: str) -> None:
        msg_id = data["id"]
        if self.shut_down:
            self.error(msg_id, INVALID_REQUEST, f"Invalid Request: {method} after shutdown")
            return
        if not self.initialized and method != "initialize":
            self.error(msg_id, SERVER_NOT_INITIALIZED,
                       f"Server not initialized: {method} before initialize")
            return
        if method == "initialize" and self.initialized:
            self.error(msg_id, INVALID_REQUEST, "Invalid Request: initialize was already sent")
            return
        if self._dispatch(data, msg_id, method) and method == "initialize":
            self.initialized = True

    def _notification(self, data: dict, method: str) -> None:
        if method == "exit":
            self.exit_code = 0 if self.shut_down else 1
            return
        if self.shut_down or not self.initialized:
            logger.info("dropped %s (%s)", method,
                        "after shutdown" if self.shut_down else "before initialize")
            return
        self._dispatch(data)

    def _dispatch(self, data: dict, msg_id: Any = None, method: str | None = None) -> bool:
        """Structure a message and hand it to pygls; False when its params were rejected."""
        try:
            message = self.protocol.structure_message(data)
        except JsonRpcInvalidParams as err:
            if method is not None:
                cause = err.__cause__
                detail = str(cause)[:300] if cause is not None else ""
                self.error(msg_id, INVALID_PARAMS, f"Invalid params for {method}: {detail}")
            logger.warning("message with invalid params dropped: %s", data.get("method"))
            return False
        except JsonRpcException as err:
            if method is not None:
                self.error(msg_id, INTERNAL_ERROR, f"{method}: {err}")
            return False
        try:
            self.protocol.handle_message(message)
        except Exception as exc:  # a bug behind a handler: logged, the session goes on
            logger.exception("unable to handle a message")
            if method is not None:  # a request is answered all the same
                self.error(msg_id, INTERNAL_ERROR, f"{method}: {exc!r}")
            if self.error_handler is not None:
                self.error_handler(exc, JsonRpcException)
        return True


async def serve(stop_event: threading.Event, reader: ChunkReader, protocol,
                error_handler: Callable | None = None) -> int:
    """Read and dispatch messages until `exit`, the end of input or `stop_event`; returns the
    exit status (0, or 1 for `exit` without `shutdown`)."""
    session = Session(protocol, error_handler)
    framer = Framer(reader, session.parse_error)
    while not stop_event.is_set():
        body = await framer.next_body()
        if body is None:
            return 0
        session.handle_body(body)
        if session.exit_code is not None:
            return session.exit_code
    return 0
