"""Folding ranges: `textDocument/foldingRange` tells the editor which line spans can collapse:
`.kernel`/`.end` blocks, `if`/`else`/`endif` and `loop`/`endloop` bodies, and runs of comment
lines (computed by `ide.folding`). Each range ends on the line before its closing line, so
`.end`/`endif` stay visible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.folding import folds
from .handlers import request

if TYPE_CHECKING:
    from .server import WaveLanguageServer

KINDS = {"region": types.FoldingRangeKind.Region, "comment": types.FoldingRangeKind.Comment}


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_FOLDING_RANGE, default=list)
    def folding(params: types.FoldingRangeParams) -> list[types.FoldingRange]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        return [types.FoldingRange(start_line=f.first, end_line=f.last, kind=KINDS[f.kind])
                for f in folds(doc)]
