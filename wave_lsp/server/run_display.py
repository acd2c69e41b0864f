"""Inline run results as LSP: code lenses (`▶ Run`, then `▶ Run again · ✓ 3.1 ms · … · ✕ Clear`),
inlay hints after each executed line, hover tables, diagnostics (run-time errors and warnings,
invalid launch lines, not-executed lines tagged `Unnecessary` so editors grey them) and launch
flag completion. `runs.RunService` contributes them to the features that show them; everything
shown comes from the runs of the document's current revision only (`results`), passed in as
plain data with the live kernels and the launch lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..analysis.codes import diagnostic
from ..analysis.diagnostic import Diagnostic, Range, Severity
from ..ide.run_limits import DUMP_COMMAND as DUMP, LAUNCH_MARKER, NOT_EXECUTED
from ..ide.state import DocumentState
from ..ide.locate import TargetKind
from . import extensions
from .proto import command as _cmd, diagnostic as to_proto, span, to_client_position

if TYPE_CHECKING:
    from ..ide.launch_lines import LaunchLine
    from ..ide.run_results import KernelRun

RUN = extensions.RUN.name
CLEAR = extensions.CLEAR.name
__all__ = ["RUN", "CLEAR", "DUMP", "code_lenses", "inlay_hints", "hover", "diagnostics",
           "lsp_diagnostics", "flag_completions"]


def code_lenses(doc: DocumentState, codec: PositionCodec, current: list[KernelRun],
                live: dict[str, int | None], by_kernel: dict[str, list[LaunchLine]],
                refused: set[str] = frozenset(), manage_trust: str = "") -> list[types.CodeLens]:
    """`▶ Run` above each kernel and launch line; the outcome where a kernel last ran; where
    a Run of a kernel in `refused` was refused (an untrusted workspace), that and the client's
    `manage_trust` command."""
    results = {r.kernel: r for r in current}
    out: list[types.CodeLens] = []

    def place(rng: types.Range, kernel: str, line: int | None, is_result_line: bool) -> None:
        result = results.get(kernel)
        if kernel in refused and line is None:    # said on the kernel's own line
            out.append(types.CodeLens(range=rng, command=_cmd("▶ Run", RUN, doc.uri, kernel,
                                                              line)))
            out.append(types.CodeLens(range=rng, command=_cmd(
                "⚠ not run (untrusted): Manage Trust", manage_trust, tooltip=(
                    "Kernels do not run in an untrusted workspace: trust it (click) and "
                    "▶ Run again"))))
        elif result is not None and is_result_line:
            out.append(types.CodeLens(range=rng, command=_cmd(
                "▶ Run again", RUN, doc.uri, kernel, line)))
            out.append(types.CodeLens(range=rng, command=_cmd(
                result.summary(), RUN, doc.uri, kernel, line)))
            out.append(types.CodeLens(range=rng, command=_cmd("✕ Clear", CLEAR, doc.uri, kernel)))
        elif result is None and kernel in live and is_result_line:
            out.append(types.CodeLens(range=rng, command=_cmd(
                "⟳ running…", RUN, doc.uri, kernel, line)))
        else:
            out.append(types.CodeLens(range=rng, command=_cmd("▶ Run", RUN, doc.uri, kernel,
                                                              line)))

    for kernel in doc.program.kernels:
        lines = by_kernel.get(kernel.name, [])
        result = results.get(kernel.name)
        ran_here = (result.launch_line is None) if result else not lines
        rng = span(doc, kernel.line, kernel.directive.start, kernel.directive.end, codec)
        place(rng, kernel.name, None, ran_here)
        for ll in lines:
            ran_this = result is not None and result.launch_line == ll.line
            if result is None and kernel.name in live:
                ordinal = live.get(kernel.name) or 0
                ran_this = ll.ordinal == ordinal
            place(span(doc, ll.line, ll.start, ll.end, codec), kernel.name, ll.line, ran_this)
    return out


def inlay_hints(doc: DocumentState, codec: PositionCodec, current: list[KernelRun], first: int,
                last: int, stale: list = ()) -> list[types.InlayHint]:
    """After each executed line in [first, last]: what it produced in the shown lanes; the
    `stale` values (`ide.stale_values`: line, run, line result) of a kernel whose new run has
    not arrived yet, marked as such."""
    if not current and not stale:
        return []
    from ..ide.run_hover import line_tooltip
    from ..ide.stale_values import STALE_MARK
    out = []
    for line, result, res in stale:
        if first <= line <= last:
            out.append(types.InlayHint(
                position=to_client_position(doc, line, len(doc.lines[line].rstrip()), codec),
                label=STALE_MARK + res.label, padding_left=True,
                tooltip="stale: the last run's values, shown until the kernel runs again "
                        f"(the source must assemble) · {line_tooltip(result, res)}"))
    for result in current:
        for line, res in result.lines.items():
            if not res.label or not first <= line <= last or line >= len(doc.lines):
                continue
            end = len(doc.lines[line].rstrip())
            out.append(types.InlayHint(
                position=to_client_position(doc, line, end, codec),
                label=res.label, padding_left=True, tooltip=line_tooltip(result, res)))
    out.sort(key=lambda h: (h.position.line, h.position.character))
    return out


def hover(doc: DocumentState, results: list[KernelRun], line: int, target) -> str | None:
    """A register's values on an executed line, or the dumps on a launch line."""
    if not results:
        return None
    from ..ide.run_hover import dumps_markdown, register_table
    if target is not None and target.kind in (TargetKind.REGISTER, TargetKind.PREDICATE,
                                              TargetKind.GUARD):
        name = target.text.lstrip("@!").split(".")[0]
        for result in results:
            table = register_table(result, line, name)
            if table:
                return table
        return None
    for result in results:
        anchor = result.launch_line
        if anchor is None:
            kernel = doc.program.kernel_named(result.kernel)
            anchor = kernel.line if kernel else None
        if anchor == line:
            window = doc.runs.window if doc.runs is not None else None
            return dumps_markdown(result, doc.uri, window) or f"**Run of `{result.kernel}`**: {result.summary()}"
    return None


