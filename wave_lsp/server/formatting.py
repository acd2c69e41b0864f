"""Formatting: `textDocument/formatting` and `textDocument/rangeFormatting` return the edits that
lay a document (or the lines of a range) out as `formatter.py` describes: one edit per changed
line, replacing that line's content only, so line breaks and unchanged lines are untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.state import DocumentState
from .documents import line_range, to_server_position
from ..ide.formatting import format_lines
from .handlers import request

if TYPE_CHECKING:
    from .server import WaveLanguageServer


def line_edits(server: "WaveLanguageServer", doc: DocumentState, first: int,
               last: int) -> list[types.TextEdit]:
    formatted = doc.derived("formatted", lambda d: format_lines(d.lines, d.syntax))
    return [types.TextEdit(range=line_range(doc, n, server.codec), new_text=formatted[n])
            for n in range(first, last + 1) if formatted[n] != doc.lines[n]]


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_FORMATTING, default=list)
    def formatting(params: types.DocumentFormattingParams) -> list[types.TextEdit]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        return line_edits(server, doc, 0, len(doc.lines) - 1)

    @request(server, types.TEXT_DOCUMENT_RANGE_FORMATTING, default=list)
    def range_formatting(params: types.DocumentRangeFormattingParams) -> list[types.TextEdit]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        first, _ = to_server_position(doc, params.range.start, server.codec)
        last, col = to_server_position(doc, params.range.end, server.codec)
        if col == 0 and last > first:
            last -= 1  # a range ending at the start of a line does not include that line
        return line_edits(server, doc, first, last)
