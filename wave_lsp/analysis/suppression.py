"""Suppression comments: `; wave-lsp: ignore[CODE, ...]` (or a bare `ignore` for every code)
after the code of the line it silences, or alone on the line before it."""

from __future__ import annotations

import re

from ..syntax.memo import line_memo
from ..syntax.parser import parse_line
from .codes import CODES, severity_of
from .diagnostic import Diagnostic, Range

_MARK = re.compile(r"wave-lsp:\s*ignore(?:\[([^\]]*)\])?")
ALL = "*"


@line_memo
def line_suppression(text: str) -> tuple[frozenset[str], tuple[int, int, str], ...] | None:
    """For a line whose comment has a suppression marker: (codes, unknown codes as
    (start, end, code)...); None for every other line."""
    if "wave-lsp" not in text:
        return None
    syntax = parse_line(text)
    comment = syntax.comment
    if comment is None or "wave-lsp" not in comment.text:
        return None
    m = _MARK.search(comment.text)
    if not m:
        return None
    if m.group(1) is None:
        return (frozenset({ALL}),)
    codes = frozenset(c.strip().upper() for c in m.group(1).split(",") if c.strip())
    unknown = tuple((comment.start + m.start(1), comment.start + m.end(1), code)
                    for code in sorted(codes - set(CODES)))
    return (codes, *unknown)


def suppression_targets(line: int, text: str) -> tuple[int, ...]:
    """A comment after code covers its own line; a comment line also covers the next line."""
    return (line,) if parse_line(text).statements else (line, line + 1)


def suppressions(lines: list[str], marked: list[int]) -> tuple[dict[int, frozenset[str]], list[Diagnostic]]:
    """Codes suppressed per line, from the lines in `marked` (those with a marker), and
    diagnostics for unknown codes named in suppression comments."""
    by_line: dict[int, frozenset[str]] = {}
    problems: list[Diagnostic] = []
    for number in marked:
        found = line_suppression(lines[number])
        if found is None:
            continue
        codes, *unknown = found
        for start, end, code in unknown:
            problems.append(Diagnostic("X903", severity_of("X903"), Range(number, start, number, end),
                                       f"unknown diagnostic code '{code}' in suppression"))
        for target in suppression_targets(number, lines[number]):
            by_line[target] = by_line.get(target, frozenset()) | codes
    return by_line, problems


def is_suppressed(diag: Diagnostic, by_line: dict[int, frozenset[str]]) -> bool:
    codes = by_line.get(diag.range.start_line)
    return bool(codes) and (diag.code in codes or ALL in codes)
