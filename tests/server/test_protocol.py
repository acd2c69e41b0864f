"""End-to-end protocol behaviour: text sync in utf-16 and utf-8, diagnostics push/pull, code
actions, formatting on every example, commands, configuration, cancellation and robustness."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from lsprotocol import types as t

from wave_lsp.asm import assemble

from .lspclient import edits_of
from .conftest import client_position, diagnostics, example, example_names, open_document, pulls

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

ASTRAL = ".kernel k\n    iadd r1, r2, r3 ; 😀𝄞 tail\n    halt\n.end\n"
OPTIONS = t.FormattingOptions(tab_size=4, insert_spaces=True)


def ident(uri):
    return t.TextDocumentIdentifier(uri=uri)


def apply_edits(text: str, edits) -> str:
    """Apply whole-line content edits (what our formatter returns) to LF text."""
    lines = text.split("\n")
    for e in edits:
        assert e.range.start.line == e.range.end.line
        lines[e.range.start.line] = e.new_text
    return "\n".join(lines)


async def test_astral_characters_in_comments(client):
    uri = open_document(client, ASTRAL)
    line = ASTRAL.split("\n")[1]
    start = line.index("tail")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=client_position(client, ASTRAL, 1, start),
                          end=client_position(client, ASTRAL, 1, start + 4)),
            text="end")]))
    tokens = await client.text_document_semantic_tokens_full_async(t.SemanticTokensParams(
        text_document=ident(uri)))
    comment = "; 😀𝄞 end"
    units = len(comment.encode("utf-8")) if client.preset == "neovim" else \
        len(comment.encode("utf-16-le")) // 2
    lengths = tokens.data[2::5]
    assert units in lengths
    # the edit landed on `tail`: formatting shows the line's new content
    code = "    iadd r1, r2, r3"  # its trailing comment moves to column 36
    edited = ASTRAL.replace("tail", "end")
    edits = await client.text_document_formatting_async(t.DocumentFormattingParams(
        text_document=ident(uri), options=OPTIONS))
    assert [e.new_text for e in edits] == [code.ljust(36) + "; 😀𝄞 end"]
    # the edit replaces the whole edited line, its end counted in the client's units
    assert edits[0].range.end == client_position(client, edited, 1,
                                                 len(edited.split("\n")[1]))


async def test_diagnostics_follow_edits_and_close(client):
    text = ".kernel k\n    iadd r1, r2, r3\n    halt\n.end\n"
    uri = open_document(client, text)
    assert await diagnostics(client, uri) == []
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=1, character=4),
                          end=t.Position(line=1, character=8)), text="add.s32")]))
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=1, character=4),
                          end=t.Position(line=1, character=11)), text="ADD")]))
    found = await diagnostics(client, uri, version=3)
    assert [d.code for d in found] == ["L409"] or [d.code for d in found][0].startswith("L4")
    assert found[0].range.start == t.Position(line=1, character=4)
    if not pulls(client):  # push: cleared on close
        mark = client.protocol.mark()
        client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=ident(uri)))
        params = await client.protocol.publication(uri, after=mark)
        assert list(params.diagnostics) == []


async def test_quick_fixes_and_legacy_source_action(client):
    text = ".kernel k\n    add.s32 r1, r2, r3\n    ADD r1, r2, r3\n    halt\n.end\n"
    uri = open_document(client, text)
    await diagnostics(client, uri)
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=ident(uri), range=t.Range(start=t.Position(line=1, character=4),
                                                end=t.Position(line=1, character=4)),
        context=t.CodeActionContext(diagnostics=[])))
    quick = [a for a in actions if a.kind == t.CodeActionKind.QuickFix]
    assert quick and "iadd" in "".join(e.new_text for e in edits_of(quick[0].edit, uri))
    source = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=ident(uri), range=t.Range(start=t.Position(line=0, character=0),
                                                end=t.Position(line=0, character=0)),
        context=t.CodeActionContext(diagnostics=[], only=["source"])))
    assert len(source) == 1 and source[0].kind == "source.convertLegacySyntax"
    edits = edits_of(source[0].edit, uri)
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                    reverse=True):
        line = lines[e.range.start.line]
        lines[e.range.start.line] = line[:e.range.start.character] + e.new_text + \
            line[e.range.end.character:]
    assert lines[1].split()[0] == "iadd" and lines[2].split()[0] == "iadd"


@pytest.mark.parametrize("name", example_names())
async def test_formatting_keeps_bytes_and_is_idempotent(client, name):
    text = example(name)
    uri = open_document(client, text, name)
    edits = await client.text_document_formatting_async(t.DocumentFormattingParams(
        text_document=ident(uri), options=OPTIONS))
    formatted = apply_edits(text, edits)
    assert assemble(formatted).wbin() == assemble(text).wbin()
    for line in formatted.split("\n"):
        if line.strip() and line.rstrip().endswith(":"):
            assert not line[0].isspace()  # labels at column 0
    again = open_document(client, formatted, name)
    assert list(await client.text_document_formatting_async(t.DocumentFormattingParams(
        text_document=ident(again), options=OPTIONS))) == []


async def test_assemble_command(client, tmp_path):
    text = example("vector_add")
    path = tmp_path / f"va_{client.preset}.wave"
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))
    report = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.assemble", arguments=[uri]))
    assert (tmp_path / path.with_suffix(".wbin").name).read_bytes() == assemble(text).wbin()
    assert report["size"] == len(assemble(text).wbin())
    assert any("assembled" in m.message for m in client.messages)


async def test_invalid_setting_is_shown(client):
    client.set_configuration({"disable": ["NOPE"], "inlayHints": {"offsets": "yes"}},
                             section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    for _ in range(50):
        if sum("NOPE" in m.message or "offsets" in m.message for m in client.messages) >= 2:
            break
        await asyncio.sleep(0.05)
    shown = [m.message for m in client.messages]
    assert any("NOPE" in m for m in shown) and any("inlayHints.offsets" in m for m in shown)
    client.set_configuration({"disable": ["L409"]}, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)
    uri = open_document(client, ".kernel k\n    ADD r1, r2, r3\n    halt\n.end\n")
    assert "L409" not in [d.code for d in await diagnostics(client, uri)]
    client.set_configuration({}, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)


async def test_compat_setting_changes_the_encoding_shown(client):
    """Hover shows the words of the configured mode: CAS modifier 8 by default, 0 as wave-asm."""
    text = ".kernel k\n    atomic_cas r1, r2, r3, r4, .device\n    halt\n.end\n"
    uri = open_document(client, text)
    position = client_position(client, text, 1, 6)

    async def words() -> str:
        hover = await client.text_document_hover_async(t.HoverParams(
            text_document=ident(uri), position=position))
        return hover.contents.value

    assert "3D010280 03040002" in await words()
    client.set_configuration({"compat": "wave-asm"}, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    for _ in range(50):
        shown = await words()
        if "3D010200 03040002" in shown:
            break
        await asyncio.sleep(0.05)
    assert "3D010200 03040002" in shown
    client.set_configuration({}, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)


async def test_cancelled_request_is_not_computed(client):
    busy = "\n".join(f"    iadd r{i % 200}, r{i % 7}, r{i % 13} ; busy {i} {client.preset}"
                     for i in range(6000))
    uri = open_document(client, ".kernel k\n" + busy + "\n.end\n")  # keeps the server busy
    request = asyncio.ensure_future(client.protocol.send_request_async(
        t.TEXT_DOCUMENT_HOVER, t.HoverParams(text_document=ident(uri),
                                             position=t.Position(line=1, character=5)),
        msg_id=f"cancel-{client.preset}"))
    await asyncio.sleep(0)
    client.protocol.notify(t.CANCEL_REQUEST, t.CancelParams(id=f"cancel-{client.preset}"))
    with pytest.raises(Exception, match="(?i)cancel"):
        await request
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=t.Position(line=1, character=5)))
    assert "iadd" in hover.contents.value  # the server is alive and answers the next one


async def test_large_and_binary_files_do_not_hang(client):
    big = ".kernel k\n" + "".join(f"    iadd r1, r2, r3 ; line {i}\n" for i in range(36000)) \
        + "    halt\n.end\n"
    assert len(big) > 1_000_000
    binary = open_document(client, "\x00\x01ELF\x02\x00" * 1000, "binary")
    found = await diagnostics(client, binary)
    assert [d.code for d in found] == ["X900"]
    uri = open_document(client, big, "big")
    for target in (uri, binary):
        result = await asyncio.wait_for(client.text_document_hover_async(t.HoverParams(
            text_document=ident(target), position=t.Position(line=1, character=5))), 120)
        assert (result is None) == (target == binary)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(alphabet=st.sampled_from(list("riadp0123 ,.:@!;\n\t_kernelsh😀[]+-x")),
               max_size=80), st.integers(0, 5), st.integers(0, 30))
async def test_random_text_never_breaks_a_handler(client, text, line, col):
    uri = open_document(client, text, "random")
    pos = t.Position(line=line, character=col)
    await client.text_document_hover_async(t.HoverParams(text_document=ident(uri), position=pos))
    await client.text_document_completion_async(t.CompletionParams(text_document=ident(uri),
                                                                     position=pos))
    await client.text_document_semantic_tokens_full_async(t.SemanticTokensParams(
        text_document=ident(uri)))
    await client.text_document_formatting_async(t.DocumentFormattingParams(
        text_document=ident(uri), options=OPTIONS))
    await client.text_document_selection_range_async(t.SelectionRangeParams(
        text_document=ident(uri), positions=[pos]))
    errors = [m.message for m in client.log_messages if m.type == t.MessageType.Error]
    assert errors == []
