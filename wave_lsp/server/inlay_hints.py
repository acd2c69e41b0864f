"""Inlay hints: `textDocument/inlayHint` returns small labels drawn inside the text: before each
instruction its byte offset in the kernel, after it its encoded words. Both parts can be switched
off (`inlayHints.offsets`, `inlayHints.encoding`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.state import DocumentState
from .documents import to_client_position, to_server_position
from ..ide.encoding import code_layout, instruction_views
from .handlers import request

if TYPE_CHECKING:
    from .server import WaveLanguageServer


def hints(server: "WaveLanguageServer", doc: DocumentState, first: int,
          last: int) -> list[types.InlayHint]:
    settings = server.settings
    codec = server.codec
    out: list[types.InlayHint] = []
    by_line = code_layout(doc).by_line
    for line in range(first, min(last, len(doc.lines) - 1) + 1):
        placed = by_line.get(line)
        if not placed:
            continue
        if settings.inlay_offsets:
            for p in placed:
                if p.kernel is None or p.spec is None:
                    continue
                out.append(types.InlayHint(
                    position=to_client_position(doc, line, p.instruction.start, codec),
                    label=f"{p.offset:04x}", kind=types.InlayHintKind.Type, padding_right=True,
                    tooltip=f"byte offset {p.offset} in kernel {p.kernel.name}"))
        if settings.inlay_encoding:
            views = instruction_views(doc, line, settings.compat)
            end = max(p.instruction.end for p in placed)
            for view in views:
                out.append(types.InlayHint(
                    position=to_client_position(doc, line, end, codec),
                    label=view.hex, kind=types.InlayHintKind.Parameter, padding_left=True,
                    tooltip=f"{view.size} bytes at offset {view.offset}"))
    return out


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_INLAY_HINT, default=list)
    def inlay_hints(params: types.InlayHintParams) -> list[types.InlayHint]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        first, _ = to_server_position(doc, params.range.start, server.codec)
        last, _ = to_server_position(doc, params.range.end, server.codec)
        return hints(server, doc, first, last)
