"""What inline runs say as diagnostics: each invalid launch line (`R004`, on its flag), then the
current runs' own findings (run-time errors and warnings, lines not executed), and where a run
failed the reason (`R005`): on the launch line (or the `.kernel` line of a default launch), or,
when the source does not assemble, once on the error's own line unless the analysis already
reports an error there. The server converts them (`server/run_display.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..analysis.codes import diagnostic
from ..analysis.diagnostic import Diagnostic, Range, Severity
from .state import DocumentState

if TYPE_CHECKING:
    from .launch_lines import LaunchLine
    from .run_results import KernelRun


def run_diagnostics(doc: DocumentState, current: list["KernelRun"],
                    by_kernel: dict[str, list["LaunchLine"]],
                    analysis: Callable[[], list[Diagnostic]]) -> list[Diagnostic]:
    """Invalid launch lines, then the `current` runs' results (`analysis`: the document's
    analysis diagnostics, asked for only when needed)."""
    if doc.binary:
        return []
    out = []
    said: set[int] = set()
    for lines in by_kernel.values():
        for ll in lines:
            if ll.problem is not None:
                p = ll.problem
                out.append(diagnostic("R004", ll.line, p.start, p.end, p.message))
    for result in current:
        out.extend(result.diagnostics)
        if result.status != "failed":
            continue
        if result.source_error is not None:
            # the source does not assemble: said once, on the error's own line (where the
            # analysis normally has it already), not again on every launch line
            line = result.source_error
            if line in said or _has_error(analysis(), line):
                continue
            said.add(line)
            anchor = Range(line, 0, line, len(doc.lines[line]) if line < len(doc.lines) else 0)
        else:
            anchor = _anchor(doc, result)
        out.append(diagnostic("R005", anchor.start_line, anchor.start_col, anchor.end_col,
                              result.message))
    return out


def _has_error(analysis: list[Diagnostic], line: int) -> bool:
    """Whether the analysis reports an error on `line`."""
    return any(d.severity is Severity.ERROR and d.range.start_line == line for d in analysis)


def _anchor(doc: DocumentState, result: "KernelRun") -> Range:
    """Where a failed run is said: its launch line's text, else its `.kernel` line."""
    if result.launch_line is not None:
        text = doc.lines[result.launch_line]
        return Range(result.launch_line, len(text) - len(text.lstrip()), result.launch_line,
                     len(text.rstrip()))
    kernel = doc.program.kernel_named(result.kernel)
    line = kernel.line if kernel else 0
    return Range(line, 0, line, len(doc.lines[line]))
