"""The test client never waits forever (see lspclient.py): publications that arrive together are
all seen, a request the server does not answer fails within its deadline, and nothing waits on a
server that has exited.

The server publishes diagnostics by itself only to clients without pull diagnostics, so these
tests drive a VS Code session (push), whatever the preset of the other modules.
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
import pytest_lsp
from lsprotocol import types as t

from .conftest import SERVER, diagnostics, open_document, start_session
from .lspclient import NoAnswer, WaveTestClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
              pytest.mark.real_server]    # SIGSTOP to the server's own process

LEGACY = ".kernel k\n    ADD r1, r2, r3\n    halt\n.end\n"     # an upper-case mnemonic (L4xx)


@pytest_lsp.fixture(config=SERVER, scope="module")
async def pushed(lsp_client: WaveTestClient):
    await start_session(lsp_client, "visual-studio-code")
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, loop_scope="module")
async def doomed(lsp_client: WaveTestClient):
    """A session whose server the test kills (no shutdown at the end)."""
    await start_session(lsp_client, "visual-studio-code")
    yield


def publish(client, uri: str, version: int, message: str) -> None:
    """Hand the client one publishDiagnostics, as its reader does with each message of a read."""
    client.protocol.handle_message(client.protocol.structure_message({
        "jsonrpc": "2.0", "method": t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
        "params": {"uri": uri, "version": version, "diagnostics": [{
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "message": message}]}}))


async def test_publications_handled_in_one_read_are_all_seen(pushed):
    """Two publications in one read are handled back to back, before the waiting test resumes:
    the second one is found (it used to be dropped, and the test waited for it forever)."""
    first, second = "file:///tmp/wave-lsp-tests/read-a.wave", "file:///tmp/wave-lsp-tests/read-b.wave"
    waiting = asyncio.ensure_future(diagnostics(pushed, first))
    await asyncio.sleep(0)          # the helper is waiting when the read comes
    publish(pushed, first, 1, "from a")
    publish(pushed, second, 1, "from b")
    assert [d.message for d in await asyncio.wait_for(waiting, 5)] == ["from a"]
    found = await asyncio.wait_for(diagnostics(pushed, second), 5)
    assert [d.message for d in found] == ["from b"]


async def test_every_document_republished_after_a_settings_change_is_seen(pushed):
    """A settings change republishes every open document at once: the client sees them all."""
    uris = [open_document(pushed, LEGACY, "burst") for _ in range(12)]
    codes = {tuple(d.code for d in await diagnostics(pushed, uri)) for uri in uris}
    assert len(codes) == 1 and len(code := next(iter(codes))) == 1 and code[0].startswith("L4")
    mark = pushed.protocol.mark()
    pushed.set_configuration({"disable": [code[0]]}, section="wave")
    pushed.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    try:
        for uri in uris:
            params = await pushed.protocol.publication(uri, after=mark)
            assert list(params.diagnostics) == []
    finally:
        pushed.set_configuration({}, section="wave")
        pushed.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
        await asyncio.sleep(0.3)


async def test_a_request_without_an_answer_fails_within_its_deadline(pushed):
    """A stalled server (stopped here) makes the request fail after the deadline with a message
    naming it; once the server runs again, its late answer is ignored and the session goes on."""
    uri = open_document(pushed, LEGACY, "stall")
    await diagnostics(pushed, uri)
    position = t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                             position=t.Position(line=1, character=5))
    pid = pushed._server.pid
    pushed.protocol.timeout = 1.0
    os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(NoAnswer, match="did not answer textDocument/hover .* within 1 s"):
            await pushed.text_document_hover_async(position)
    finally:
        os.kill(pid, signal.SIGCONT)
        pushed.protocol.timeout = 120.0
    hover = await pushed.text_document_hover_async(position)
    assert "iadd" in hover.contents.value.lower() or "add" in hover.contents.value.lower()


async def test_nothing_waits_on_a_server_that_exited(doomed):
    """A request in flight, a publication awaited and a request sent after the server died all
    fail at once, saying the server exited."""
    uri = open_document(doomed, LEGACY, "doomed")
    await diagnostics(doomed, uri)
    position = t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                             position=t.Position(line=1, character=5))
    server = doomed._server
    os.kill(server.pid, signal.SIGSTOP)     # the hover below stays unanswered
    in_flight = doomed.text_document_hover_async(position)
    awaited = asyncio.ensure_future(doomed.protocol.publication("file:///never.wave"))
    await asyncio.sleep(0.1)
    server.kill()
    with pytest.raises(Exception, match="exited"):
        await asyncio.wait_for(in_flight, 10)
    with pytest.raises(NoAnswer, match="exited"):
        await asyncio.wait_for(awaited, 10)
    with pytest.raises((NoAnswer, RuntimeError), match="exited|stopped"):
        await asyncio.wait_for(doomed.text_document_hover_async(position), 10)
