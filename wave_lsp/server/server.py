"""The wave-lsp language server: a pygls `LanguageServer` with one module per LSP feature.

`create_server()` builds the server and lets every feature module register its handlers through
its own `setup(server)`. The server holds the open documents, the settings and a cache of the
analysis results per document revision; feature modules translate those into lsprotocol types.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import Any, BinaryIO, Optional

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.workspace.position_codec import PositionCodec

from .. import __version__
from ..analysis import analyze
from ..analysis.diagnostic import Diagnostic, Range, Severity
from .documents import DocumentStore, OpenDocument
from .handlers import report_failure
from .settings import Settings
from .transport import ChunkReader, serve

logger = logging.getLogger("wave_lsp.server")

FEATURES = (
    "sync", "diagnostics", "hover", "completion", "signature_help", "navigation", "symbols",
    "semantic_tokens", "folding", "selection", "inlay_hints", "code_actions", "formatting",
    "code_lens", "encoding_command", "run_commands",
    "portability", "emit_command",
)


class WaveProtocol(LanguageServerProtocol):
    """pygls' protocol, minus its own copies of open documents: ours are the only ones."""

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


def _strict_str(value: Any, _type: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, not {type(value).__name__}")
    return value


class WaveLanguageServer(LanguageServer):
    """The server: documents, settings, cached analysis, and the features registered on it."""

    def __init__(self) -> None:
        super().__init__("wave-lsp", __version__, protocol_cls=WaveProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.documents = DocumentStore()
        self.settings = Settings()
        self.settings_generation = 0
        self._analysis: dict[str, tuple[tuple[int, int], list[Diagnostic]]] = {}
        self.publisher: Any = None  # diagnostics.Publisher, set by diagnostics.setup
        # lsprotocol would turn a null or a number into a string ("None") where the protocol
        # wants one, so `rename` with `newName: null` renamed to None: strings must be strings.
        self.protocol._converter.register_structure_hook(str, _strict_str)
        self.runs: Any = None       # runs.RunService, set by run_commands.setup

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

    def document(self, uri: str) -> Optional[OpenDocument]:
        return self.documents.get(uri)

    def text_document(self, uri: str) -> Optional[OpenDocument]:
        """The open document at `uri` when it is WAVE text (None when unknown or binary): what
        every per-document feature works on."""
        doc = self.documents.get(uri)
        return None if doc is None or doc.binary else doc

    def analysis(self, doc: OpenDocument) -> list[Diagnostic]:
        """The analysis layer's diagnostics for a document, cached per revision and settings."""
        key = (doc.revision, self.settings_generation)
        cached = self._analysis.get(doc.uri)
        if cached is not None and cached[0] == key:
            return cached[1]
        if doc.binary:
            result = [Diagnostic("X900", Severity.ERROR, Range(0, 0, 0, 0),
                                 "binary file: not WAVE assembly text; nothing is analysed")]
        else:
            result = self._run_analysis(doc)
        self._analysis[doc.uri] = (key, result)
        return result

    def _run_analysis(self, doc: OpenDocument) -> list[Diagnostic]:
        try:
            return list(analyze(doc, self.settings.analysis))
        except Exception as exc:
            report_failure(self, f"analysis of {doc.uri}", exc)
            return []

    def forget(self, uri: str) -> None:
        self._analysis.pop(uri, None)

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
            self.shutdown()
        return status


def create_server() -> WaveLanguageServer:
    """A server with every feature registered."""
    import importlib

    server = WaveLanguageServer()
    for name in FEATURES:
        importlib.import_module(f"{__package__}.{name}").setup(server)
    return server
