"""Document symbols: the outline (kernels containing their labels, labels outside any kernel)
and the search of kernels and labels by name across documents. Plain data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.diagnostic import Range
from .state import DocumentState


@dataclass
class OutlineItem:
    """A kernel or label: its whole range, the range of its name, and what it contains."""

    name: str
    kind: str                    # "kernel" or "label"
    detail: str
    range: Range
    selection: Range
    children: list["OutlineItem"] = field(default_factory=list)
    container: str | None = None  # the kernel a label belongs to


def _kernel_name_span(kernel) -> tuple[int, int]:
    args = kernel.directive.args
    if args:
        return args[0].start, args[0].end
    return kernel.directive.start, kernel.directive.end


def _line(state: DocumentState, line: int) -> Range:
    return Range.on_line(line, 0, len(state.lines[line]))


def outline(state: DocumentState) -> list[OutlineItem]:
    """Kernels (with their labels) and labels outside any kernel, in document order."""
    program = state.program
    out: list[OutlineItem] = []
    for kernel in program.kernels:
        last = kernel.last_line
        children = [OutlineItem(label.name.text, "label", "label", _line(state, line),
                                Range.on_line(line, label.name.start, label.name.end),
                                container=kernel.name)
                    for line, label in kernel.labels]
        out.append(OutlineItem(kernel.name or "(unnamed kernel)", "kernel", "kernel",
                               Range(kernel.line, 0, last, len(state.lines[last])),
                               Range.on_line(kernel.line, *_kernel_name_span(kernel)), children))
    for name, defs in program.labels.items():
        for line, label, kernel in defs:
            if kernel is None:
                out.append(OutlineItem(name, "label", "label outside any kernel",
                                       _line(state, line),
                                       Range.on_line(line, label.name.start, label.name.end)))
    out.sort(key=lambda s: (s.range.start_line, s.range.start_col))
    return out


def search(state: DocumentState, query: str) -> list[OutlineItem]:
    """Kernels and labels whose name contains `query` (case-insensitive)."""
    query = query.lower()
    program = state.program
    out = []
    for kernel in program.kernels:
        if query in kernel.name.lower():
            name = Range.on_line(kernel.line, *_kernel_name_span(kernel))
            out.append(OutlineItem(kernel.name, "kernel", "kernel", name, name))
    for name, defs in program.labels.items():
        if query in name.lower():
            for line, label, kernel in defs:
                where = Range.on_line(line, label.name.start, label.name.end)
                out.append(OutlineItem(name, "label", "label", where, where,
                                       container=kernel.name if kernel else None))
    return out
