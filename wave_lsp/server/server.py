"""The wave-lsp language server: a pygls `LanguageServer` made of features.

`create_server()` builds the server and lets every feature module named in `FEATURES` register
itself through its own `setup(server)`: its handlers, and, when it has a lifecycle or adds to
what other features show, one `Feature` object (`server.add_feature`); the package docstring
(`wave_lsp/server/__init__.py`) shows how to write one. The server holds the analysis host
(`ide.host.AnalysisHost`: one state per open document, and the worker that computes off the
event loop), the settings, the client's capabilities (resolved once at `initialize`) and the
features.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import traceback
from typing import Any, BinaryIO, Optional, TypeVar

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.workspace.position_codec import PositionCodec

from .. import __version__
from ..analysis.config import Config
from ..analysis.diagnostic import Diagnostic
from ..ide.host import AnalysisHost
from ..ide.lenses import Lens
from ..ide.state import DocumentState
from ..cancellation import Cancelled
from .capabilities import ClientCapabilities
from .protocol import WaveProtocol, converter, strict_str
from .settings import Settings
from .transport import ChunkReader, serve

logger = logging.getLogger("wave_lsp.server")

# The feature modules, each registered by its `setup(server)`; a new feature is one more name.
# Contributions (code lenses, hovers, ...) are gathered in this order.
FEATURES = (
    "sync", "diagnostics", "hover", "completion", "signature_help", "navigation", "symbols",
    "semantic_tokens", "folding", "selection", "inlay_hints", "code_actions", "formatting",
    "code_lens", "encoding_command", "portability", "run_commands", "emit_command", "gpu_run",
    "profile", "test_commands", "vendor_diagnostics", "project_config", "kernel_at", "who_wrote",
    "verify",
)


def one_line(text: str, limit: int = 500) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def report_failure(server: "WaveLanguageServer", what: str, exc: BaseException) -> None:
    """Log a failure with its traceback to the server's log (stderr or --log-file), and one
    line to the client (a traceback is no use in an editor's message list)."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    logger.error("%s failed: %s", what, text)
    line = one_line(f"wave-lsp: {what} failed: {exc!r}")

    def send() -> None:
        try:
            server.window_log_message(types.LogMessageParams(
                type=types.MessageType.Error, message=f"{line} (details in the server log)"))
        except Exception:  # the transport itself is gone; nothing more to do
            pass

    server.documents.call_on_loop(send)


class Feature:
    """A part of the server with a lifecycle and contributions to what other features show.
    Every hook does nothing by default; a feature overrides the ones it needs. Hooks run on the
    event loop; a failing hook is reported and the others still run (`WaveLanguageServer.
    broadcast`). Contributions run inside the asking request's job of the document (in a
    worker thread for a large document: `handlers.request`), so they only read."""

    def __init__(self, server: "WaveLanguageServer") -> None:
        self.server = server

    # ---- lifecycle ------------------------------------------------------------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        """During `initialize`, after the settings and capabilities are known (a feature may
        still register handlers here: the server's capabilities are computed after it)."""

    def initialized(self) -> None:
        """After `initialized` and the first settings: the client takes requests now."""

    def settings_changed(self) -> None:
        """New settings are installed (every open document is then settled again)."""

    def document_edited(self, doc: DocumentState) -> None:
        """At once, on every edit: stop work made stale by it."""

    def document_settled(self, doc: DocumentState) -> None:
        """After the one debounce of an edit (at once on open and on new settings): the
        document is parsed; publish, re-run, ... from here."""

    def results_changed(self, doc: DocumentState) -> None:
        """Results shown for `doc` changed without an edit (a run finished, was cleared)."""

    def document_closed(self, uri: str) -> None:
        """The document left the editor (its state is already gone)."""

    def shutdown(self) -> None:
        """The server stops: cancel everything in flight."""

    # ---- contributions (lsprotocol values, made with `proto`; lenses as `ide.lenses.Lens`) ----
    def code_lenses(self, doc: DocumentState) -> list[Lens]:
        """The lenses this feature shows (`ide.lenses`; laid out and converted by `code_lens`)."""
        return []

    def hover(self, doc: DocumentState, line: int, target: Any) -> str | None:
        """Markdown shown above the hover at `line` (`target`: `ide.locate.Target` or None)."""
        return None

    def inlay_hints(self, doc: DocumentState, first: int, last: int) -> list[types.InlayHint]:
        return []

    def completions(self, doc: DocumentState, line: int,
                    col: int) -> list[types.CompletionItem] | None:
        """Items that replace the ordinary completion at (line, col), or None (or an awaitable
        of the items, for a feature that computes them off the event loop)."""
        return None

    def results_generation(self, doc: DocumentState) -> int | None:
        """A number that changes whenever results this feature shows for `doc` change without
        an edit (part of the pulled diagnostics' result id), or None."""
        return None

    def quick_fixes(self, doc: DocumentState, first: tuple[int, int],
                    last: tuple[int, int]) -> list[types.CodeAction] | None:
        """Quick fixes for this feature's diagnostics on lines first[0]..last[0]."""
        return None

    def diagnostics(self, doc: DocumentState) -> list[types.Diagnostic]:
        """Diagnostics published (and pulled) beside the analysis'."""
        return []


F = TypeVar("F", bound=Feature)


class WaveLanguageServer(LanguageServer):
    """The server: the analysis host, settings, and the features registered on it."""

    def __init__(self) -> None:
        super().__init__("wave-lsp", __version__, protocol_cls=WaveProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.documents = AnalysisHost()
        self.settings = Settings()
        self.settings_generation = 0
        self.client = ClientCapabilities()      # resolved at `initialize` (sync.py)
        self.features: list[Feature] = []
        # a document's analysis configuration: the settings', or with its project's file
        # merged in (project_config.py installs that)
        self.project_config = lambda doc: self.settings.analysis
        # lsprotocol would turn a null or a number into a string ("None") where the protocol
        # wants one, so `rename` with `newName: null` renamed to None: strings must be strings.
        converter(self).register_structure_hook(str, strict_str)
        _forward_failures(self)

    # ---- helpers used by the feature modules -----------------------------------------------------
    @property
    def codec(self) -> PositionCodec:
        return self.workspace.position_codec

    def add_feature(self, feature: F) -> F:
        """Register a feature's hooks and contributions (from its module's `setup`)."""
        self.features.append(feature)
        return feature

    def get_feature(self, kind: type[F]) -> F:
        """The registered feature of type `kind`."""
        for feature in self.features:
            if isinstance(feature, kind):
                return feature
        raise LookupError(f"no feature {kind.__name__} is registered")

    def broadcast(self, hook: str, *args: Any) -> None:
        """Call lifecycle hook `hook` of every feature; a failure is reported, and the other
        features still get the hook."""
        for feature in self.features:
            try:
                getattr(feature, hook)(*args)
            except Exception as exc:
                report_failure(self, f"{type(feature).__name__}.{hook}", exc)

    def contributions(self, kind: str, *args: Any) -> list:
        """What every feature contributes of `kind` (`code_lenses`, `hover`, ...), in
        registration order, leaving out a failing feature's (reported) and the empty ones."""
        return [found for feature in self.features
                if (found := self.contribution(feature, kind, *args)) is not None]

    def contribution(self, feature: Feature, kind: str, *args: Any) -> Any:
        """What `feature` contributes of `kind`; None when it fails (the failure reported)."""
        try:
            return getattr(feature, kind)(*args)
        except Cancelled:
            raise
        except Exception as exc:
            report_failure(self, f"{type(feature).__name__}.{kind}", exc)
            return None

    def document(self, uri: str) -> Optional[DocumentState]:
        """The state of an open document (ready or still being parsed), or None."""
        return self.documents.get(uri)

    def text_document(self, uri: object) -> Optional[DocumentState]:
        """The open document at `uri` when it is parsed WAVE text (None when unknown, binary or
        still being parsed, or when `uri` is no string: a command's argument may be anything):
        what a command works on (a request's handler receives it resolved)."""
        if not isinstance(uri, str):
            return None
        doc = self.documents.get(uri)
        if doc is None or doc.binary or not self.documents.is_ready(uri):
            return None
        return doc

    def config(self, doc: DocumentState) -> Config:
        """What the analysis settings are for `doc` (`compat`, `targets`, ...): the editor's
        with its project's configuration file merged in."""
        return self.project_config(doc) or _DEFAULT_CONFIG

    def analysis(self, doc: DocumentState) -> list[Diagnostic]:
        """The analysis layer's diagnostics for a document under the current settings (computed
        once per revision and settings by the document state). Called inside a job of the
        document (`documents.run`), which holds its lock."""
        try:
            return doc.diagnostics(self.project_config(doc))
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
            self.broadcast("shutdown")      # cancels every run: they stop at their next poll
            self.documents.shutdown()
            self.shutdown()
        return status


_DEFAULT_CONFIG = Config()
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
