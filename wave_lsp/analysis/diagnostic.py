"""The analysis layer's diagnostic type: stable code, severity, range, message, optional fixes."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(enum.IntEnum):
    """Ordered from most to least severe (the LSP numbering)."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> "Severity":
        """`error`, `warning`, `information` (or `info`), `hint`; raises ValueError otherwise."""
        key = text.strip().lower()
        if key == "info":
            key = "information"
        for sev in cls:
            if sev.label == key:
                return sev
        raise ValueError(f"unknown severity {text!r} (use error, warning, information or hint)")


@dataclass(frozen=True, slots=True)
class Range:
    """[start, end) in (line, column) with columns in code points."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    @classmethod
    def on_line(cls, line: int, start: int, end: int) -> "Range":
        return cls(line, start, line, end)


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace `range` with `new_text`."""

    range: Range
    new_text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A mechanical correction: a title and the edits that make it."""

    title: str
    edits: tuple[TextEdit, ...]


@dataclass(frozen=True, slots=True)
class Related:
    """A related location with a message (for example the cause of a divergence)."""

    range: Range
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding of the analysis."""

    code: str
    severity: Severity
    range: Range
    message: str
    fixes: tuple[Fix, ...] = ()
    related: tuple[Related, ...] = field(default=())

    @property
    def sort_key(self) -> tuple:
        r = self.range
        return (r.start_line, r.start_col, r.end_line, r.end_col, self.code)
