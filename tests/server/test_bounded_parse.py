"""Work that grew without bound, through the real server: a launch
line of tens of thousands of flags (parsed in quadratic time on the event loop, every
keystroke) and 10,000 nested blocks (formatting answered with the square of the depth, then
nothing at all) leave every request answered: each request here has the suite's deadline."""

from __future__ import annotations

import pytest
from lsprotocol import types as t

from .conftest import ONE_PRESET, diagnostics, open_document

pytestmark = [pytest.mark.asyncio(loop_scope="module"), ONE_PRESET,
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

SMALL = ".kernel s\n.registers 4\n    mov_sr r0, sr_lane_id\n    halt\n.end\n"


def kernel(flags: str) -> str:
    return (f".kernel k\n; wave-lsp run: {flags}\n.registers 4\n    mov_sr r0, sr_lane_id\n"
            "    halt\n.end\n")


async def hover(client, uri: str, line: int = 2, character: int = 6) -> t.Hover | None:
    return await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        position=t.Position(line=line, character=character)))


async def test_a_flood_of_launch_flags_leaves_hovers_answered(client):
    small = open_document(client, SMALL, "small")
    flood = open_document(client, kernel(" ".join(["--stats"] * 60_000)), "flood")
    flags = " ".join(f"--set-reg r{i % 4}:{i}" for i in range(10_000))
    many = open_document(client, kernel(flags), "many")
    assert "mov_sr" in (await hover(client, small)).contents.value
    refused = [d for d in await diagnostics(client, flood) if d.code == "R004"]
    assert [d.message for d in refused] == [
        "the launch line has 60,000 flags; at most 10,000 are read, so it does not run"]
    assert refused[0].range.start.line == 1
    assert not [d for d in await diagnostics(client, many) if d.code == "R004"]
    for version in range(2, 6):                   # keystrokes in the document
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=many, version=version),
            content_changes=[t.TextDocumentContentChangePartial(
                range=t.Range(start=t.Position(line=4, character=4),
                              end=t.Position(line=4, character=4)), text=" ")]))
        assert await hover(client, small) is not None
    assert await hover(client, many, 3, 6) is not None
    assert await hover(client, flood, 3, 6) is not None


def nested(depth: int) -> str:
    out = [".kernel k", ".registers 4", "mov_sr r0, sr_lane_id", "icmp_lt p1, r1, r0"]
    out += ["if p1", "iadd r1, r1, r0"] * depth + ["endif"] * depth
    return "\n".join(out + ["halt", ".end", ""])


async def test_formatting_10000_nested_blocks_is_answered_and_bounded(client):
    small = open_document(client, SMALL, "small")
    text = nested(10_000)
    deep = open_document(client, text, "deep")
    edits = await client.text_document_formatting_async(t.DocumentFormattingParams(
        text_document=t.TextDocumentIdentifier(uri=deep),
        options=t.FormattingOptions(tab_size=4, insert_spaces=True)))
    formatted = "".join(edit.new_text for edit in edits)
    lines = text.count("\n")
    assert formatted.count("\n") >= lines - 4          # one edit over the changed span
    assert max(len(line) - len(line.lstrip(" ")) for line in formatted.split("\n")) == 4 * 33
    assert len(formatted) < lines * (4 * 33 + 20)      # 3,000 levels were a 36 MB answer
    k309 = [d for d in await diagnostics(client, deep) if d.code == "K309"]
    assert len(k309) == 1 and "formatting indents at most 32 levels" in k309[0].message
    assert "too deep for the uniformity and divergence analysis" in k309[0].message
    assert await hover(client, small) is not None
    assert await hover(client, deep, 5000, 2) is not None
