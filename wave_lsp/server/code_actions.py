"""Code actions: `textDocument/codeAction` offers edits for a range. Every fix the analysis layer
attaches to a diagnostic becomes a quick fix; the source action "convert all legacy syntax in
this file" applies the first fix of every legacy-syntax (L4xx) diagnostic at once (the
selection of fixes is `ide.actions`').
"""

from __future__ import annotations

from lsprotocol import types

from ..ide.actions import fixable, legacy_edits
from ..ide.state import DocumentState
from .diagnostics import to_lsp
from .handlers import request
from .proto import to_server_position, workspace_edit
from .server import WaveLanguageServer

CONVERT_LEGACY = "source.convertLegacySyntax"


def _wanted(only: list[str] | None, kind: str) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def code_actions(server: WaveLanguageServer, doc: DocumentState, rng: types.Range,
                 only: list[str] | None) -> list[types.CodeAction]:
    codec = server.codec
    versioned = server.client.versioned_edits
    first = to_server_position(doc, rng.start, codec)
    last = to_server_position(doc, rng.end, codec)
    diagnostics = server.analysis(doc)

    out: list[types.CodeAction] = []
    if _wanted(only, types.CodeActionKind.QuickFix):
        for diag in fixable(diagnostics, first, last):
            lsp_diag = to_lsp(server, doc, diag)
            for i, fix in enumerate(diag.fixes):
                out.append(types.CodeAction(
                    title=fix.title, kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diag], is_preferred=i == 0,
                    edit=workspace_edit(doc, fix.edits, codec, versioned)))
        for fixes in server.contributions("quick_fixes", doc, first, last):
            out.extend(fixes)
    if _wanted(only, CONVERT_LEGACY):
        edits = legacy_edits(diagnostics)
        if edits:
            out.append(types.CodeAction(
                title=f"Convert all legacy syntax in this file ({len(edits)} edits)",
                kind=CONVERT_LEGACY, edit=workspace_edit(doc, edits, codec, versioned)))
    return out


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_CODE_ACTION,
             types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix,
                                                        CONVERT_LEGACY]),
             default=list, analysis=True)
    def actions(doc: DocumentState, params: types.CodeActionParams) -> list[types.CodeAction]:
        return code_actions(server, doc, params.range, params.context.only)