def diagnostics(doc: DocumentState, current: list[KernelRun], by_kernel: dict[str, list[LaunchLine]],
                analysis: Callable[[], list[Diagnostic]]) -> list:
    """Analysis-style diagnostics: invalid launch lines, then the current runs' results
    (`analysis`: the document's analysis diagnostics, asked for only when needed)."""
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
    if result.launch_line is not None:
        text = doc.lines[result.launch_line]
        return Range(result.launch_line, len(text) - len(text.lstrip()), result.launch_line,
                     len(text.rstrip()))
    kernel = doc.program.kernel_named(result.kernel)
    line = kernel.line if kernel else 0
    return Range(line, 0, line, len(doc.lines[line]))


def lsp_diagnostics(doc: DocumentState, codec: PositionCodec, related_information: bool,
                    found: list[Diagnostic]) -> list[types.Diagnostic]:
    """`diagnostics` as lsprotocol, not-executed lines tagged `Unnecessary`."""
    out = []
    for d in found:
        item = to_proto(doc, d, codec, related_information)
        if d.code == NOT_EXECUTED:
            item.tags = [types.DiagnosticTag.Unnecessary]
        out.append(item)
    return out


def flag_completions(doc: DocumentState, codec: PositionCodec, line: int,
                     col: int) -> list[types.CompletionItem] | None:
    """Launch flags, when the cursor is where a flag goes on a launch line."""
    text = doc.lines[line]
    if LAUNCH_MARKER not in text:
        return None
    from ..ide.launch_lines import flag_help, flag_word_at, launch_comment
    if launch_comment(text) is None:
        return None
    start = flag_word_at(text, col)
    if start is None:
        return []
    rng = span(doc, line, start, col, codec)
    return [types.CompletionItem(label=name, kind=types.CompletionItemKind.Property,
                                 detail=help_text, filter_text=name,
                                 text_edit=types.TextEdit(range=rng, new_text=name))
            for name, help_text in flag_help()]
