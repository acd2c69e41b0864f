"""Navigation for labels, kernels and registers: go to definition, find references, document
highlight (reads and writes), and rename (with `prepareRename`, which tells the editor what range
can be renamed).

What a symbol is and where it is defined and used comes from `ide.navigation`.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from ..ide.navigation import Symbol, definitions, highlights, references, rename, symbol_at
from ..ide.state import DocumentState
from .handlers import request
from . import proto
from .proto import span, to_server_position
from .server import WaveLanguageServer

_KIND = {True: types.DocumentHighlightKind.Write, False: types.DocumentHighlightKind.Read}


def setup(server: WaveLanguageServer) -> None:
    def locate(doc: DocumentState, params) -> Symbol | None:
        line, col = to_server_position(doc, params.position, server.codec)
        return symbol_at(doc, line, col)

    def location(doc, line, start, end) -> types.Location:
        return types.Location(uri=doc.uri, range=span(doc, line, start, end, server.codec))

    @request(server, types.TEXT_DOCUMENT_DEFINITION, default=list)
    def definition(doc: DocumentState, params: types.DefinitionParams) -> list[types.Location]:
        found = locate(doc, params)
        return [location(doc, *d) for d in definitions(doc, found)] if found else []

    @request(server, types.TEXT_DOCUMENT_REFERENCES, default=list)
    def find_references(doc: DocumentState,
                        params: types.ReferenceParams) -> list[types.Location]:
        found = locate(doc, params)
        if not found:
            return []
        places = references(doc, found, params.context.include_declaration)
        return [location(doc, *p) for p in places]

    @request(server, types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, default=list)
    def highlight(doc: DocumentState,
                  params: types.DocumentHighlightParams) -> list[types.DocumentHighlight]:
        found = locate(doc, params)
        if not found:
            return []
        return [types.DocumentHighlight(range=span(doc, line, start, end, server.codec),
                                        kind=_KIND[written])
                for line, start, end, written in highlights(doc, found)]

    @request(server, types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(doc: DocumentState, params: types.PrepareRenameParams):
        found = locate(doc, params)
        if not found:
            return None
        return types.PrepareRenamePlaceholder(
            range=span(doc, found.line, found.start, found.end, server.codec),
            placeholder=doc.lines[found.line][found.start:found.end])

    @request(server, types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    def rename_symbol(doc: DocumentState, params: types.RenameParams
                      ) -> types.WorkspaceEdit | None:
        found = locate(doc, params)
        if not found:
            return None
        problem, places = rename(doc, found, params.new_name)
        if problem:
            raise JsonRpcInvalidParams(problem)
        edits = [types.TextEdit(range=span(doc, line, start, end, server.codec), new_text=text)
                 for line, start, end, text in places]
        return proto.document_edit(doc, edits, server.client.versioned_edits)
