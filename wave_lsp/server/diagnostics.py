"""Diagnostics, pushed and pulled.

Push model: the server sends `textDocument/publishDiagnostics` on its own. When an edit settles
(the server's one debounce per edit, `sync.Debounce`), the current text's diagnostics are
published with the version they belong to, so a stale version is never published; a large
document's analysis starts at the edit, in the worker, while the debounce waits (the debounce
delays what is sent, not what is computed). Both models send JSON written from each
diagnostic's kept JSON (`diagnostic_json`). Closing a document publishes an empty list. Pull model (LSP 3.17): the client asks with `textDocument/diagnostic`
and may send the previous `resultId` to get "unchanged". Pull is offered only to a client that
supports both the pull and its refresh (see `Publisher`); with `diagnostics.mode` "auto" or
"pull" such a client gets pull only (no duplicates), every other client gets push. Other
features add their own diagnostics (run results, ...) through their `diagnostics`
contribution (`server.Feature`), published with the analysis'.
"""

from __future__ import annotations

import asyncio
import json

from lsprotocol import types

from ..analysis.diagnostic import Diagnostic
from ..cancellation import Cancelled
from ..ide.host import small
from ..ide.state import DocumentState
from .diagnostic_json import Conversions, notification, with_items
from .handlers import request
from .proto import SOURCE, diagnostic
from .protocol import Serialised, converter as converter_of
from .server import Feature, WaveLanguageServer, report_failure


def to_lsp(server: WaveLanguageServer, doc: DocumentState, d: Diagnostic) -> types.Diagnostic:
    """One analysis diagnostic as lsprotocol, as this client shows them."""
    return diagnostic(doc, d, server.codec, server.client.related_information)


def contributed(server: WaveLanguageServer, doc: DocumentState) -> list[types.Diagnostic]:
    """The other features' diagnostics of `doc` (run results, ...)."""
    return [item for items in server.contributions("diagnostics", doc) for item in items]


def json_items(server: WaveLanguageServer, doc: DocumentState, diagnostics: list[Diagnostic],
               extra: list[types.Diagnostic]) -> list[bytes]:
    """The JSON of the analysis `diagnostics` (their kept JSON, as one joined item) and of the
    lsprotocol diagnostics `extra`: the items of a publication or of a pulled report."""
    items = [server.get_feature(Publisher).conversions.items(server, doc, diagnostics)] \
        if diagnostics else []
    converter = converter_of(server)
    return items + [json.dumps(converter.unstructure(item)).encode() for item in extra]


def publication(server: WaveLanguageServer, doc: DocumentState, version: int | None,
                diagnostics: list[Diagnostic], extra: list[types.Diagnostic]) -> bytes:
    """The JSON body (UTF-8 bytes) of the `publishDiagnostics` notification of `diagnostics`
    and of the lsprotocol diagnostics `extra`, as pygls would write it; each analysis
    diagnostic's JSON is the kept one (`diagnostic_json`), written into the body as it is."""
    items = json_items(server, doc, diagnostics, extra)
    return notification(server, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                        types.PublishDiagnosticsParams(uri=doc.uri, version=version,
                                                       diagnostics=[]), "diagnostics", items)


