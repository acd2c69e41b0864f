"""Inline run results as LSP: inlay hints after each executed line, the runs' diagnostics
(decided by `ide.run_diagnostics`; not-executed lines tagged `Unnecessary` so editors grey
them) and launch flag completion. Their lenses (`ide.lenses.run_lenses`) and hover parts
(`ide.run_hover.run_hover`) are `ide` values the features' modules convert. `runs.RunService`
contributes them to the features that show them; everything shown comes from the runs of the
document's current revision only, passed in as plain data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..analysis.diagnostic import Diagnostic
from ..ide.run_limits import DUMP_COMMAND as DUMP, LAUNCH_MARKER, NOT_EXECUTED
from ..ide.state import DocumentState
from . import extensions
from .proto import diagnostic as to_proto, span, to_client_position

if TYPE_CHECKING:
    from ..ide.run_results import KernelRun

RUN = extensions.RUN.name
CLEAR = extensions.CLEAR.name
__all__ = ["RUN", "CLEAR", "DUMP", "inlay_hints", "lsp_diagnostics", "flag_completions"]


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
