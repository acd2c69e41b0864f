"""Selection ranges: `textDocument/selectionRange` gives, for each cursor, the chain of ranges an
"expand selection" command walks: token, statement, line, enclosing if/loop blocks, kernel,
whole document. Each range strictly contains the previous one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..analysis.diagnostic import Range
from ..ide.state import DocumentState
from .documents import to_client_range, to_server_position
from .folding import blocks
from .handlers import request
from ..ide.locate import target_at

if TYPE_CHECKING:
    from .server import WaveLanguageServer


def _contains(outer: Range, inner: Range) -> bool:
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) and \
        (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def chain(doc: DocumentState, line: int, col: int) -> list[Range]:
    """Ranges around a position, innermost first."""
    text = doc.lines[line]
    candidates: list[Range] = []
    target = target_at(doc, line, col)
    if target is not None:
        candidates.append(Range.on_line(line, target.start, target.end))
    for stmt in doc.syntax[line].statements:
        if stmt.start <= col <= stmt.end:
            candidates.append(Range.on_line(line, stmt.start, stmt.end))
    body = len(text) - len(text.lstrip())
    candidates.append(Range.on_line(line, body, len(text.rstrip())))
    candidates.append(Range.on_line(line, 0, len(text)))
    spans = sorted(((s, e) for s, e, _k in blocks(doc) if s <= line <= e),
                   key=lambda se: se[1] - se[0])
    for s, e in spans:
        candidates.append(Range(s, 0, e, len(doc.lines[e])))
    last = len(doc.lines) - 1
    candidates.append(Range(0, 0, last, len(doc.lines[last])))
    out: list[Range] = []
    for rng in candidates:
        if out and (rng == out[-1] or not _contains(rng, out[-1])):
            continue
        if rng.start_line == rng.end_line and rng.start_col > rng.end_col:
            continue
        out.append(rng)
    return out


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
            for rng in reversed(chain(doc, line, col)):
                parent = types.SelectionRange(range=to_client_range(doc, rng, server.codec),
                                              parent=parent)
            out.append(parent)
        return out
