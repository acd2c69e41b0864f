"""Reliability through the real server: the server's lines follow the client's across
CR/LF edits, deep nesting never breaks a request, hostile settings give one message, and the
assemble command writes only a sibling `.wbin` of a real `.wave` file, atomically."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types as t

from wave_lsp.asm import assemble

from client_text import ClientText
from .conftest import example, open_document

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

OPTIONS = t.FormattingOptions(tab_size=4, insert_spaces=True)


def ident(uri):
    return t.TextDocumentIdentifier(uri=uri)


def apply_text_edits(ref: ClientText, edits) -> None:
    """Apply LSP text edits (all relative to the text before them) as a client does. The texts
    here are ASCII, so characters are code units in every encoding."""
    located = [(ref.offset(e.range.start.line, e.range.start.character),
                ref.offset(e.range.end.line, e.range.end.character), e.new_text) for e in edits]
    for a, b, new in sorted(located, reverse=True):
        ref.text = ref.text[:a] + new + ref.text[b:]


def change(client, uri, version, start, end, text):
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=start[0], character=start[1]),
                          end=t.Position(line=end[0], character=end[1])), text=text)]))


async def formatted(client, uri: str, ref: ClientText) -> None:
    """Apply the server's formatting of `uri` to the client text `ref`."""
    apply_text_edits(ref, await client.text_document_formatting_async(
        t.DocumentFormattingParams(text_document=ident(uri), options=OPTIONS)))


async def assert_formats_like_a_fresh_copy(client, uri: str, ref: ClientText) -> None:
    """Formatting the edited document gives what formatting a fresh copy of the client's text
    gives: the server's lines are the client's. `ref` ends up formatted."""
    fresh = ClientText(ref.text)
    await formatted(client, open_document(client, ref.text, "fresh"), fresh)
    await formatted(client, uri, ref)
    assert ref.text == fresh.text


async def test_cr_lf_edit_then_formatting_keeps_the_document(client):
    """The issue's reproducer: deleting the X between a CR and an LF, then formatting."""
    text = ".kernel k\r.registers 4\rX\n    mov_imm r1,   1\n    halt  ; end\n.end\n"
    ref = ClientText(text)
    uri = open_document(client, text, "crlf")
    change(client, uri, 2, (2, 0), (2, 1), "")
    ref.edit((2, 0), (2, 1), "")
    await assert_formats_like_a_fresh_copy(client, uri, ref)
    assert ref.lines()[:2] == [".kernel k", ".registers 4"]
    assert ref.lines()[2].split() == ["mov_imm", "r1,", "1"]
    assert ref.lines()[3].split() == ["halt", ";", "end"]  # not a copy of mov_imm
    assert ref.lines()[4:] == [".end", ""]


@pytest.mark.parametrize("seed", range(4))
async def test_random_edits_keep_server_and_client_in_step(client, seed):
    """Edits that make CR and LF meet, then formatting: the result is what formatting the
    client's text from scratch gives."""
    import random

    rng = random.Random(seed)
    pieces = ["\r", "\n", "\r\n", "    halt", "x", " ", "; c", "l:", "  iadd r1,r2,r3"]
    text = ".kernel k\r\n    halt\r.end\n"
    ref = ClientText(text)
    uri = open_document(client, text, "random-crlf")
    for version in range(2, 60):
        lines = ref.lines()
        line = rng.randrange(len(lines) + 1)
        start = (line, rng.randrange(4))
        end = (line + rng.randrange(2), rng.randrange(4))
        new = "".join(rng.choice(pieces) for _ in range(rng.randrange(3)))
        a, b = sorted((start, end))
        change(client, uri, version, a, b, new)
        ref.edit(a, b, new)
    await assert_formats_like_a_fresh_copy(client, uri, ref)


