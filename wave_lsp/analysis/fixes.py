"""Applying the mechanical fixes of diagnostics to source text (`wave-lsp lint --fix`, and the
language server's "fix all" actions)."""

from __future__ import annotations

from typing import Iterable

from ..syntax.document import split_lines
from .diagnostic import Diagnostic, TextEdit


def fix_edits(diagnostics: Iterable[Diagnostic], codes: Iterable[str] | None = None) -> list[TextEdit]:
    """The edits of every diagnostic's first fix (optionally only for some codes), leaving out
    a fix that overlaps one taken before it."""
    wanted = set(codes) if codes is not None else None
    taken: list[TextEdit] = []
    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for d in sorted(diagnostics, key=lambda d: d.sort_key):
        if not d.fixes or (wanted is not None and d.code not in wanted):
            continue
        edits = d.fixes[0].edits
        mine = [((e.range.start_line, e.range.start_col), (e.range.end_line, e.range.end_col))
                for e in edits]
        if any(a < d_ and c < b or a == b == c == d_ for a, b in mine for c, d_ in spans):
            continue
        spans.extend(mine)
        taken.extend(edits)
    return taken


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping edits (positions in code points) to `text`."""
    lines, breaks = split_lines(text)
    starts = []
    total = 0
    for line, brk in zip(lines, breaks):
        starts.append(total)
        total += len(line) + len(brk)

    def offset(line: int, col: int) -> int:
        if line >= len(lines):
            return len(text)
        return starts[line] + min(col, len(lines[line]))

    out = text
    ordered = sorted(edits, key=lambda e: (e.range.start_line, e.range.start_col,
                                           e.range.end_line, e.range.end_col), reverse=True)
    for e in ordered:
        a = offset(e.range.start_line, e.range.start_col)
        b = offset(e.range.end_line, e.range.end_col)
        out = out[:a] + e.new_text + out[b:]
    return out
