"""Folding ranges: `textDocument/foldingRange` tells the editor which line spans can collapse:
`.kernel`/`.end` blocks, `if`/`else`/`endif` and `loop`/`endloop` bodies, and runs of comment
lines. Each range ends on the line before its closing line, so `.end`/`endif` stay visible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..syntax.document import Document
from .handlers import request

if TYPE_CHECKING:
    from .server import WaveLanguageServer

OPENERS = {"if": "endif", "loop": "endloop"}


def blocks(doc: Document) -> list[tuple[int, int, str]]:
    """(first line, closing line, kind) of every structured block: kernel, if, else, loop."""
    out: list[tuple[int, int, str]] = []
    for kernel in doc.program.kernels:
        if kernel.end_line is not None:
            out.append((kernel.line, kernel.end_line, "kernel"))
        stack: list[tuple[str, int]] = []
        for line, ins in kernel.instructions:
            m = ins.mnemonic.text
            if m in OPENERS:
                stack.append((m, line))
            elif m == "else" and stack and stack[-1][0] in ("if", "else"):
                _, start = stack.pop()
                out.append((start, line, "if"))
                stack.append(("else", line))
            elif m == "endif" and stack and stack[-1][0] in ("if", "else"):
                kind, start = stack.pop()
                out.append((start, line, kind))
            elif m == "endloop" and stack and stack[-1][0] == "loop":
                _, start = stack.pop()
                out.append((start, line, "loop"))
    return out


def comment_runs(doc: Document) -> list[tuple[int, int]]:
    """(first, last) line of each run of two or more comment-only lines."""
    out = []
    start = None
    for number, syntax in enumerate(doc.syntax + [None]):
        is_comment = syntax is not None and syntax.comment is not None \
            and not syntax.statements and syntax.problem is None
        if is_comment and start is None:
            start = number
        elif not is_comment and start is not None:
            if number - 1 > start:
                out.append((start, number - 1))
            start = None
    return out


def folding_ranges(doc: Document) -> list[types.FoldingRange]:
    ranges = [types.FoldingRange(start_line=s, end_line=e - 1, kind=types.FoldingRangeKind.Region)
              for s, e, _ in blocks(doc) if e - 1 > s]
    ranges += [types.FoldingRange(start_line=s, end_line=e, kind=types.FoldingRangeKind.Comment)
               for s, e in comment_runs(doc)]
    ranges.sort(key=lambda r: (r.start_line, -r.end_line))
    return ranges


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_FOLDING_RANGE, default=list)
    def folding(params: types.FoldingRangeParams) -> list[types.FoldingRange]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        return folding_ranges(doc)
