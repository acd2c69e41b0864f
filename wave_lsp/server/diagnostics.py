"""Diagnostics, pushed and pulled.

Push model: the server sends `textDocument/publishDiagnostics` on its own. When an edit settles
(the server's one debounce per edit, `sync.Debounce`), the current text is analysed and
published with the version it belongs to, so a stale version is never published. Closing a document
publishes an empty list. Pull model (LSP 3.17): the client asks with `textDocument/diagnostic`
and may send the previous `resultId` to get "unchanged". Pull is offered only to a client that
supports both the pull and its refresh (see `Publisher`); with `diagnostics.mode` "auto" or
"pull" such a client gets pull only (no duplicates), every other client gets push. Other
features add their own diagnostics (run results, ...) through their `diagnostics`
contribution (`server.Feature`), published with the analysis'.
"""

from __future__ import annotations

import asyncio
import json
from operator import is_, itemgetter

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol

from ..analysis.diagnostic import Diagnostic
from ..cancellation import Cancelled
from ..ide.host import small
from ..ide.state import DocumentState
from .handlers import request
from .proto import SOURCE, diagnostic
from .protocol import converter as converter_of
from .server import Feature, WaveLanguageServer, report_failure


def to_lsp(server: WaveLanguageServer, doc: DocumentState, d: Diagnostic) -> types.Diagnostic:
    """One analysis diagnostic as lsprotocol, as this client shows them."""
    return diagnostic(doc, d, server.codec, server.client.related_information)


def contributed(server: WaveLanguageServer, doc: DocumentState) -> list[types.Diagnostic]:
    """The other features' diagnostics of `doc` (run results, ...)."""
    return [item for items in server.contributions("diagnostics", doc) for item in items]


def _touched(d: Diagnostic) -> tuple[int, ...]:
    """The lines whose text a diagnostic's client positions depend on."""
    r = d.range
    if not d.related:
        return (r.start_line,) if r.start_line == r.end_line else (r.start_line, r.end_line)
    return tuple(sorted({r.start_line, r.end_line, *(x.range.start_line for x in d.related),
                         *(x.range.end_line for x in d.related)}))


class Converted:
    """The conversions of one document's last publication, to reuse for the diagnostics that
    survive an edit (building and encoding lsprotocol objects is the slowest part of publishing
    a large file). An entry is found by the diagnostic object (the analysis keeps the objects
    of unchanged lines and kernels, so a lookup by identity needs no hashing of the value); it
    is reused only while the lines its columns depend on keep their text, under the same
    position encoding and capabilities. `joined` keeps the JSON of the whole list, for the
    next publication of the same revision with the same diagnostics (the one made while the
    edit's debounce waited, then sent: `Publisher.document_edited`)."""

    def __init__(self, setting: tuple) -> None:
        self.setting = setting
        # id(diagnostic) -> (diagnostic, touched lines, their texts, lsp diagnostic,
        #                    JSON bytes or None, reader of the touched lines or None)
        self.by_id: dict[int, tuple] = {}
        # (revision, the diagnostics, their JSON joined by ", ") or None
        self.joined: tuple[int, list[Diagnostic], bytes] | None = None


def _same_lines(hit: tuple, lines: list[str], count: int) -> bool:
    """Whether the lines a kept conversion depends on still have the texts it was made for."""
    if len(hit[1]) == 1:            # most diagnostics: one line (an unchanged line: one object)
        n = hit[1][0]
        return (lines[n] if n < count else "") == hit[2][0]
    try:
        return hit[5](lines) == hit[2]
    except IndexError:              # a line past the end (its text counts as "")
        return all((lines[n] if n < count else "") == text for n, text in zip(hit[1], hit[2]))


