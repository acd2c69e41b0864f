"""The document model: lines, their cached parses, incremental edits and the program structure.

Positions are (line, column) with columns in Unicode code points (Python string indices). Line
breaks are those of the Language Server Protocol: LF, CRLF and CR.
"""

from __future__ import annotations

import gc
import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from ..cancellation import checkpoint
from .ast import LineSyntax
from .parser import parse_line
from .program import Program, build_program, patch_instructions

_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Lines first..first+old_count-1 became new_count lines at `revision`; `patched` tells
    whether the program structure was updated in place (its kernels are the same objects)."""

    revision: int
    first: int
    old_count: int
    new_count: int
    patched: bool


_paused = 0
_paused_lock = threading.Lock()
_was_enabled = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a large text is parsed: the parse allocates millions
    of long-lived objects, and each full collection it would trigger scans them all while
    holding the interpreter lock, so the event loop would stall for up to a second. `settle`
    then freezes what was built (`ide.host.settle`). The `lint` command analyses each file so:
    collections took nearly half of its time. Threads may nest it; the collector runs again
    when the last leaves."""
    global _paused, _was_enabled
    with _paused_lock:
        _paused += 1
        if _paused == 1:
            _was_enabled = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _paused_lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()


def split_lines(text: str) -> tuple[list[str], list[str]]:
    """Lines without their breaks, and the break after each line ('' for the last one)."""
    parts = _BREAK.split(text)
    lines = parts
    breaks = _BREAK.findall(text) + [""]
    return lines, breaks


def parse_lines(lines: list[str]) -> list[LineSyntax]:
    """Every line's parse (a cancellation checkpoint every few hundred lines)."""
    out: list[LineSyntax] = []
    for first in range(0, len(lines), 256):
        checkpoint()
        out.extend(map(parse_line, lines[first:first + 256]))
    return out


class Document:
    """A WAVE source text that can be edited in place and re-parsed line by line."""

    def __init__(self, text: str = "", uri: str = "", version: int = 0) -> None:
        self.uri = uri
        self.version = version
        self.lines, self.breaks = split_lines(text)
        self.syntax: list[LineSyntax] = parse_lines(self.lines)
        self._program: Program | None = None
        self.revision = 0  # bumped on every change; lets callers cache derived results
        self.edits: list[LineEdit] = []  # recent line edits, for incremental consumers
        self.guard = threading.Lock()     # held around edits by an owner with reader threads

    # ---- reading -------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return "".join(line + brk for line, brk in zip(self.lines, self.breaks))

    @property
    def program(self) -> Program:
        """Kernels, labels and directives, rebuilt lazily from the cached line parses. A reader
        in another thread may build it while the owner edits the document: it is kept only if
        no edit came in between (`guard` is held by the owner around its edits)."""
        program = self._program
        if program is None:
            revision = self.revision
            program = build_program(self.syntax)
            with self.guard:
                if self.revision == revision and self._program is None:
                    self._program = program
        return program

    def line_count(self) -> int:
        return len(self.lines)

    # ---- editing -------------------------------------------------------------------------------
    def replace(self, text: str, version: int | None = None) -> None:
        """Replace the whole text (a full-document change)."""
        self.lines, self.breaks = split_lines(text)
        self.syntax = parse_lines(self.lines)
        self._changed(version)
        self.edits.clear()

    def apply_edit(self, start: tuple[int, int], end: tuple[int, int], new_text: str,
                   version: int | None = None) -> range:
        """Replace the text between two positions; returns the range of new line numbers that
        were re-parsed. Positions past the end are clamped, as editors expect."""
        (sl, sc), (el, ec) = self._clamp(start), self._clamp(end)
        if (el, ec) < (sl, sc):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
        # Re-split the edited lines *with* the break after the last one, so every break inside
        # the segment is counted exactly as the client counts it in the whole text.
        segment = self.lines[sl][:sc] + new_text + self.lines[el][ec:] + self.breaks[el]
        # A CR ending the line before the segment and an LF starting it are one CRLF break.
        if segment.startswith("\n") and sl > 0 and self.breaks[sl - 1] == "\r":
            sl -= 1
            segment = self.lines[sl] + "\r" + segment
        new_lines, new_breaks = split_lines(segment)
        if self.breaks[el]:  # the segment ends with a break: drop the empty text after it
            del new_lines[-1], new_breaks[-1]
        old_syntax = self.syntax[sl:el + 1]
        new_syntax = [parse_line(line) for line in new_lines]
        self.lines[sl:el + 1] = new_lines
        self.breaks[sl:el + 1] = new_breaks
        self.syntax[sl:el + 1] = new_syntax
        patched = self._program is not None and patch_instructions(
            self._program, sl, old_syntax, new_syntax)
        self._changed(version, keep_program=patched)
        self.edits.append(LineEdit(self.revision, sl, len(old_syntax), len(new_syntax), patched))
        return range(sl, sl + len(new_lines))

    def _clamp(self, pos: tuple[int, int]) -> tuple[int, int]:
        line, col = pos
        if line < 0:
            return 0, 0
        if line >= len(self.lines):
            last = len(self.lines) - 1
            return last, len(self.lines[last])
        return line, max(0, min(col, len(self.lines[line])))

    def edits_since(self, revision: int) -> list["LineEdit"] | None:
        """The line edits after `revision`, or None when they are no longer all known (a full
        replacement happened, or the log was trimmed)."""
        if revision == self.revision:
            return []
        if not self.edits or self.edits[0].revision > revision + 1:
            return None
        return [e for e in self.edits if e.revision > revision]

    def _changed(self, version: int | None, keep_program: bool = False) -> None:
        if not keep_program:
            self._program = None
        self.revision += 1
        if len(self.edits) > 256:
            del self.edits[:128]
        if version is not None:
            self.version = version
