"""Suppression comments: `; wave-lsp: ignore[CODE, ...]` (or a bare `ignore` for every code)
after the code of the line it silences, or alone on the line before it."""

from __future__ import annotations

import re

from ..syntax.ast import LineSyntax
from .codes import CODES, severity_of
from .diagnostic import Diagnostic, Range

_MARK = re.compile(r"wave-lsp:\s*ignore(?:\[([^\]]*)\])?")
ALL = "*"


def suppressions(syntax: list[LineSyntax]) -> tuple[dict[int, frozenset[str]], list[Diagnostic]]:
    """Codes suppressed per line (the comment's line and the next one), and diagnostics for
    unknown codes named in suppression comments."""
    by_line: dict[int, frozenset[str]] = {}
    problems: list[Diagnostic] = []
    for number, line in enumerate(syntax):
        comment = line.comment
        if comment is None or "wave-lsp" not in comment.text:
            continue
        m = _MARK.search(comment.text)
        if not m:
            continue
        if m.group(1) is None:
            codes = frozenset({ALL})
        else:
            codes = frozenset(c.strip().upper() for c in m.group(1).split(",") if c.strip())
            for code in sorted(codes - set(CODES)):
                col = comment.start + m.start(1)
                problems.append(Diagnostic("X903", severity_of("X903"),
                                           Range(number, col, number, comment.start + m.end(1)),
                                           f"unknown diagnostic code '{code}' in suppression"))
        # a comment after code covers its own line; a comment line also covers the next line
        for target in ((number,) if line.statements else (number, number + 1)):
            by_line[target] = by_line.get(target, frozenset()) | codes
    return by_line, problems


def is_suppressed(diag: Diagnostic, by_line: dict[int, frozenset[str]]) -> bool:
    codes = by_line.get(diag.range.start_line)
    return bool(codes) and (diag.code in codes or ALL in codes)
