"""Diagnostics, pushed and pulled.

Push model: the server sends `textDocument/publishDiagnostics` on its own. Each edit restarts a
short per-document timer (debounce); when it fires, the current text is analysed and published
with the version it belongs to, so a stale version is never published. Closing a document
publishes an empty list. Pull model (LSP 3.17): the client asks with `textDocument/diagnostic`
and may send the previous `resultId` to get "unchanged". With `diagnostics.mode` "auto", a
client that declares pull support gets pull only (no duplicates), others get push.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from ..analysis.diagnostic import Diagnostic, Severity
from ..cancellation import Cancelled
from ..ide.state import DocumentState
from . import run_view
from .documents import to_client_range
from .handlers import report_failure, request

if TYPE_CHECKING:
    from .server import WaveLanguageServer

SOURCE = "wave-lsp"
SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def to_lsp(server: "WaveLanguageServer", doc: DocumentState,
           diagnostic: Diagnostic) -> types.Diagnostic:
    """One analysis diagnostic as an lsprotocol Diagnostic (with related information)."""
    codec = server.codec
    related = None
    if diagnostic.related and server.capability(
            "text_document.publish_diagnostics.related_information", True):
        related = [types.DiagnosticRelatedInformation(
            location=types.Location(uri=doc.uri, range=to_client_range(doc, r.range, codec)),
            message=r.message) for r in diagnostic.related]
    return types.Diagnostic(
        range=to_client_range(doc, diagnostic.range, codec),
        severity=SEVERITY[diagnostic.severity], code=diagnostic.code, source=SOURCE,
        message=diagnostic.message, related_information=related)


def convert_all(server: "WaveLanguageServer", doc: DocumentState,
                diagnostics: list[Diagnostic]) -> list[types.Diagnostic]:
    """`to_lsp` of every diagnostic, reusing the conversions of the document's previous
    publication (building lsprotocol objects is the slowest part of publishing a large file,
    and most diagnostics survive an edit). A conversion is reused for an equal diagnostic whose
    lines have the same text (columns depend on the text) under the same position encoding."""
    lines = doc.lines
    count = len(lines)
    setting = (server.codec.encoding, server.capability(
        "text_document.publish_diagnostics.related_information", True))
    previous = server.publisher.converted.get(doc.uri)
    if previous is None or previous[0] != setting:
        previous = (setting, {})
    cache, fresh = previous[1], {}
    out = []
    for d in diagnostics:
        touched = {d.range.start_line, d.range.end_line, *(r.range.start_line for r in d.related),
                   *(r.range.end_line for r in d.related)}
        key = (d, tuple(lines[n] if n < count else "" for n in sorted(touched)))
        item = cache.get(key)
        if item is None:
            item = to_lsp(server, doc, d)
        fresh[key] = item
        out.append(item)
    server.publisher.converted[doc.uri] = (setting, fresh)
    return out


class Publisher:
    """Decides push or pull, debounces pushes, and answers pulls."""

    def __init__(self, server: "WaveLanguageServer") -> None:
        self.server = server
        self.pull = False
        self._timers: dict[str, asyncio.Task] = {}
        # per document: (encoding and capability, {(diagnostic, line texts): lsp diagnostic})
        self.converted: dict[str, tuple[tuple, dict]] = {}

    @property
    def push(self) -> bool:
        return not self.pull

    def initialize(self) -> None:
        """Choose the model from the client's capabilities and the `diagnostics.mode` setting."""
        mode = self.server.settings.diagnostics_mode
        supports_pull = self.server.capability("text_document.diagnostic") is not None
        self.pull = mode == "pull" or (mode == "auto" and supports_pull)
        if self.pull:
            register_pull(self.server)

    def document_changed(self, doc: DocumentState, immediate: bool = False) -> None:
        if not self.push:
            return
        uri = doc.uri
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()
        delay = 0.0 if immediate else self.server.settings.debounce_ms / 1000
        self._timers[uri] = asyncio.ensure_future(self._publish_later(uri, delay))

    async def _publish_later(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        self._timers.pop(uri, None)
        doc = self.server.document(uri)
        if doc is None:
            return
        try:
            await self.publish_now(doc)
        except Cancelled:
            pass            # a newer edit: its own publication follows
        except Exception as exc:
            report_failure(self.server, "publishing diagnostics", exc)

    def publish(self, doc: DocumentState) -> asyncio.Future:
        """Publish the document's diagnostics soon (see `publish_now`)."""
        async def guarded() -> None:
            try:
                await self.publish_now(doc)
            except Cancelled:
                pass
            except Exception as exc:
                report_failure(self.server, "publishing diagnostics", exc)
        return asyncio.ensure_future(guarded())

    async def publish_now(self, doc: DocumentState) -> None:
        """Analyse the current text (off the event loop for a large document) and publish it
        with its version."""
        doc = await self.server.documents.ready(doc.uri) or doc
        version = doc.version
        protocol = self.server.protocol

        def serialised(d: DocumentState) -> str:
            items = convert_all(self.server, d, self.server.analysis(d)) \
                + run_view.lsp_diagnostics(self.server, d)
            return protocol.serialize_notification(
                types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                types.PublishDiagnosticsParams(uri=d.uri, version=version, diagnostics=items))

        body = await self.server.documents.run(doc, serialised, name="diagnostics")
        if doc.version != version or self.server.document(doc.uri) is not doc:
            return  # never publish for a stale version
        protocol.send_serialized(body)
        self.server.documents.settle(doc)

    def document_closed(self, uri: str) -> None:
        self.converted.pop(uri, None)
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()
        if self.push:
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def settings_changed(self) -> None:
        """Re-deliver every open document's diagnostics under the new settings."""
        if self.push:
            for doc in self.server.documents.all():
                self.document_changed(doc, immediate=True)
        elif self.server.capability("workspace.diagnostics.refresh_support", False):
            self.server.workspace_diagnostic_refresh(None)


def register_pull(server: "WaveLanguageServer") -> None:
    """Register `textDocument/diagnostic` (done during `initialize`, before capabilities)."""
    if types.TEXT_DOCUMENT_DIAGNOSTIC in server.protocol.fm.features:
        return

    @request(server, types.TEXT_DOCUMENT_DIAGNOSTIC,
             types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=False,
                                     workspace_diagnostics=False),
             default=lambda: types.RelatedFullDocumentDiagnosticReport(items=[]), analysis=True)
    def pull(params: types.DocumentDiagnosticParams):
        doc = server.document(params.text_document.uri)
        if doc is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        runs = server.runs.generation(doc) if server.runs is not None else 0
        result_id = f"{doc.revision}.{server.settings_generation}.{id(doc)}.{runs}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        items = convert_all(server, doc, server.analysis(doc))
        items += run_view.lsp_diagnostics(server, doc)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)


def setup(server: "WaveLanguageServer") -> None:
    server.publisher = Publisher(server)
