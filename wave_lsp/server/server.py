"""The wave-lsp language server: a pygls `LanguageServer` with one module per LSP feature.

`create_server()` builds the server and lets every feature module register its handlers through
its own `setup(server)`. The server holds the analysis host (`ide.host.AnalysisHost`: one state
per open document, and the worker that computes off the event loop) and the settings; feature
modules translate what the `ide` layer computes into lsprotocol types.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import sys
import threading
from typing import Any, BinaryIO, Optional

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol, lsp_method
from pygls.workspace.position_codec import PositionCodec

from .. import __version__
from ..analysis.diagnostic import Diagnostic
from ..ide.host import AnalysisHost
from ..ide.state import DocumentState
from .handlers import one_line, report_failure
from ..cancellation import Cancelled
from .settings import Settings
from .transport import ChunkReader, serve

logger = logging.getLogger("wave_lsp.server")
_wire_log = logging.getLogger("pygls.protocol.json_rpc")

FEATURES = (
    "sync", "diagnostics", "hover", "completion", "signature_help", "navigation", "symbols",
    "semantic_tokens", "folding", "selection", "inlay_hints", "code_actions", "formatting",
    "code_lens", "encoding_command", "run_commands",
    "portability", "emit_command", "gpu_run", "profile",
)


class Serialised(str):
    """A request's result already written as JSON (by a handler, in a worker for a large
    document): the protocol sends it as it is, instead of encoding it on the event loop."""


class WaveProtocol(LanguageServerProtocol):
    """pygls' protocol, minus its own copies of open documents (ours are the only ones), plus
    notifications serialised off the event loop (`serialize_notification` in a worker,
    `send_serialized` on the loop): publishing thousands of diagnostics is slow to encode."""

    def serialize_notification(self, method: str, params: Any) -> str:
        """The JSON body of a notification, as pygls would write it (thread-safe)."""
        return json.dumps({"method": method, "params": self._converter.unstructure(params),
                           "jsonrpc": JsonRPCProtocol.VERSION})

    def send_serialized(self, body: str) -> None:
        """Write a body made by `serialize_notification` (on the event loop)."""
        if self.writer is None:
            return
        data = body.encode(self.CHARSET)
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


def _strict_str(value: Any, _type: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, not {type(value).__name__}")
    return value


class WaveLanguageServer(LanguageServer):
    """The server: the analysis host, settings, and the features registered on it."""

    def __init__(self) -> None:
        super().__init__("wave-lsp", __version__, protocol_cls=WaveProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.documents = AnalysisHost()
        self.settings = Settings()
        self.settings_generation = 0
        self.publisher: Any = None  # diagnostics.Publisher, set by diagnostics.setup
        # lsprotocol would turn a null or a number into a string ("None") where the protocol
        # wants one, so `rename` with `newName: null` renamed to None: strings must be strings.
        self.protocol._converter.register_structure_hook(str, _strict_str)
        self.runs: Any = None       # runs.RunService, set by run_commands.setup
        self.profiles: Any = None   # profile.ProfileService, set by profile.setup
        _forward_failures(self)

    # ---- helpers used by the feature modules -----------------------------------------------------
    @property
    def codec(self) -> PositionCodec:
        return self.workspace.position_codec

    def capability(self, path: str, default: Any = None) -> Any:
        """A client capability by dotted snake_case path, e.g. `text_document.hover`."""
        caps = getattr(self.protocol, "client_capabilities", None)
        if caps is None:
            return default
        return get_capability(caps, path, default)

    def document(self, uri: str) -> Optional[DocumentState]:
        """The state of an open document (ready or still being parsed), or None."""
        return self.documents.get(uri)

    def text_document(self, uri: str) -> Optional[DocumentState]:
        """The open document at `uri` when it is parsed WAVE text (None when unknown, binary or
        still being parsed): what every per-document feature works on."""
        doc = self.documents.get(uri)
        if doc is None or doc.binary or not self.documents.is_ready(uri):
            return None
        return doc

    def analysis(self, doc: DocumentState) -> list[Diagnostic]:
        """The analysis layer's diagnostics for a document under the current settings (computed
        once per revision and settings by the document state). Called inside a job of the
        document (`documents.run`), which holds its lock."""
        try:
            return doc.diagnostics(self.settings.analysis)
        except Cancelled:
            raise
        except Exception as exc:
            report_failure(self, f"analysis of {doc.uri}", exc)
            return []

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        logger.info("%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # ---- transport ----------------------------------------------------------------------------
    def start_io(self, stdin: Optional[BinaryIO] = None, stdout: Optional[BinaryIO] = None,
                 prefix: bytes = b"") -> int:
        """Serve on stdin/stdout with our own transport (transport.py); `prefix` holds bytes
        already read from stdin (the early initialize of handshake.py). Returns the exit status:
        1 when the client sent `exit` without `shutdown`."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def main() -> int:
            reader = ChunkReader(stdin or sys.stdin.buffer, prefix)
            return await serve(self._stop_event, reader, self.protocol,
                               error_handler=self.report_server_error)

        status = 0
        try:
            status = asyncio.run(main())
        except BrokenPipeError:
            logger.error("connection to the client lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            if self.runs is not None:
                self.runs.shutdown()         # cancels every run: they stop at their next poll
            if self.profiles is not None:
                self.profiles.shutdown()
            self.documents.shutdown()
            self.shutdown()
        return status


EXIT_GRACE_SECONDS = 3.0


def exit_soon(status: int) -> None:
    """End the process `EXIT_GRACE_SECONDS` from now unless it has ended by then: a worker
    thread still inside a long computation must not keep the process alive after `exit` (the
    interpreter would wait for it at exit)."""
    def end() -> None:
        logging.shutdown()
        os._exit(status)
    timer = threading.Timer(EXIT_GRACE_SECONDS, end)
    timer.daemon = True
    timer.start()


class _ClientLog(logging.Handler):
    """Forwards failures of analysis passes (logged on `wave_lsp.analysis`, see
    analysis/failures.py) and of the IDE layer to the client's log."""

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(logging.ERROR)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        text = one_line(self.format(record))    # the traceback stays in the server's log
        if record.exc_info and record.exc_info[1] is not None:
            text = one_line(f"{text}: {record.exc_info[1]!r}")

        def send() -> None:
            try:
                self.server.window_log_message(types.LogMessageParams(
                    type=types.MessageType.Error, message=f"wave-lsp: {text}"))
            except Exception:  # the transport is gone, or not yet there
                pass

        self.server.documents.call_on_loop(send)


def _forward_failures(server: WaveLanguageServer) -> None:
    handler = _ClientLog(server)
    for name in ("wave_lsp.analysis", "wave_lsp.ide"):
        log = logging.getLogger(name)
        for old in [h for h in log.handlers if isinstance(h, _ClientLog)]:
            log.removeHandler(old)
        log.addHandler(handler)


def create_server() -> WaveLanguageServer:
    """A server with every feature registered."""
    import importlib

    server = WaveLanguageServer()
    for name in FEATURES:
        importlib.import_module(f"{__package__}.{name}").setup(server)
    return server