def _convert(server: WaveLanguageServer, doc: DocumentState, diagnostics: list[Diagnostic],
             encode: bool) -> tuple[Converted, list[tuple]]:
    """The document's new `Converted` record, and (diagnostic, lines, texts, lsp diagnostic,
    JSON or None, reader) for each diagnostic, reusing the document's previous conversions."""
    setting = (server.codec.encoding, server.client.related_information)
    converted = server.get_feature(Publisher).converted
    previous = converted.get(doc.uri)
    if previous is not None and previous.setting != setting:
        previous = None
    fresh = Converted(setting)
    converter = converter_of(server)
    out = []
    lines = doc.lines
    count = len(lines)
    kept = previous.by_id if previous is not None else {}
    by_id = fresh.by_id
    for d in diagnostics:
        hit = kept.get(id(d))
        if hit is not None and (hit[0] is not d or not _same_lines(hit, lines, count)):
            hit = None
        if hit is None:
            touched = _touched(d)
            hit = (d, touched, tuple(lines[n] if n < count else "" for n in touched),
                   to_lsp(server, doc, d), None,
                   itemgetter(*touched) if len(touched) > 1 else None)
        if encode and hit[4] is None:
            hit = hit[:4] + (json.dumps(converter.unstructure(hit[3])).encode(),) + hit[5:]
        by_id[id(d)] = hit
        out.append(hit)
    if server.document(doc.uri) is doc:     # not for a document closed meanwhile
        converted[doc.uri] = fresh
    return fresh, out


def convert_all(server: WaveLanguageServer, doc: DocumentState,
                diagnostics: list[Diagnostic]) -> list[types.Diagnostic]:
    """`to_lsp` of every diagnostic, reusing the conversions of the document's previous
    publication (see `Converted`)."""
    return [hit[3] for hit in _convert(server, doc, diagnostics, encode=False)[1]]


def analysis_json(server: WaveLanguageServer, doc: DocumentState,
                  diagnostics: list[Diagnostic]) -> bytes:
    """The JSON of the analysis' diagnostics as the items of a list (joined by ", ", without
    the brackets), each diagnostic encoded once and kept while it stays the same; the whole
    text is kept for the next call with the same diagnostics at the same revision."""
    last = server.get_feature(Publisher).converted.get(doc.uri)
    joined = last.joined if last is not None else None
    if joined is not None and joined[0] == doc.revision and len(joined[1]) == len(diagnostics) \
            and last.setting == (server.codec.encoding, server.client.related_information) \
            and all(map(is_, joined[1], diagnostics)):
        return joined[2]
    fresh, hits = _convert(server, doc, diagnostics, encode=True)
    text = b", ".join([hit[4] for hit in hits])
    fresh.joined = (doc.revision, diagnostics, text)
    return text


_ITEMS = b'"diagnostics": []'


def publication(server: WaveLanguageServer, doc: DocumentState, version: int | None,
                diagnostics: list[Diagnostic], extra: list[types.Diagnostic]) -> bytes:
    """The JSON body of the `publishDiagnostics` notification of `diagnostics` (and of the
    lsprotocol diagnostics `extra`), as pygls would write it, as bytes (UTF-8, all ASCII);
    each diagnostic's JSON is kept and reused by the next publication while it stays the
    same, and written into the body as it is (never decoded and encoded again)."""
    converter = converter_of(server)
    items = [analysis_json(server, doc, diagnostics)] if diagnostics else []
    items += [json.dumps(converter.unstructure(item)).encode() for item in extra]
    params = converter.unstructure(types.PublishDiagnosticsParams(
        uri=doc.uri, version=version, diagnostics=[]))
    head, marker, tail = json.dumps({"method": types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                                     "params": params, "jsonrpc": JsonRPCProtocol.VERSION}
                                    ).encode().partition(_ITEMS)
    assert marker and _ITEMS not in tail
    return b"".join([head, b'"diagnostics": [', b", ".join(items), b"]", tail])


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
        self.converted: dict[str, Converted] = {}

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
                return analysis_json(self.server, d, diagnostics)
            return publication(self.server, d, version, diagnostics, contributed(self.server, d))

        body = await self.server.documents.run(
            doc, serialised, name="diagnostics" if send else "diagnostics ahead of the debounce")
        if not send or doc.version != version or self.server.document(doc.uri) is not doc \
                or self.pull:
            return  # never publish for a stale version, nor once the client pulls instead
        protocol.send_serialized(body)
        self.server.documents.settle(doc)

    def document_closed(self, uri: str) -> None:
        self.converted.pop(uri, None)
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
        items = convert_all(server, doc, server.analysis(doc))
        items += contributed(server, doc)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(Publisher(server))
