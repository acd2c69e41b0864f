"""Code actions as plain data: the fixes the analysis attached to the diagnostics of a range
(quick fixes), and "convert all legacy syntax in this file" (the first fix of every L4xx
diagnostic, without overlapping edits).
"""

from __future__ import annotations

from ..analysis.diagnostic import Diagnostic, Range, TextEdit

LEGACY_PREFIX = "L4"


def overlaps(a: Range, first: tuple[int, int], last: tuple[int, int]) -> bool:
    return (a.start_line, a.start_col) <= last and first <= (a.end_line, a.end_col)


def fixable(diagnostics: list[Diagnostic], first: tuple[int, int],
            last: tuple[int, int]) -> list[Diagnostic]:
    """The diagnostics with fixes that touch the range first..last."""
    return [d for d in diagnostics if d.fixes and overlaps(d.range, first, last)]


def legacy_edits(diagnostics: list[Diagnostic]) -> list[TextEdit]:
    """The first fix of every legacy diagnostic, without overlapping edits, in order."""
    edits: list[TextEdit] = []
    for diag in diagnostics:
        if diag.code.startswith(LEGACY_PREFIX) and diag.fixes:
            edits.extend(diag.fixes[0].edits)
    edits.sort(key=lambda e: (e.range.start_line, e.range.start_col))
    out: list[TextEdit] = []
    for edit in edits:
        if out and (edit.range.start_line, edit.range.start_col) < (
                out[-1].range.end_line, out[-1].range.end_col):
            continue
        out.append(edit)
    return out
