"""Inline run results as LSP: code lenses (`▶ Run`, then `▶ Run again · ✓ 3.1 ms · … · ✕ Clear`),
inlay hints after each executed line, hover tables, diagnostics (run-time errors and warnings,
invalid launch lines, not-executed lines tagged `Unnecessary` so editors grey them) and launch
flag completion. The existing feature modules call these functions; everything shown comes from
`RunService.current`, i.e. from runs of the document's current revision only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..analysis.codes import diagnostic
from ..analysis.diagnostic import Range, Severity
from ..ide.run_limits import DUMP_COMMAND as DUMP, LAUNCH_MARKER, NOT_EXECUTED
from ..ide.state import DocumentState
from .documents import span, to_client_position
from ..ide.locate import TargetKind

if TYPE_CHECKING:
    from ..ide.run_results import KernelRun
    from .server import WaveLanguageServer

RUN = "wave-lsp.run"
CLEAR = "wave-lsp.clear"


def _runs(server: "WaveLanguageServer"):
    return getattr(server, "runs", None)


def _cmd(title: str, name: str, *args) -> types.Command:
    return types.Command(title=title, command=name, arguments=list(args))


def code_lenses(server: "WaveLanguageServer", doc: DocumentState) -> list[types.CodeLens]:
    """`▶ Run` above each kernel and launch line; the outcome where a kernel last ran."""
    runs = _runs(server)
    if runs is None:
        return []
    results = {r.kernel: r for r in runs.current(doc)}
    live = runs.wanted(doc)
    by_kernel = runs.launch_lines(doc)
    codec = server.codec
    out: list[types.CodeLens] = []

    def place(rng: types.Range, kernel: str, line: int | None, is_result_line: bool) -> None:
        result = results.get(kernel)
        if result is not None and is_result_line:
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


def inlay_hints(server: "WaveLanguageServer", doc: DocumentState, first: int,
                last: int) -> list[types.InlayHint]:
    """After each executed line in [first, last]: what it produced in the shown lanes."""
    runs = _runs(server)
    if runs is None or not runs.current(doc):
        return []
    from ..isa.value_format import lane_ranges
    out = []
    for result in runs.current(doc):
        for line, res in result.lines.items():
            if not res.label or not first <= line <= last or line >= len(doc.lines):
                continue
            end = len(doc.lines[line].rstrip())
            out.append(types.InlayHint(
                position=to_client_position(doc, line, end, server.codec),
                label=res.label, padding_left=True,
                tooltip=f"{result.kernel}: {res.mnemonic} ran {res.count:,}× "
                        f"(shown threads {lane_ranges(list(result.threads))}; "
                        f"{result.summary()})"))
    out.sort(key=lambda h: (h.position.line, h.position.character))
    return out


def hover(server: "WaveLanguageServer", doc: DocumentState, line: int, target) -> str | None:
    """A register's values on an executed line, or the dumps on a launch line."""
    runs = _runs(server)
    if runs is None:
        return None
    results = runs.current(doc)
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


def diagnostics(server: "WaveLanguageServer", doc: DocumentState) -> list:
    """Analysis-style diagnostics: invalid launch lines, then the current runs' results."""
    runs = _runs(server)
    if runs is None or doc.binary:
        return []
    out = []
    said: set[int] = set()
    for lines in runs.launch_lines(doc).values():
        for ll in lines:
            if ll.problem is not None:
                p = ll.problem
                out.append(diagnostic("R004", ll.line, p.start, p.end, p.message))
    for result in runs.current(doc):
        out.extend(result.diagnostics)
        if result.status != "failed":
            continue
        if result.source_error is not None:
            # the source does not assemble: said once, on the error's own line (where the
            # analysis normally has it already), not again on every launch line
            line = result.source_error
            if line in said or _has_error(server, doc, line):
                continue
            said.add(line)
            anchor = Range(line, 0, line, len(doc.lines[line]) if line < len(doc.lines) else 0)
        else:
            anchor = _anchor(doc, result)
        out.append(diagnostic("R005", anchor.start_line, anchor.start_col, anchor.end_col,
                              result.message))
    return out


def _has_error(server: "WaveLanguageServer", doc: DocumentState, line: int) -> bool:
    """Whether the analysis reports an error on `line`."""
    return any(d.severity is Severity.ERROR and d.range.start_line == line
               for d in server.analysis(doc))


def _anchor(doc: DocumentState, result: "KernelRun") -> Range:
    if result.launch_line is not None:
        text = doc.lines[result.launch_line]
        return Range(result.launch_line, len(text) - len(text.lstrip()), result.launch_line,
                     len(text.rstrip()))
    kernel = doc.program.kernel_named(result.kernel)
    line = kernel.line if kernel else 0
    return Range(line, 0, line, len(doc.lines[line]))


def lsp_diagnostics(server: "WaveLanguageServer", doc: DocumentState) -> list[types.Diagnostic]:
    """`diagnostics` as lsprotocol, not-executed lines tagged `Unnecessary`."""
    from .diagnostics import to_lsp
    from .kernel_tests import diagnostics as test_diagnostics
    out = []
    for d in diagnostics(server, doc) + test_diagnostics(server, doc):
        item = to_lsp(server, doc, d)
        if d.code == NOT_EXECUTED:
            item.tags = [types.DiagnosticTag.Unnecessary]
        out.append(item)
    return out


def flag_completions(server: "WaveLanguageServer", doc: DocumentState, line: int,
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
    rng = span(doc, line, start, col, server.codec)
    return [types.CompletionItem(label=name, kind=types.CompletionItemKind.Property,
                                 detail=help_text, filter_text=name,
                                 text_edit=types.TextEdit(range=rng, new_text=name))
            for name, help_text in flag_help()]
