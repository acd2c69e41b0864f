"""The document model: lines, their cached parses, incremental edits and the program structure.

Positions are (line, column) with columns in Unicode code points (Python string indices). Line
breaks are those of the Language Server Protocol: LF, CRLF and CR.
"""

from __future__ import annotations

import re

from .ast import LineSyntax
from .parser import parse_line
from .program import Program, build_program

_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> tuple[list[str], list[str]]:
    """Lines without their breaks, and the break after each line ('' for the last one)."""
    parts = _BREAK.split(text)
    lines = parts
    breaks = _BREAK.findall(text) + [""]
    return lines, breaks


class Document:
    """A WAVE source text that can be edited in place and re-parsed line by line."""

    def __init__(self, text: str = "", uri: str = "", version: int = 0) -> None:
        self.uri = uri
        self.version = version
        self.lines, self.breaks = split_lines(text)
        self.syntax: list[LineSyntax] = [parse_line(line) for line in self.lines]
        self._program: Program | None = None
        self.revision = 0  # bumped on every change; lets callers cache derived results

    # ---- reading -------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return "".join(line + brk for line, brk in zip(self.lines, self.breaks))

    @property
    def program(self) -> Program:
        """Kernels, labels and directives, rebuilt lazily from the cached line parses."""
        if self._program is None:
            self._program = build_program(self.syntax)
        return self._program

    def line_count(self) -> int:
        return len(self.lines)

    # ---- editing -------------------------------------------------------------------------------
    def replace(self, text: str, version: int | None = None) -> None:
        """Replace the whole text (a full-document change)."""
        self.lines, self.breaks = split_lines(text)
        self.syntax = [parse_line(line) for line in self.lines]
        self._changed(version)

    def apply_edit(self, start: tuple[int, int], end: tuple[int, int], new_text: str,
                   version: int | None = None) -> range:
        """Replace the text between two positions; returns the range of new line numbers that
        were re-parsed. Positions past the end are clamped, as editors expect."""
        (sl, sc), (el, ec) = self._clamp(start), self._clamp(end)
        if (el, ec) < (sl, sc):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
        prefix = self.lines[sl][:sc]
        suffix = self.lines[el][ec:]
        new_lines, new_breaks = split_lines(prefix + new_text + suffix)
        new_breaks[-1] = self.breaks[el]
        self.lines[sl:el + 1] = new_lines
        self.breaks[sl:el + 1] = new_breaks
        self.syntax[sl:el + 1] = [parse_line(line) for line in new_lines]
        self._changed(version)
        return range(sl, sl + len(new_lines))

    def _clamp(self, pos: tuple[int, int]) -> tuple[int, int]:
        line, col = pos
        if line < 0:
            return 0, 0
        if line >= len(self.lines):
            last = len(self.lines) - 1
            return last, len(self.lines[last])
        return line, max(0, min(col, len(self.lines[line])))

    def _changed(self, version: int | None) -> None:
        self._program = None
        self.revision += 1
        if version is not None:
            self.version = version
