"""The stdio transport: reading the client's byte stream, framing messages, and the lifecycle
rules of the Language Server Protocol that sit below any feature.

A thread reads whatever bytes stdin has and hands them to the event loop; `serve` then frames and
dispatches every message already received before any request task takes its first step, so a
request cancelled while still queued is never computed.

Framing is the base protocol's, cut by `wave_lsp.framing` (shared with the TCP transport and the
debug adapter). A bad message never deafens the session: a header without a valid length, a
length that runs into the next header, or a body that is not JSON is answered with a JSON-RPC
`-32700 Parse error` (id null), and reading resumes at the next `Content-Length` header.

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
import threading
from typing import Any, BinaryIO, Callable

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ..framing import CHUNK, Deframer
from .protocol import send_data

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603
SERVER_NOT_INITIALIZED = -32002


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
    """Cuts JSON bodies out of a reader (a `ChunkReader`, or anything with a `buffer` of bytes
    received and an awaitable `more()`) with the shared `framing.Deframer`, recovering from any
    malformed message."""

    def __init__(self, reader, report: Callable[[str], None]) -> None:
        self._reader = reader
        self._deframer = Deframer(report)  # report: called with the reason for each bad piece

    async def next_body(self) -> bytes | None:
        """The next message body (bytes that should be JSON), or None at the end of input."""
        while True:
            body = self._take()
            if body is not None:
                return body
            if not await self._reader.more():
                body = self._take()
                if body is None:
                    self._deframer.finish()
                return body

    def _take(self) -> bytes | None:
        received = self._reader.buffer
        if received:
            self._deframer.feed(bytes(received))
            received.clear()
        return self._deframer.next_body()


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
        send_data(self.protocol, {"jsonrpc": "2.0", "id": msg_id if _valid_id(msg_id) else None,
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
