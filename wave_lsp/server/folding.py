"""Folding ranges: `textDocument/foldingRange` tells the editor which line spans can collapse:
`.kernel`/`.end` blocks, `if`/`else`/`endif` and `loop`/`endloop` bodies, and runs of comment
lines (computed by `ide.folding`). Each range ends on the line before its closing line, so
`.end`/`endif` stay visible.
"""

from __future__ import annotations

from lsprotocol import types

from ..ide.folding import folds
from ..ide.state import DocumentState
from .handlers import request
from .server import WaveLanguageServer

KINDS = {"region": types.FoldingRangeKind.Region, "comment": types.FoldingRangeKind.Comment}


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_FOLDING_RANGE, default=list)
    def folding(doc: DocumentState, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
        return [types.FoldingRange(start_line=f.first, end_line=f.last, kind=KINDS[f.kind])
                for f in folds(doc)]
