"""Navigation for labels and kernels: go to definition, find references, document highlight,
and rename (with `prepareRename`, which tells the editor what range can be renamed).

A label is defined by `name:` and referenced by `call name`; a kernel is defined by
`.kernel name` (nothing in a source file refers to it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from ..analysis.operand_checks import bad_name
from ..ide.state import DocumentState
from .documents import span, to_server_position
from .handlers import request
from ..ide.locate import TargetKind, label_references, target_at

if TYPE_CHECKING:
    from .server import WaveLanguageServer

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LABELS = (TargetKind.LABEL_DEFINITION, TargetKind.LABEL_REFERENCE)


def symbol_at(doc: DocumentState, line: int, col: int) -> tuple[str, str, int, int] | None:
    """(kind "label"/"kernel", name, start, end) of the named symbol at a position."""
    target = target_at(doc, line, col)
    if target is None:
        return None
    if target.kind in _LABELS:
        return "label", target.text, target.start, target.end
    if target.kind is TargetKind.KERNEL:
        return "kernel", target.text, target.start, target.end
    return None


def definitions(doc: DocumentState, kind: str, name: str) -> list[tuple[int, int, int]]:
    """(line, start, end) of every definition."""
    if kind == "label":
        return [(line, lab.name.start, lab.name.end)
                for line, lab, _k in doc.program.labels.get(name, [])]
    return [(k.line, k.directive.args[0].start, k.directive.args[0].end)
            for k in doc.program.kernels if k.name == name and k.directive.args]


def references(doc: DocumentState, kind: str, name: str) -> list[tuple[int, int, int]]:
    """(line, start, end) of every use (not definitions)."""
    if kind != "label":
        return []
    return [(line, op.start, op.end) for line, op in label_references(doc, name)]


def setup(server: "WaveLanguageServer") -> None:
    def locate(params) -> tuple[DocumentState, tuple[str, str, int, int], int] | None:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return None
        line, col = to_server_position(doc, params.position, server.codec)
        found = symbol_at(doc, line, col)
        return (doc, found, line) if found else None

    def location(doc, line, start, end) -> types.Location:
        return types.Location(uri=doc.uri, range=span(doc, line, start, end, server.codec))

    @request(server, types.TEXT_DOCUMENT_DEFINITION, default=list)
    def definition(params: types.DefinitionParams) -> list[types.Location]:
        found = locate(params)
        if not found:
            return []
        doc, (kind, name, _s, _e), _line = found
        return [location(doc, *d) for d in definitions(doc, kind, name)]

    @request(server, types.TEXT_DOCUMENT_REFERENCES, default=list)
    def find_references(params: types.ReferenceParams) -> list[types.Location]:
        found = locate(params)
        if not found:
            return []
        doc, (kind, name, _s, _e), _line = found
        places = references(doc, kind, name)
        if params.context.include_declaration:
            places = definitions(doc, kind, name) + places
        return [location(doc, *p) for p in sorted(places)]

    @request(server, types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, default=list)
    def highlight(params: types.DocumentHighlightParams) -> list[types.DocumentHighlight]:
        found = locate(params)
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
    def prepare_rename(params: types.PrepareRenameParams):
        found = locate(params)
        if not found:
            return None
        doc, (_kind, name, start, end), line = found
        return types.PrepareRenamePlaceholder(range=span(doc, line, start, end, server.codec),
                                              placeholder=name)

    @request(server, types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    def rename(params: types.RenameParams) -> types.WorkspaceEdit | None:
        found = locate(params)
        if not found:
            return None
        doc, (kind, name, _s, _e), _line = found
        new = params.new_name
        problem = None if NAME.fullmatch(new) else "is not a valid name"
        problem = problem or bad_name(new)
        if problem is None and new != name and (
                (kind == "label" and new in doc.program.labels)
                or (kind == "kernel" and doc.program.kernel_named(new))):
            problem = f"is already a {kind} in this file"
        if problem:
            raise JsonRpcInvalidParams(f"cannot rename {kind} '{name}' to '{new}': {new!r} "
                                       f"{problem}")
        edits = [types.TextEdit(range=span(doc, *p, server.codec), new_text=new)
                 for p in sorted(definitions(doc, kind, name) + references(doc, kind, name))]
        return types.WorkspaceEdit(changes={doc.uri: edits})
