"""The analysis layer's diagnostic type: stable code, severity, range, message, optional fixes."""

from __future__ import annotations

import enum
import re
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


_LINE_NUMBER = re.compile(r"\bline (\d+)")


def moved_message(message: str, delta: int) -> str:
    """A message whose quoted 1-based line numbers ("line 12") moved by `delta`."""
    if "line " not in message:
        return message
    return _LINE_NUMBER.sub(lambda m: f"line {int(m.group(1)) + delta}", message)


def moved(diagnostic: Diagnostic, delta: int, memo: dict | None = None) -> Diagnostic:
    """The same diagnostic `delta` lines further down: ranges, fixes, related locations and the
    1-based line numbers its messages quote. Only for diagnostics whose every location moved
    by `delta` (a kernel that lies entirely after an edit that added or removed lines). `memo`
    (a dict shared by the calls of one move) saves redoing the ranges and messages that
    diagnostics share (their chains of causes)."""
    memo = {} if memo is None else memo

    def rng(r: Range) -> Range:
        out = memo.get(id(r))       # the objects outlive the move: their ids are stable
        if out is None:
            out = memo[id(r)] = Range(r.start_line + delta, r.start_col, r.end_line + delta,
                                  r.end_col)
        return out

    def text(message: str) -> str:
        if "line " not in message:
            return message
        out = memo.get(message)
        if out is None:
            out = memo[message] = moved_message(message, delta)
        return out

    def related(r: Related) -> Related:
        out = memo.get(id(r))
        if out is None:
            out = memo[id(r)] = Related(rng(r.range), text(r.message))
        return out

    return Diagnostic(
        diagnostic.code, diagnostic.severity, rng(diagnostic.range), text(diagnostic.message),
        tuple(Fix(f.title, tuple(TextEdit(rng(e.range), e.new_text) for e in f.edits))
              for f in diagnostic.fixes),
        tuple(map(related, diagnostic.related)))
