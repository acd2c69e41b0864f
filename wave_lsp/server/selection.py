"""Selection ranges: `textDocument/selectionRange` gives, for each cursor, the chain of ranges an
"expand selection" command walks: token, statement, line, enclosing if/loop blocks, kernel,
whole document (computed by `ide.folding.selection_chain`). Each range strictly contains the
previous one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.folding import selection_chain
from .documents import to_client_range, to_server_position
from .handlers import request

if TYPE_CHECKING:
    from .server import WaveLanguageServer


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_SELECTION_RANGE, default=list)
    def selection(params: types.SelectionRangeParams) -> list[types.SelectionRange]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        out = []
        for position in params.positions:
            line, col = to_server_position(doc, position, server.codec)
            parent = None
            for rng in reversed(selection_chain(doc, line, col)):
                parent = types.SelectionRange(range=to_client_range(doc, rng, server.codec),
                                              parent=parent)
            out.append(parent)
        return out