async def test_selection_range_at_any_nesting_depth(client):
    depth = 600
    body = "".join(f"    if p{i % 4}\n" for i in range(depth)) + "    nop\n" + \
        "    endif\n" * depth
    text = ".kernel k\n" + body + "    halt\n.end\n"
    uri = open_document(client, text, "deep")
    result = await asyncio.wait_for(client.text_document_selection_range_async(
        t.SelectionRangeParams(text_document=ident(uri),
                               positions=[t.Position(line=depth + 1, character=5)])), 60)
    ranges, node = [], result[0]
    while node is not None:
        ranges.append(node.range)
        node = node.parent
    assert ranges[0].start.line == depth + 1 and len(ranges) > 50
    assert ranges[-1].start.line == 0 and ranges[-1].end.line == text.count("\n")
    for inner, outer in zip(ranges, ranges[1:]):  # each strictly contains the previous
        assert (outer.start.line, outer.start.character) <= (inner.start.line,
                                                             inner.start.character)
        assert (inner.end.line, inner.end.character) <= (outer.end.line, outer.end.character)
        assert inner != outer


async def test_many_invalid_codes_make_one_message(client):
    before = len(client.messages)
    codes = [f"Q{i:04d}" for i in range(10_000)]
    client.set_configuration({"disable": codes}, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    for _ in range(100):
        if len(client.messages) > before:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    shown = client.messages[before:]
    assert len(shown) == 1
    assert "Q0000" in shown[0].message and "10000" in shown[0].message
    assert len(shown[0].message) < 2000
    client.set_configuration({}, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)


# ---- the assemble command --------------------------------------------------------------------

async def assemble_command(client, uri: str, text: str):
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))
    try:
        return await client.workspace_execute_command_async(t.ExecuteCommandParams(
            command="wave-lsp.assemble", arguments=[uri]))
    except Exception as exc:  # an error response
        return exc


async def test_assemble_writes_a_sibling_and_says_where(client, tmp_path):
    text = example("vector_add")
    source = tmp_path / f"ok_{client.preset}.wave"
    source.write_text(text)
    report = await assemble_command(client, source.as_uri(), text)
    target = source.with_suffix(".wbin")
    assert target.read_bytes() == assemble(text).wbin()
    assert report["path"] == str(target)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("shape", ["relative", "dotdot", "wbin-input", "symlink-target",
                                   "missing-source", "untitled"])
async def test_assemble_refuses_unsafe_targets(client, tmp_path, shape):
    text = example("vector_add")
    good = assemble(text).wbin()
    (tmp_path / "sub").mkdir()
    victim = tmp_path / "victim.bin"
    victim.write_bytes(b"precious")
    if shape == "relative":
        uri = f"file:rel_{client.preset}.wave"
    elif shape == "dotdot":
        (tmp_path / "sub" / "a.wave").write_text(text)
        uri = (tmp_path / "sub").as_uri() + "/%2E%2E/a.wave"
    elif shape == "wbin-input":
        path = tmp_path / "prog.wbin"
        path.write_bytes(good)
        uri = path.as_uri()
    elif shape == "symlink-target":
        source = tmp_path / "link.wave"
        source.write_text(text)
        os.symlink(victim, tmp_path / "link.wbin")
        uri = source.as_uri()
    elif shape == "missing-source":
        uri = (tmp_path / "ghost.wave").as_uri()
    else:
        uri = "untitled:Untitled-1"
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = await assemble_command(client, uri, text)
    assert isinstance(result, Exception) or not result.get("path")
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing overwritten
    assert victim.read_bytes() == b"precious"
    assert not Path(f"rel_{client.preset}.wbin").exists()


async def test_a_nul_typed_and_deleted_again_loses_nothing(client):
    """A NUL makes the document binary (not analysed); deleting it gives back the very text."""
    text = ".kernel k\r\n  mov_imm r1,   1\r\n    halt\n.end\n"
    ref = ClientText(text)
    uri = open_document(client, text, "nul")
    steps = [((1, 2), (1, 2), "\x00"), ((3, 0), (3, 0), "  nop\r"), ((1, 2), (1, 3), ""),
             ((0, 0), (0, 0), "; top\n")]
    for version, (start, end, new) in enumerate(steps, start=2):
        change(client, uri, version, start, end, new)
        ref.edit(start, end, new)
    await assert_formats_like_a_fresh_copy(client, uri, ref)
    assert "mov_imm r1, 1" in ref.text
