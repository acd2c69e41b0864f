"""Selection ranges: `textDocument/selectionRange` gives, for each cursor, the chain of ranges an
"expand selection" command walks: token, statement, line, enclosing if/loop blocks, kernel,
whole document (computed by `ide.folding.selection_chain`). Each range strictly contains the
previous one.
"""

from __future__ import annotations

from lsprotocol import types

from ..ide.folding import selection_chain
from ..ide.state import DocumentState
from .handlers import request
from .proto import to_client_range, to_server_position
from .server import WaveLanguageServer


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_SELECTION_RANGE, default=list)
    def selection(doc: DocumentState,
                  params: types.SelectionRangeParams) -> list[types.SelectionRange]:
        out = []
        for position in params.positions:
            line, col = to_server_position(doc, position, server.codec)
            parent = None
            for rng in reversed(selection_chain(doc, line, col)):
                parent = types.SelectionRange(range=to_client_range(doc, rng, server.codec),
                                              parent=parent)
            out.append(parent)
        return out