class Publisher(Feature):
    """Decides push or pull, publishes when an edit settles, and answers pulls.

    Pull is offered only to a client that can also be told to pull again
    (`workspace.diagnostics.refreshSupport`): run results arrive without an edit, and a client
    that cannot be asked to refresh (Neovim 0.11) would never see them. Every other client gets
    push, whatever `diagnostics.mode` says. The mode may change with the settings at any time:
    the side left behind is emptied (an empty publication, or a refresh answered with no items)
    so no diagnostic is shown twice."""

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(server)
        self.pull = False
        self.offered = False        # pull registered at initialize (the client can use it)
        # per document: the conversions of its last publication
        self.conversions = Conversions()

    @property
    def push(self) -> bool:
        return not self.pull

    def initialize(self, params: types.InitializeParams) -> None:
        """Offer pull when the client supports it and its refresh; choose the model from the
        `diagnostics.mode` setting."""
        server = self.server
        self.offered = server.client.pull_diagnostics and server.client.diagnostic_refresh
        if self.offered:
            register_pull(server, self)
        self.pull = self._wants_pull(log=True)

    def _wants_pull(self, log: bool = False) -> bool:
        mode = self.server.settings.diagnostics_mode
        if mode == "pull" and not self.offered and log:
            self.server.log("wave-lsp: diagnostics.mode 'pull' needs a client that supports "
                            "pulled diagnostics and their refresh; pushing them instead")
        return self.offered and mode != "push"

    def document_edited(self, doc: DocumentState) -> None:
        """Start the analysis of a large document's new text at once, in the worker, while
        the edit's debounce waits (the server's one debounce delays what is sent, not what is
        computed): when it fires, the publication finds the analysis and its JSON made and
        only sends them. The next edit cancels it, as any job of the document."""
        if self.push and not small(doc.lines):
            self.publish(doc, send=False)

    def document_settled(self, doc: DocumentState) -> None:
        if self.push:
            self.publish(doc)

    def results_changed(self, doc: DocumentState) -> None:
        if self.push:
            self.publish(doc)
        elif self.server.client.diagnostic_refresh:
            self.server.workspace_diagnostic_refresh(None)

    def publish(self, doc: DocumentState, send: bool = True) -> asyncio.Future:
        """Publish the document's diagnostics soon (see `publish_now`); with `send` False,
        only compute them (their JSON is kept for the publication that follows)."""
        async def guarded() -> None:
            try:
                await self.publish_now(doc, send)
            except Cancelled:
                pass
            except Exception as exc:
                report_failure(self.server, "publishing diagnostics", exc)
        return asyncio.ensure_future(guarded())

    async def publish_now(self, doc: DocumentState, send: bool = True) -> None:
        """Analyse the current text (off the event loop for a large document) and publish it
        with its version (with `send` False, stop before sending)."""
        doc = await self.server.documents.ready(doc.uri) or doc
        version = doc.version
        protocol = self.server.protocol

        def serialised(d: DocumentState) -> bytes:
            diagnostics = self.server.analysis(d)
            if not send:
                return self.conversions.items(self.server, d, diagnostics)
            return publication(self.server, d, version, diagnostics, contributed(self.server, d))

        body = await self.server.documents.run(
            doc, serialised, name="diagnostics" if send else "diagnostics ahead of the debounce")
        if not send or doc.version != version or self.server.document(doc.uri) is not doc \
                or self.pull:
            return  # never publish for a stale version, nor once the client pulls instead
        protocol.send_serialized(body)
        self.server.documents.settle(doc)

    def document_closed(self, uri: str) -> None:
        self.conversions.forget(uri)
        if self.push:
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def settings_changed(self) -> None:
        """Switch between push and pull when `diagnostics.mode` asks for it (every open
        document is then settled again, which re-delivers its diagnostics under the new
        settings: `sync.Debounce`)."""
        server = self.server
        pull = self._wants_pull(log=True)
        if pull and not self.pull:        # to pull: empty the pushed lists, then ask to pull
            self.pull = True
            for doc in server.documents.all():
                server.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=[]))
        elif self.pull and not pull:      # to push: pulls now get nothing, pushes start
            self.pull = False
        if self.offered:
            server.workspace_diagnostic_refresh(None)


def register_pull(server: WaveLanguageServer, publisher: Publisher) -> None:
    """Register `textDocument/diagnostic` (done during `initialize`, before capabilities)."""
    if types.TEXT_DOCUMENT_DIAGNOSTIC in server.protocol.fm.features:
        return

    @request(server, types.TEXT_DOCUMENT_DIAGNOSTIC,
             types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=False,
                                     workspace_diagnostics=False),
             default=lambda: types.RelatedFullDocumentDiagnosticReport(items=[]), analysis=True,
             binary=True)
    def pull(doc: DocumentState, params: types.DocumentDiagnosticParams):
        if publisher.push:      # `diagnostics.mode` is "push": they come pushed
            return types.RelatedFullDocumentDiagnosticReport(items=[], result_id="push")
        # every job kind's results (runs, profiles, tests, ...) and the vendors' checks
        runs = ".".join(str(g) for g in server.contributions("results_generation", doc))
        result_id = f"{doc.revision}.{server.settings_generation}.{id(doc)}.{runs}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        # written as JSON here, in the worker, from each diagnostic's kept JSON (as pushed)
        items = json_items(server, doc, server.analysis(doc), contributed(server, doc))
        report = converter_of(server).unstructure(types.RelatedFullDocumentDiagnosticReport(
            items=[], result_id=result_id))
        return Serialised(with_items(report, "items", items).decode())


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(Publisher(server))
