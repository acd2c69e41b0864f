"""Symbols: `textDocument/documentSymbol` gives the outline (kernels containing their labels);
`workspace/symbol` searches kernels and labels of every open document by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.state import DocumentState
from .documents import line_range, span, to_client_range
from .handlers import request
from ..analysis.diagnostic import Range

if TYPE_CHECKING:
    from .server import WaveLanguageServer

KERNEL_KIND = types.SymbolKind.Function
LABEL_KIND = types.SymbolKind.Key


def _kernel_name_span(kernel) -> tuple[int, int]:
    args = kernel.directive.args
    if args:
        return args[0].start, args[0].end
    return kernel.directive.start, kernel.directive.end


def document_symbols(server: "WaveLanguageServer", doc: DocumentState) -> list[types.DocumentSymbol]:
    codec = server.codec
    program = doc.program
    out: list[types.DocumentSymbol] = []
    for kernel in program.kernels:
        last = kernel.last_line
        whole = to_client_range(doc, Range(kernel.line, 0, last, len(doc.lines[last])), codec)
        start, end = _kernel_name_span(kernel)
        children = [types.DocumentSymbol(
            name=label.name.text, kind=LABEL_KIND, detail="label",
            range=line_range(doc, line, codec),
            selection_range=span(doc, line, label.name.start, label.name.end, codec))
            for line, label in kernel.labels]
        out.append(types.DocumentSymbol(
            name=kernel.name or "(unnamed kernel)", kind=KERNEL_KIND, detail="kernel",
            range=whole, selection_range=span(doc, kernel.line, start, end, codec),
            children=children))
    for name, defs in program.labels.items():
        for line, label, kernel in defs:
            if kernel is None:
                out.append(types.DocumentSymbol(
                    name=name, kind=LABEL_KIND, detail="label outside any kernel",
                    range=line_range(doc, line, codec),
                    selection_range=span(doc, line, label.name.start, label.name.end, codec)))
    out.sort(key=lambda s: (s.range.start.line, s.range.start.character))
    return out


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, default=list)
    def outline(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        return document_symbols(server, doc)

    @request(server, types.WORKSPACE_SYMBOL, default=list)
    def workspace_symbols(params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        query = params.query.lower()
        out: list[types.WorkspaceSymbol] = []
        for doc in server.documents.all():
            if doc.binary:
                continue
            program = doc.program
            for kernel in program.kernels:
                if query in kernel.name.lower():
                    start, end = _kernel_name_span(kernel)
                    out.append(types.WorkspaceSymbol(
                        name=kernel.name, kind=KERNEL_KIND, location=types.Location(
                            uri=doc.uri, range=span(doc, kernel.line, start, end, server.codec))))
            for name, defs in program.labels.items():
                if query in name.lower():
                    for line, label, kernel in defs:
                        out.append(types.WorkspaceSymbol(
                            name=name, kind=LABEL_KIND,
                            container_name=kernel.name if kernel else None,
                            location=types.Location(uri=doc.uri, range=span(
                                doc, line, label.name.start, label.name.end, server.codec))))
        return out
