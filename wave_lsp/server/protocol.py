"""The JSON-RPC side of the server: pygls' `LanguageServerProtocol` with our changes.

`WaveProtocol` keeps no copies of open documents (the analysis host's are the only ones),
answers every request (an unencodable result becomes an InternalError), says in the initialize
result which engine runs kernels (`extensions.Engine`), sends results and
notifications already serialised off the event loop (`Serialised`), and is quiet about routine
cancellations.

It is also the one module that touches pygls' private members: `PYGLS_PRIVATE` lists every one
the server uses (the methods `WaveProtocol` overrides, and the few attributes reached through
the functions below), and tests/server/test_pygls_private.py names any that a pygls upgrade
removed or renamed.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol, lsp_method
from pygls.protocol.language_server import _prepare_command_arguments

from ..ide.engine import engine
from .extensions import Engine
from .proto import wire

# (where, private member): every private name of pygls this server relies on
PYGLS_PRIVATE = (
    ("pygls.protocol.JsonRPCProtocol", "_send_response"),
    ("pygls.protocol.JsonRPCProtocol", "_send_data"),
    ("pygls.protocol.JsonRPCProtocol", "_execute_handler"),
    ("pygls.protocol.JsonRPCProtocol", "_handle_cancel_notification"),
    ("pygls.protocol.JsonRPCProtocol", "_converter"),          # an instance attribute
    ("pygls.protocol.language_server", "_prepare_command_arguments"),
    ("pygls.server.JsonRPCServer", "_stop_event"),              # an instance attribute
)

logger = logging.getLogger("wave_lsp.server")
_wire_log = logging.getLogger("pygls.protocol.json_rpc")


class Serialised(str):
    """A request's result already written as JSON (by a handler, in a worker for a large
    document): the protocol sends it as it is, instead of encoding it on the event loop."""


class WaveProtocol(LanguageServerProtocol):
    """pygls' protocol, minus its own copies of open documents (ours are the only ones), plus
    messages serialised off the event loop and sent as they are (`send_serialized`, on the
    loop): publishing thousands of diagnostics is slow to encode."""

    def send_serialized(self, body: str | bytes) -> None:
        """Write a message body already serialised (JSON text, or its UTF-8 bytes), on the
        event loop."""
        if self.writer is None:
            return
        data = body if isinstance(body, bytes) else body.encode(self.CHARSET)
        if self._include_headers:    # not on a WebSocket, where each message is one frame
            data = (f"Content-Length: {len(data)}\r\n"
                    f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
                    ).encode(self.CHARSET) + data
        result = self.writer.write(data)
        if inspect.isawaitable(result):
            asyncio.ensure_future(result)

    def _send_response(self, msg_id, result: Any | None = None, error: Any = None) -> None:
        if error is None and isinstance(result, Serialised):
            self._result_types.pop(msg_id, None)
            self.send_serialized('{"id": ' + json.dumps(msg_id) + ', "jsonrpc": "'
                                 + JsonRPCProtocol.VERSION + '", "result": ' + result + '}')
            return
        super()._send_response(msg_id, result, error)

    def _send_data(self, data: Any) -> None:
        """Write a message. A response whose result cannot be encoded is answered with an
        InternalError instead (pygls would log the failure and send nothing, and the client
        would wait for that answer forever): every request gets an answer."""
        if not _is_result(data) or self.writer is None:
            super()._send_data(data)
            return
        try:
            body = json.dumps(data, default=self._serialize_message)
        except Exception as exc:
            logger.exception("the result of request %r could not be encoded", data.id)
            super()._send_data(types.ResponseErrorMessage(id=data.id, error=types.ResponseError(
                code=types.ErrorCodes.InternalError,
                message=f"wave-lsp: the result could not be encoded: {exc!r}")))
            return
        _wire_log.info("Sending data: %s", body)     # as pygls logs what it sends
        self.send_serialized(body)

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        """pygls' handler call, minus its leak: it files the future of every handler it runs
        under an id in its table of pending requests, and only a request's answer removes
        it; a notification's (every didOpen, didChange, didClose) and each handler a
        built-in generator yields stayed there for good: a future, a lock and an id per
        edit, each pinning the allocator's arena it was made in (hundreds of MB after 100
        documents closed). Those are removed once done."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if getattr(callback, "func", None) == self._send_handler_result:
            return                       # a request: its answer removes it
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(lambda _done: self._request_futures.pop(msg_id, None))

    def _handle_cancel_notification(self, msg_id) -> None:
        """Cancel a request. A `$/cancelRequest` for a request already answered is routine
        (clients cancel what they no longer need, often after the answer went out): pygls logs
        each as a warning, which filled editors' output channels, so it is logged at debug."""
        future = self._request_futures.pop(msg_id, None)
        if future is None:
            logger.debug('cancel notification for unknown message id "%s"', msg_id)
            return
        self._request_futures[msg_id] = future
        super()._handle_cancel_notification(msg_id)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Any:
        """Run a command as the request's own task. pygls 2 runs it as a handler its built-in
        generator yields, in a task of its own that `$/cancelRequest` never reaches: the client
        got `RequestCancelled` while the command (a run, a profile) went on. Here cancelling
        the request cancels the command's task, which stops its job (`runs.RunService.wait`),
        and pygls answers `RequestCancelled`."""
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams.of(
                ValueError(f"Command name {params.command!r} is not defined"))
        try:
            args, kwargs = _prepare_command_arguments(handler, params, self._converter)
        except Exception as exc:
            raise JsonRpcInvalidParams.of(exc) from None
        result = handler(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        """pygls' initialize, whose result also says which engine runs kernels here (the
        native core, or the numpy engine and why): `capabilities.experimental`, `Engine`."""
        result = yield from super().lsp_initialize(params)
        name, why = engine()
        result.capabilities.experimental = {Engine.CAPABILITY: wire(Engine(name, why))}
        return result

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args):
        """pygls' shutdown, over a copy of the pending requests: cancelling one (a command
        waiting for a run) removes it from the table while pygls iterated over it, and
        `shutdown` failed with "dictionary changed size during iteration"."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


def _is_result(message: Any) -> bool:
    """A successful response (not a request, a notification or an error response)."""
    return hasattr(message, "result") and not hasattr(message, "method") and \
        getattr(message, "id", None) is not None


def strict_str(value: Any, _type: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, not {type(value).__name__}")
    return value


# ---- the private attributes, reached only through these -----------------------------------------
def converter(server):
    """The protocol's cattrs converter (lsprotocol values <-> JSON-ready data)."""
    return server.protocol._converter


def send_data(protocol: JsonRPCProtocol, data: Any) -> None:
    """Write one message (a response or notification object, or a plain dict) to the client."""
    protocol._send_data(data)


def stop_event(server):
    """The event that stops pygls' reader and serving loops."""
    return server._stop_event


def set_stop_event(server, event) -> None:
    server._stop_event = event
