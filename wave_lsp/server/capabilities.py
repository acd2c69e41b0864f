"""What the client can do, resolved once at `initialize` into one typed object.

The client announces its capabilities in `initialize`; every feature that shapes its answer by
them (snippets in completion, markdown in hovers, refresh requests, pulled diagnostics, ...)
reads a field of `ClientCapabilities` instead of walking the lsprotocol tree itself. Before
`initialize` (and for a client that announces nothing) the defaults hold: plain answers, no
refresh requests.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types


@dataclass(frozen=True)
class ClientCapabilities:
    """The client capabilities the features use (field names say the feature they shape)."""

    related_information: bool = True        # diagnostics' related information (default: shown)
    pull_diagnostics: bool = False          # textDocument/diagnostic
    diagnostic_refresh: bool = False        # workspace/diagnostic/refresh
    inlay_hint_refresh: bool = False        # workspace/inlayHint/refresh
    code_lens_refresh: bool = False         # workspace/codeLens/refresh
    configuration: bool = False             # workspace/configuration
    snippets: bool = False                  # completion items with snippets
    completion_markdown: bool = False       # completion documentation as markdown
    hover_markdown: bool = True             # hover contents as markdown
    signature_label_offsets: bool = False   # signature parameters as label offsets
    versioned_edits: bool = False           # workspace edits as versioned documentChanges
    disabled_code_actions: bool = False     # code actions shown disabled, with the reason
    watched_files_registration: bool = False  # workspace/didChangeWatchedFiles, registered


def resolve(caps: types.ClientCapabilities | None) -> ClientCapabilities:
    """The `ClientCapabilities` of what a client announced in `initialize`."""
    if caps is None:
        return ClientCapabilities()
    text = caps.text_document
    workspace = caps.workspace
    published = text.publish_diagnostics if text else None
    item = text.completion.completion_item if text and text.completion else None
    hover_formats = text.hover.content_format if text and text.hover else None
    signature = text.signature_help.signature_information \
        if text and text.signature_help else None
    parameter = signature.parameter_information if signature else None

    def refresh(part) -> bool:
        return bool(part is not None and part.refresh_support)

    return ClientCapabilities(
        related_information=published is None or published.related_information is None
        or bool(published.related_information),
        pull_diagnostics=text is not None and text.diagnostic is not None,
        diagnostic_refresh=refresh(workspace.diagnostics if workspace else None),
        inlay_hint_refresh=refresh(workspace.inlay_hint if workspace else None),
        code_lens_refresh=refresh(workspace.code_lens if workspace else None),
        configuration=bool(workspace is not None and workspace.configuration),
        snippets=bool(item is not None and item.snippet_support),
        completion_markdown=item is not None and types.MarkupKind.Markdown in (
            item.documentation_format or []),
        hover_markdown=not hover_formats or types.MarkupKind.Markdown in hover_formats,
        versioned_edits=bool(workspace is not None and workspace.workspace_edit is not None
                             and workspace.workspace_edit.document_changes),
        watched_files_registration=bool(
            workspace is not None and workspace.did_change_watched_files is not None
            and workspace.did_change_watched_files.dynamic_registration),
        signature_label_offsets=bool(parameter is not None and parameter.label_offset_support),
        disabled_code_actions=bool(text is not None and text.code_action is not None
                                   and text.code_action.disabled_support))
