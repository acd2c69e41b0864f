"""Symbols: `textDocument/documentSymbol` gives the outline (kernels containing their labels);
`workspace/symbol` searches kernels and labels of every open document by name. The symbols come
from `ide.symbols`; this module translates them.
"""

from __future__ import annotations

from lsprotocol import types

from ..ide.state import DocumentState
from ..ide.symbols import OutlineItem, outline, search
from .handlers import request
from .proto import location, to_client_range
from .server import WaveLanguageServer

KINDS = {"kernel": types.SymbolKind.Function, "label": types.SymbolKind.Key}


def document_symbols(server: WaveLanguageServer, doc: DocumentState) -> list[types.DocumentSymbol]:
    codec = server.codec

    def convert(item: OutlineItem) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=item.name, kind=KINDS[item.kind], detail=item.detail,
            range=to_client_range(doc, item.range, codec),
            selection_range=to_client_range(doc, item.selection, codec),
            children=[convert(c) for c in item.children] if item.kind == "kernel" else None)

    return [convert(item) for item in outline(doc)]


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, default=list)
    def outline_request(doc: DocumentState,
                        params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        return document_symbols(server, doc)

    @request(server, types.WORKSPACE_SYMBOL, default=list)
    def workspace_symbols(params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        out: list[types.WorkspaceSymbol] = []
        for doc in server.documents.all():
            if doc.binary or not server.documents.is_ready(doc.uri):
                continue
            for item in search(doc, params.query):
                out.append(types.WorkspaceSymbol(
                    name=item.name, kind=KINDS[item.kind], container_name=item.container,
                    location=location(doc, item.range, server.codec)))
        return out
