"""Formatting: `textDocument/formatting` and `textDocument/rangeFormatting` return the edits that
lay a document (or the lines of a range) out as `ide/formatting.py` describes: one edit per
changed line, replacing that line's content only, so line breaks and unchanged lines are
untouched (beyond `MAX_LINE_EDITS` changed lines, one edit over the span that changed).
"""

from __future__ import annotations

from lsprotocol import types

from ..ide.formatting import format_lines
from ..ide.state import DocumentState
from .handlers import request
from .proto import line_range, to_server_position
from .server import WaveLanguageServer


MAX_LINE_EDITS = 2_000   # more changed lines than this: one edit over the changed span


def line_edits(server: WaveLanguageServer, doc: DocumentState, first: int,
               last: int) -> list[types.TextEdit]:
    formatted = doc.derived("formatted", lambda d: format_lines(d.lines, d.syntax))
    lines = doc.lines
    changed = [n for n in range(first, last + 1) if formatted[n] != lines[n]]
    if len(changed) <= MAX_LINE_EDITS:
        return [types.TextEdit(range=line_range(doc, n, server.codec), new_text=formatted[n])
                for n in changed]
    # a huge reformat (a file never formatted): one edit is far cheaper to send and to apply
    lo, hi = changed[0], changed[-1]
    breaks = doc.document.breaks
    text = "".join(formatted[n] + breaks[n] for n in range(lo, hi)) + formatted[hi]
    return [types.TextEdit(range=types.Range(start=line_range(doc, lo, server.codec).start,
                                             end=line_range(doc, hi, server.codec).end),
                           new_text=text)]


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_FORMATTING, default=list)
    def formatting(doc: DocumentState,
                   params: types.DocumentFormattingParams) -> list[types.TextEdit]:
        return line_edits(server, doc, 0, len(doc.lines) - 1)

    @request(server, types.TEXT_DOCUMENT_RANGE_FORMATTING, default=list)
    def range_formatting(doc: DocumentState,
                         params: types.DocumentRangeFormattingParams) -> list[types.TextEdit]:
        first, _ = to_server_position(doc, params.range.start, server.codec)
        last, col = to_server_position(doc, params.range.end, server.codec)
        if col == 0 and last > first:
            last -= 1  # a range ending at the start of a line does not include that line
        return line_edits(server, doc, first, last)
