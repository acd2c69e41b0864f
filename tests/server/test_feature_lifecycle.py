"""The server as features, in process: client capabilities resolved once at
`initialize` into a typed object; every feature's lifecycle hooks called through one place; one
debounce per edit burst; the document version in one place; a new feature joining with its own
`setup`."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as t
from pygls.capabilities import get_capability
from pygls.workspace import Workspace
from pytest_lsp import client_capabilities

from wave_lsp.server.capabilities import ClientCapabilities, resolve
from wave_lsp.server.diagnostics import Publisher
from wave_lsp.server.runs import RunService
from wave_lsp.server.server import FEATURES, Feature, create_server

from .test_isolation import Capture

URI = "file:///tmp/wave-lsp-tests/lifecycle.wave"
TEXT = ".kernel k\n.registers 4\n    iadd r1, r2, r3\n    halt\n.end\n"


# Each field and the dotted look-up the features made before it existed (with its default).
OLD_LOOKUPS = {
    "related_information": ("text_document.publish_diagnostics.related_information", True),
    "diagnostic_refresh": ("workspace.diagnostics.refresh_support", False),
    "inlay_hint_refresh": ("workspace.inlay_hint.refresh_support", False),
    "code_lens_refresh": ("workspace.code_lens.refresh_support", False),
    "configuration": ("workspace.configuration", False),
    "snippets": ("text_document.completion.completion_item.snippet_support", False),
    "signature_label_offsets": ("text_document.signature_help.signature_information."
                                "parameter_information.label_offset_support", False),
}


@pytest.mark.parametrize("preset", ["visual-studio-code", "neovim", "emacs"])
def test_capabilities_resolve_as_the_dotted_look_ups_did(preset):
    caps = client_capabilities(preset)
    found = resolve(caps)
    for field, (path, default) in OLD_LOOKUPS.items():
        assert getattr(found, field) == bool(get_capability(caps, path, default)), field
    assert found.pull_diagnostics == (get_capability(caps, "text_document.diagnostic")
                                      is not None)
    formats = get_capability(caps, "text_document.completion.completion_item."
                                   "documentation_format", None) or []
    assert found.completion_markdown == (t.MarkupKind.Markdown in formats)
    hover = get_capability(caps, "text_document.hover.content_format", None)
    assert found.hover_markdown == (not hover or t.MarkupKind.Markdown in hover)


def test_capabilities_of_vs_code_and_neovim():
    code = resolve(client_capabilities("visual-studio-code"))
    assert code.snippets and code.code_lens_refresh and code.configuration
    assert code.completion_markdown and code.signature_label_offsets
    nvim = resolve(client_capabilities("neovim"))
    assert nvim.configuration and nvim.snippets and nvim.hover_markdown
    assert not nvim.code_lens_refresh and not nvim.diagnostic_refresh   # so it gets push
    assert resolve(None) == ClientCapabilities() == resolve(t.ClientCapabilities())


def test_capabilities_follow_what_the_client_says():
    plain = t.ClientCapabilities(text_document=t.TextDocumentClientCapabilities(
        hover=t.HoverClientCapabilities(content_format=[t.MarkupKind.PlainText]),
        publish_diagnostics=t.PublishDiagnosticsClientCapabilities(related_information=False)))
    found = resolve(plain)
    assert not found.hover_markdown and not found.related_information


class Probe(Feature):
    """Records every hook it gets."""

    def __init__(self, server) -> None:
        super().__init__(server)
        self.calls: list[tuple] = []

    def initialize(self, params):
        self.calls.append(("initialize", self.server.client.snippets))

    def settings_changed(self):
        self.calls.append(("settings_changed",))

    def document_edited(self, doc):
        self.calls.append(("edited", doc.version))

    def document_settled(self, doc):
        self.calls.append(("settled", doc.version, doc.text.count("\n")))

    def document_closed(self, uri):
        self.calls.append(("closed", uri))

    def shutdown(self):
        self.calls.append(("shutdown",))


class Broken(Feature):
    def document_settled(self, doc):
        raise RuntimeError("injected failure in a hook")

    def code_lenses(self, doc):
        raise RuntimeError("injected failure in a contribution")


async def _session(server, sink, messages, settle_s: float = 0.3) -> None:
    for message in messages:
        server.protocol.handle_message(server.protocol.structure_message(message))
        await asyncio.sleep(0)
    await asyncio.sleep(settle_s)


def _changed(version: int, line: int, text: str) -> dict:
    return {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": URI, "version": version}, "contentChanges": [{
            "range": {"start": {"line": line, "character": 0},
                      "end": {"line": line, "character": 0}}, "text": text}]}}


@pytest.fixture
def server():
    server = create_server()
    server.protocol.set_writer(Capture())
    server.protocol._workspace = Workspace(None, position_encoding=t.PositionEncodingKind.Utf16)
    return server


def test_hooks_in_order_and_one_settle_per_edit_burst(server):
    probe = server.add_feature(Probe(server))
    broken = server.add_feature(Broken(server))
    sink = server.protocol.writer
    caps = server.protocol._converter.unstructure(client_capabilities("visual-studio-code"))
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "capabilities": caps, "initializationOptions": {"diagnostics": {"debounceMs": 50}}}}
    opened = {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": URI, "languageId": "wave", "version": 1, "text": TEXT}}}
    lens = {"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens",
            "params": {"textDocument": {"uri": URI}}}
    closed = {"jsonrpc": "2.0", "method": "textDocument/didClose",
              "params": {"textDocument": {"uri": URI}}}

    async def main() -> None:
        await _session(server, sink, [initialize, opened])
        assert server.client.snippets and server.client.code_lens_refresh   # resolved once
        # three quick edits (closer together than the 50 ms debounce): one settle, at the end
        await _session(server, sink, [_changed(2, 2, "    ; a\n"), _changed(3, 2, "    ; b\n"),
                                      _changed(4, 2, "    ; c\n"), lens])
        doc = server.documents.get(URI)
        assert doc.version == doc.document.version == 4          # the version in one place
        await _session(server, sink, [closed], 0.1)

    asyncio.run(main())
    assert probe.calls == [("initialize", True), ("settled", 1, 5), ("edited", 2), ("edited", 3),
                           ("edited", 4), ("settled", 4, 8), ("closed", URI)]
    # a failing hook or contribution is reported, and the others still run
    logs = [m["params"]["message"] for m in sink.messages
            if m.get("method") == "window/logMessage"]
    assert any("Broken.document_settled failed" in m for m in logs)
    assert any("Broken.code_lenses failed" in m for m in logs)
    titles = [lens["command"]["title"] for m in sink.messages if m.get("id") == 2
              for lens in m["result"]]
    assert "Assemble" in titles and "▶ Run" in titles and "Check portability" in titles
    server.broadcast("shutdown")
    assert probe.calls[-1] == ("shutdown",) and broken is server.get_feature(Broken)


def test_features_are_found_by_type(server):
    assert isinstance(server.get_feature(RunService), RunService)
    assert isinstance(server.get_feature(Publisher), Publisher)
    with pytest.raises(LookupError, match="Probe"):
        server.get_feature(Probe)
    assert FEATURES.count("run_commands") == 1      # a feature module joins with one name
