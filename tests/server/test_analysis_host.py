"""The real server stays responsive while it analyses a large document: a hover in another
document is answered, a `$/cancelRequest` is honoured, and invalid edits from a client are
logged in one line while the document stays consistent."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from lsprotocol import types as t

from wave_lsp.analysis import analyze

from .conftest import ONE_PRESET, diagnostics, open_document, pulls

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from corpus import distinct_source  # noqa: E402

pytestmark = [pytest.mark.asyncio(loop_scope="module"), ONE_PRESET,
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

SMALL = ".kernel k\n    iadd r1, r2, r3\n    halt\n.end\n"


def ident(uri):
    return t.TextDocumentIdentifier(uri=uri)


async def test_hover_in_another_document_while_a_large_one_is_analysed(client):
    big = open_document(client, distinct_source(20_000, seed=11), "big")
    if pulls(client):       # the client asks for the analysis
        analysed = asyncio.ensure_future(client.text_document_diagnostic_async(
            t.DocumentDiagnosticParams(text_document=ident(big))))
    else:                   # the server analyses on its own and publishes
        analysed = asyncio.ensure_future(diagnostics(client, big))
    small = open_document(client, SMALL, "small")
    hover = await asyncio.wait_for(client.text_document_hover_async(t.HoverParams(
        text_document=ident(small), position=t.Position(line=1, character=5))), 60)
    assert "iadd" in hover.contents.value
    assert not analysed.done()          # answered while the 20,000 lines are being analysed
    result = await asyncio.wait_for(analysed, 300)
    items = result.items if pulls(client) else result
    assert any(d.code == "D605" for d in items)


async def test_cancel_is_honoured_while_a_large_document_is_analysed(client):
    big = open_document(client, distinct_source(50_000, seed=12), "big")
    if pulls(client):
        analysed = asyncio.ensure_future(client.text_document_diagnostic_async(
            t.DocumentDiagnosticParams(text_document=ident(big))))
    else:
        analysed = asyncio.ensure_future(diagnostics(client, big))
    msg_id = f"format-big-{client.preset}"
    request = asyncio.ensure_future(client.protocol.send_request_async(
        t.TEXT_DOCUMENT_FORMATTING, t.DocumentFormattingParams(
            text_document=ident(big), options=t.FormattingOptions(tab_size=4,
                                                                  insert_spaces=True)),
        msg_id=msg_id))
    await asyncio.sleep(0.2)
    client.protocol.notify(t.CANCEL_REQUEST, t.CancelParams(id=msg_id))
    with pytest.raises(Exception, match="(?i)cancel"):
        await asyncio.wait_for(request, 300)
    small = open_document(client, SMALL, "small")
    hover = await asyncio.wait_for(client.text_document_hover_async(t.HoverParams(
        text_document=ident(small), position=t.Position(line=1, character=5))), 60)
    assert "iadd" in hover.contents.value
    await asyncio.wait_for(analysed, 300)


async def test_an_edit_during_the_analysis_publishes_the_new_text(client):
    text = distinct_source(20_000, seed=13)
    big = open_document(client, text, "big")
    await asyncio.sleep(0.05)
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=big, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=1, character=0),
                          end=t.Position(line=1, character=0)),
            text="    @p0 nop\n")]))
    found = await asyncio.wait_for(diagnostics(client, big, version=2), 300)
    assert text.splitlines()[1].startswith(".kernel")   # the new line lies before the kernel
    assert {d.code for d in found if d.range.start.line == 1} == {"K303", "U501"}


async def test_invalid_edits_are_logged_and_the_document_stays_consistent(client):
    uri = open_document(client, SMALL, "invalid")
    expected = SMALL
    log_before = len(client.log_messages)

    def change(version: int, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[t.TextDocumentContentChangePartial(
                range=t.Range(start=t.Position(line=start[0], character=start[1]),
                              end=t.Position(line=end[0], character=end[1])), text=text)]))

    change(2, (40, 0), (45, 3), "; appended")                  # past the end: clamped
    expected += "; appended"
    change(3, (2, 8), (2, 4), "nop")                          # end before start: swapped
    expected = expected.replace("    halt", "    nop", 1)
    change(3, (1, 200), (1, 300), " ; long")                   # stale version, past the line
    expected = expected.replace("r3\n", "r3 ; long\n", 1)
    found = await diagnostics(client, uri, version=3)
    want = analyze(expected)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in found] == \
        [(d.code, d.range.start_line, d.range.start_col) for d in want]
    assert [d.code for d in want] == ["U505"]                 # halt became nop
    await asyncio.sleep(0.1)
    logs = client.log_messages[log_before:]
    warnings = [m.message for m in logs if m.type == t.MessageType.Warning]
    assert len(warnings) >= 4 and all("\n" not in w for w in warnings)
    assert any("past the last line" in w for w in warnings)
    assert any("end before start" in w for w in warnings)
    assert any("not above the current version" in w for w in warnings)
    assert not [m for m in logs if m.type == t.MessageType.Error]


async def test_a_huge_reformat_is_one_edit_that_formats_the_file(client):
    from wave_lsp.ide.formatting import format_text

    text = "\n".join(" " + line.strip() for line in distinct_source(3_000, seed=14).split("\n"))
    uri = open_document(client, text, "reformat")
    edits = await asyncio.wait_for(client.text_document_formatting_async(
        t.DocumentFormattingParams(text_document=ident(uri),
                                   options=t.FormattingOptions(tab_size=4, insert_spaces=True))),
        300)
    assert len(edits) == 1
    lines = text.split("\n")
    (edit,) = edits
    start, end = edit.range.start, edit.range.end
    assert start.character == 0 and end.character == len(lines[end.line])
    result = "\n".join(lines[:start.line] + [edit.new_text] + lines[end.line + 1:])
    assert result == format_text(text)
