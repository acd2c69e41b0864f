"""Inlay hints: `textDocument/inlayHint` returns small labels drawn inside the text: before each
instruction its byte offset in the kernel, after it its encoded words (`ide.inlay`). Both parts
can be switched off (`inlayHints.offsets`, `inlayHints.encoding`). Then the values of the last
inline run (`run_view`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.inlay import hints
from . import run_view
from .documents import to_client_position, to_server_position
from .handlers import request

if TYPE_CHECKING:
    from .server import WaveLanguageServer


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_INLAY_HINT, default=list)
    def inlay_hints(params: types.InlayHintParams) -> list[types.InlayHint]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        first, _ = to_server_position(doc, params.range.start, server.codec)
        last, _ = to_server_position(doc, params.range.end, server.codec)
        settings = server.settings
        out = []
        for h in hints(doc, first, last, settings.inlay_offsets, settings.inlay_encoding,
                       settings.compat):
            offset = h.kind == "offset"
            out.append(types.InlayHint(
                position=to_client_position(doc, h.line, h.column, server.codec),
                label=h.label,
                kind=types.InlayHintKind.Type if offset else types.InlayHintKind.Parameter,
                padding_right=True if offset else None, padding_left=None if offset else True,
                tooltip=h.tooltip))
        return out + run_view.inlay_hints(server, doc, first, last)
