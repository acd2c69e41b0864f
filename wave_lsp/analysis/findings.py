"""`LineFinding`: a diagnostic before it knows its line number.

Checks that only look at one line produce findings with columns; they are cached by the line's
text and turned into `Diagnostic`s (with the line number) when a document is analysed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .codes import severity_of
from .diagnostic import Diagnostic, Fix, Range, TextEdit


@dataclass(frozen=True, slots=True)
class LineFix:
    title: str
    edits: tuple[tuple[int, int, str], ...]  # (start column, end column, replacement)


@dataclass(frozen=True, slots=True)
class LineFinding:
    code: str
    start: int
    end: int
    message: str
    fix: LineFix | None = None

    def at(self, line: int) -> Diagnostic:
        fixes: tuple[Fix, ...] = ()
        if self.fix:
            fixes = (Fix(self.fix.title, tuple(
                TextEdit(Range(line, s, line, e), text) for s, e, text in self.fix.edits)),)
        return Diagnostic(self.code, severity_of(self.code), Range(line, self.start, line, self.end),
                          self.message, fixes)


def replace_fix(title: str, start: int, end: int, text: str) -> LineFix:
    return LineFix(title, ((start, end, text),))
