"""The reference model of a client's text buffer: one string, split at LF, CRLF and CR as the
Language Server Protocol says, edited by (line, column) ranges converted to offsets."""

from __future__ import annotations

import re

_BREAK = re.compile(r"\r\n|\r|\n")


class ClientText:
    """The reference: a client's text buffer, edited by (line, column) ranges."""

    def __init__(self, text: str) -> None:
        self.text = text

    def lines(self) -> list[str]:
        return _BREAK.split(self.text)

    def offset(self, line: int, col: int) -> int:
        """A position as an offset; past the end of a line or of the text it is clamped."""
        starts = [0] + [m.end() for m in _BREAK.finditer(self.text)]
        lines = self.lines()
        if line < 0:
            return 0
        if line >= len(lines):
            return len(self.text)
        return starts[line] + max(0, min(col, len(lines[line])))

    def edit(self, start: tuple[int, int], end: tuple[int, int], new_text: str) -> None:
        a, b = sorted((self.offset(*start), self.offset(*end)))
        self.text = self.text[:a] + new_text + self.text[b:]
