"""Inlay hints: small labels drawn inside the text, before each instruction its byte offset in
the kernel, after it its encoded words. Plain data; the server translates.
"""

from __future__ import annotations

from typing import NamedTuple

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
    """The hints of lines first..last."""
    out: list[Hint] = []
    by_line = code_layout(state).by_line
    for line in range(first, min(last, len(state.lines) - 1) + 1):
        placed = by_line.get(line)
        if not placed:
            continue
        if offsets:
            for p in placed:
                if p.kernel is None or p.spec is None:
                    continue
                out.append(Hint(line, p.instruction.start, f"{p.offset:04x}", "offset",
                                f"byte offset {p.offset} in kernel {p.kernel.name}"))
        if encoding:
            end = max(p.instruction.end for p in placed)
            for view in instruction_views(state, line, compat):
                out.append(Hint(line, end, view.hex, "encoding",
                                f"{view.size} bytes at offset {view.offset}"))
    return out
