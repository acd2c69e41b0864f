"""Navigation for labels and kernels: go to definition, find references, document highlight,
and rename (with `prepareRename`, which tells the editor what range can be renamed).

What a symbol is and where it is defined and used comes from `ide.navigation`.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from ..ide.navigation import (definitions, references, rename_places, rename_problem,
                              symbol_at)
from ..ide.state import DocumentState
from .handlers import request
from . import proto
from .proto import span, to_server_position
from .server import WaveLanguageServer


def setup(server: WaveLanguageServer) -> None:
    def locate(doc: DocumentState, params
               ) -> tuple[DocumentState, tuple[str, str, int, int], int] | None:
        line, col = to_server_position(doc, params.position, server.codec)
        found = symbol_at(doc, line, col)
        return (doc, found, line) if found else None

    def location(doc, line, start, end) -> types.Location:
        return types.Location(uri=doc.uri, range=span(doc, line, start, end, server.codec))

    @request(server, types.TEXT_DOCUMENT_DEFINITION, default=list)
    def definition(doc: DocumentState, params: types.DefinitionParams) -> list[types.Location]:
        found = locate(doc, params)
        if not found:
            return []
        doc, (kind, name, _s, _e), _line = found
        return [location(doc, *d) for d in definitions(doc, kind, name)]

    @request(server, types.TEXT_DOCUMENT_REFERENCES, default=list)
    def find_references(doc: DocumentState,
                        params: types.ReferenceParams) -> list[types.Location]:
        found = locate(doc, params)
        if not found:
            return []
        doc, (kind, name, _s, _e), _line = found
        places = references(doc, kind, name)
        if params.context.include_declaration:
            places = definitions(doc, kind, name) + places
        return [location(doc, *p) for p in sorted(places)]

    @request(server, types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, default=list)
    def highlight(doc: DocumentState,
                  params: types.DocumentHighlightParams) -> list[types.DocumentHighlight]:
        found = locate(doc, params)
        if not found:
            return []
        doc, (kind, name, _s, _e), _line = found
        out = [types.DocumentHighlight(range=span(doc, *d, server.codec),
                                       kind=types.DocumentHighlightKind.Write)
               for d in definitions(doc, kind, name)]
        out += [types.DocumentHighlight(range=span(doc, *r, server.codec),
                                        kind=types.DocumentHighlightKind.Read)
                for r in references(doc, kind, name)]
        return out

    @request(server, types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(doc: DocumentState, params: types.PrepareRenameParams):
        found = locate(doc, params)
        if not found:
            return None
        doc, (_kind, name, start, end), line = found
        return types.PrepareRenamePlaceholder(range=span(doc, line, start, end, server.codec),
                                              placeholder=name)

    @request(server, types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    def rename(doc: DocumentState, params: types.RenameParams) -> types.WorkspaceEdit | None:
        found = locate(doc, params)
        if not found:
            return None
        doc, (kind, name, _s, _e), _line = found
        new = params.new_name
        problem = rename_problem(doc, kind, name, new)
        if problem:
            raise JsonRpcInvalidParams(f"cannot rename {kind} '{name}' to '{new}': {new!r} "
                                       f"{problem}")
        edits = [types.TextEdit(range=span(doc, *p, server.codec), new_text=new)
                 for p in rename_places(doc, kind, name)]
        return proto.document_edit(doc, edits, server.client.versioned_edits)
