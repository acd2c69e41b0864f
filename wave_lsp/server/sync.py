"""Lifecycle, text synchronisation and configuration: where the features' hooks are called.

`initialize` carries the client's capabilities (resolved here, once, into
`server.client`) and `initializationOptions` (our first settings); then every feature's
`initialize` hook runs. After `initialized` we ask for the `wave` section with
`workspace/configuration` when the client supports it, and again on
`workspace/didChangeConfiguration`; new settings reach every feature (`settings_changed`) and
settle every open document again. Documents arrive with `didOpen`, change with incremental
`didChange` and leave with `didClose` (`document_closed`). Each edit tells the features at once
(`document_edited`: stop stale work) and restarts the document's one debounce timer
(`diagnostics.debounceMs`); when it fires, the features publish and re-run
(`document_settled`). Invalid settings are shown in one `window/showMessage` and each logged,
never silently dropped.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from .. import __version__
from ..ide.engine import engine_summary
from ..ide.state import DocumentState
from .capabilities import resolve
from .changes import apply_changes
from .handlers import notification
from .job_feature import TRUST_OPTION
from .server import Feature, WaveLanguageServer, report_failure
from .settings import SECTION, parse_settings


MAX_SHOWN_PROBLEMS = 5


def apply_settings(server: WaveLanguageServer, data: Any, origin: str) -> None:
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


def refresh_views(server: WaveLanguageServer) -> None:
    """Ask the client to re-request what the settings shape (inlay hints show encodings and
    offsets, code lenses and hovers the compat mode's bytes), where it supports the refresh."""
    if server.client.inlay_hint_refresh:
        server.workspace_inlay_hint_refresh(None)
    if server.client.code_lens_refresh:
        server.workspace_code_lens_refresh(None)


class Debounce(Feature):
    """The one debounce of each document's edits: a timer per document, restarted by every
    edit; when it fires, every feature's `document_settled` runs on the parsed document."""

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(server)
        self._timers: dict[str, asyncio.Task] = {}

    def schedule(self, uri: str, immediate: bool = False) -> None:
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()
        delay = 0.0 if immediate else self.server.settings.debounce_ms / 1000
        self._timers[uri] = asyncio.ensure_future(self._settle(uri, delay))

    async def _settle(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        self._timers.pop(uri, None)
        doc = await self.server.documents.ready(uri)     # a large text may still be parsed
        if doc is not None:
            self.server.broadcast("document_settled", doc)

    def settings_changed(self) -> None:
        for doc in self.server.documents.all():
            self.schedule(doc.uri, immediate=True)

    def document_closed(self, uri: str) -> None:
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()


async def fetch_configuration(server: WaveLanguageServer) -> None:
    """Ask the client for the `wave` section and apply it (when it supports the request)."""
    if not server.client.configuration:
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
    settings_changed(server, data, "workspace/configuration")


def settings_changed(server: WaveLanguageServer, data: Any, origin: str) -> None:
    """Install new settings, tell every feature, and ask the client to redraw."""
    apply_settings(server, data, origin)
    server.broadcast("settings_changed")
    refresh_views(server)


def setup(server: WaveLanguageServer) -> None:
    debounce = server.add_feature(Debounce(server))

    @notification(server, types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        server.client = resolve(params.capabilities)
        options = params.initialization_options
        if isinstance(options, dict) and TRUST_OPTION in options:
            options = {k: v for k, v in options.items() if k != TRUST_OPTION}
        apply_settings(server, options, "initializationOptions")
        server.broadcast("initialize", params)

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        server.log(f"wave-lsp {__version__}: kernels run on the {engine_summary()}")
        await fetch_configuration(server)
        server.broadcast("initialized")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        if server.client.configuration:
            await fetch_configuration(server)
        else:
            settings_changed(server, params.settings, "workspace/didChangeConfiguration")

    @notification(server, types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        server.documents.open(item.uri, item.text, item.version)
        debounce.schedule(item.uri, immediate=True)

    @notification(server, types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        ident = params.text_document
        changes = list(params.content_changes)

        def apply(state: DocumentState) -> None:
            try:
                apply_changes(state, ident.version, changes, server.codec, warn)
            except Exception as exc:
                report_failure(server, types.TEXT_DOCUMENT_DID_CHANGE, exc)
            server.broadcast("document_edited", state)
            debounce.schedule(state.uri)

        if server.documents.change(ident.uri, apply) is None:
            warn(f"didChange for {ident.uri}, which is not open: ignored")

    def warn(message: str) -> None:
        server.log(f"wave-lsp: {message}", types.MessageType.Warning)

    @notification(server, types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        server.documents.close(uri)         # cancels its jobs and stops its run first
        server.broadcast("document_closed", uri)

    @server.feature(types.SHUTDOWN)
    def shutdown(params: Any = None) -> None:
        server.broadcast("shutdown")
        server.documents.cancel_all("the server shuts down")   # stops the vendor compilers
