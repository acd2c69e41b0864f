"""Inlay hints: small labels drawn inside the text, before each instruction its byte offset in
the kernel, after it its encoded words. Plain data; the server translates.
"""

from __future__ import annotations

from typing import NamedTuple

from ..cancellation import checkpoint
from .encoding import code_layout, instruction_views
from .state import DocumentState


class Hint(NamedTuple):
    line: int
    column: int           # code points
    label: str
    kind: str             # "offset" (before the instruction) or "encoding" (after it)
    tooltip: str


def hints(state: DocumentState, first: int, last: int, offsets: bool = True,
          encoding: bool = True, compat: bool = False) -> list[Hint]:
    """The hints of lines first..last (each line's hints are computed once per revision)."""
    out: list[Hint] = []
    by_line = code_layout(state).by_line
    known = state.derived(("inlay hints", offsets, encoding, compat), lambda s: {})
    end = min(last, len(state.lines) - 1) + 1
    lines = sorted(n for n in by_line if first <= n < end) if end - first > 2 * len(by_line) \
        else (n for n in range(first, end) if n in by_line)
    for count, line in enumerate(lines):
        found = known.get(line)
        if found is None:
            if count & 255 == 0:
                checkpoint()
            found = known[line] = _line_hints(state, line, by_line[line], offsets, encoding,
                                              compat)
        out.extend(found)
    return out


def _line_hints(state: DocumentState, line: int, placed, offsets: bool, encoding: bool,
                compat: bool) -> list[Hint]:
    """The hints of one line, whose instructions are `placed`."""
    out: list[Hint] = []
    if not placed:
        return out
    if offsets:
        for p in placed:
            if p.kernel is None or p.spec is None:
                continue
            out.append(Hint(line, p.instruction.start, f"{p.offset:04x}", "offset",
                            f"byte offset {p.offset} in kernel {p.kernel.name}"))
    if encoding:
        end = max(p.instruction.end for p in placed)
        for view in instruction_views(state, line, compat, fields=False):
            if not view.hex:      # not encodable (its diagnostic says why): LSP forbids empty labels
                continue
            out.append(Hint(line, end, view.hex, "encoding",
                            f"{view.size} bytes at offset {view.offset}"))
    return out
