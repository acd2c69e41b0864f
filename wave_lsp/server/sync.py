"""Lifecycle, text synchronisation and configuration.

`initialize` carries the client's capabilities and `initializationOptions` (our first settings);
after `initialized` we ask for the `wave` section with `workspace/configuration` when the client
supports it, and again on `workspace/didChangeConfiguration`. Documents arrive with `didOpen`,
change with incremental `didChange` and leave with `didClose`; each change schedules diagnostics.
Invalid settings are shown in one `window/showMessage` and each logged, never silently dropped.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .documents import apply_changes
from .handlers import notification, report_failure
from .settings import SECTION, parse_settings

if TYPE_CHECKING:
    from .server import WaveLanguageServer


MAX_SHOWN_PROBLEMS = 5
TRUST_OPTION = "workspaceTrusted"    # initializationOptions: false disables every run


def apply_settings(server: "WaveLanguageServer", data: Any, origin: str) -> None:
    """Validate and install settings; report the problems to the user in one message (each
    one logged), however many there are."""
    settings, problems = parse_settings(data, origin)
    server.settings = settings
    server.settings_generation += 1
    if not problems:
        return
    for problem in problems:
        server.log(f"wave-lsp: invalid setting ({origin}): {problem[:1000]}",
                   types.MessageType.Warning)
    shown = [p if len(p) <= 300 else p[:300] + "…" for p in problems[:MAX_SHOWN_PROBLEMS]]
    more = len(problems) - len(shown)
    message = f"wave-lsp: invalid setting{'s' if len(problems) > 1 else ''} ({origin}): " + \
        "; ".join(shown) + (f"; and {more} more (see the log)" if more > 0 else "")
    server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Warning, message=message))


def refresh_views(server: "WaveLanguageServer") -> None:
    """Ask the client to re-request what the settings shape (inlay hints show encodings and
    offsets, code lenses and hovers the compat mode's bytes), where it supports the refresh."""
    if server.capability("workspace.inlay_hint.refresh_support", False):
        server.workspace_inlay_hint_refresh(None)
    if server.capability("workspace.code_lens.refresh_support", False):
        server.workspace_code_lens_refresh(None)


async def fetch_configuration(server: "WaveLanguageServer") -> None:
    """Ask the client for the `wave` section and apply it (when it supports the request)."""
    if not server.capability("workspace.configuration", False):
        return
    try:
        result = await server.workspace_configuration_async(types.ConfigurationParams(
            items=[types.ConfigurationItem(section=SECTION)]))
    except Exception as exc:
        report_failure(server, "workspace/configuration", exc)
        return
    data = result[0] if result else None
    if data is None and server.settings.raw:
        return  # the client has no `wave` section: keep initializationOptions
    apply_settings(server, data, "workspace/configuration")
    server.publisher.settings_changed()
    server.runs.settings_changed()
    server.profiles.settings_changed()
    refresh_views(server)


def setup(server: "WaveLanguageServer") -> None:
    @notification(server, types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and TRUST_OPTION in options:
            options = dict(options)
            # an untrusted workspace (VS Code's restricted mode) never runs kernels; only the
            # client decides this, once: no workspace setting can turn runs back on
            server.runs.trusted = options.pop(TRUST_OPTION) is not False
        apply_settings(server, options, "initializationOptions")
        server.publisher.initialize()

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await fetch_configuration(server)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        if server.capability("workspace.configuration", False):
            await fetch_configuration(server)
        else:
            apply_settings(server, params.settings, "workspace/didChangeConfiguration")
            server.publisher.settings_changed()
            server.runs.settings_changed()
            server.profiles.settings_changed()
            refresh_views(server)

    @notification(server, types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = server.documents.open(item.uri, item.text, item.version)
        server.publisher.document_changed(doc, immediate=True)
        if server.documents.is_ready(item.uri):
            server.runs.document_changed(doc, immediate=True)
        else:       # a large text is still being parsed: its launch lines are not known yet
            async def when_parsed() -> None:
                state = await server.documents.ready(item.uri)
                if state is not None:
                    server.runs.document_changed(state, immediate=True)
            asyncio.ensure_future(when_parsed())

    @notification(server, types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        ident = params.text_document
        changes = list(params.content_changes)

        def apply(state) -> None:
            try:
                apply_changes(state, ident.version, changes, server.codec, warn)
            except Exception as exc:
                report_failure(server, types.TEXT_DOCUMENT_DID_CHANGE, exc)
            server.publisher.document_changed(state)
            server.runs.document_changed(state)
            server.profiles.document_changed(state)

        if server.documents.change(ident.uri, apply) is None:
            warn(f"didChange for {ident.uri}, which is not open: ignored")

    def warn(message: str) -> None:
        server.log(f"wave-lsp: {message}", types.MessageType.Warning)

    @notification(server, types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        server.runs.document_closed(uri)         # stops its run first
        server.profiles.document_closed(uri)
        server.documents.close(uri)
        server.publisher.document_closed(uri)
