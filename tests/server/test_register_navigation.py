"""Registers as symbols through the real server (as Neovim and as VS Code): definition,
references, document highlight (Read/Write kinds), prepareRename and rename with its refusal,
and the U511/U512 diagnostics published for reads before writes. (Nothing but a comment may hold
non-ASCII text, and it comes after every register of its line.)"""

from __future__ import annotations

import pytest
from lsprotocol import types as t

from .conftest import client_position, diagnostics, open_document
from .lspclient import edits_of

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

SOURCE = """\
.kernel k
.registers 8
    mov_imm r1, 0
    if p1
    mov_imm r1, 2
    endif
    iadd r2, r1, r1 ; «é» r1
    halt
.end
"""
READ = (6, 13)       # the first r1 of the iadd


def _doc(uri):
    return t.TextDocumentIdentifier(uri=uri)


def _spans(client, items):
    out = []
    for item in items:
        r = item.range
        assert r.start.line == r.end.line
        out.append((r.start.line, r.start.character, r.end.character))
    return out


async def test_definition_references_highlight(client):
    uri = open_document(client, SOURCE)
    pos = client_position(client, SOURCE, *READ)
    defs = await client.text_document_definition_async(t.DefinitionParams(
        text_document=_doc(uri), position=pos))
    assert [(d.uri, *_spans(client, [d])[0]) for d in defs] == [(uri, 2, 12, 14),
                                                                (uri, 4, 12, 14)]
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=_doc(uri), position=pos,
        context=t.ReferenceContext(include_declaration=True)))
    assert _spans(client, refs) == [(2, 12, 14), (4, 12, 14), (6, 13, 15), (6, 17, 19)]
    marks = await client.text_document_document_highlight_async(t.DocumentHighlightParams(
        text_document=_doc(uri), position=pos))
    W, R = t.DocumentHighlightKind.Write, t.DocumentHighlightKind.Read
    assert [(m.range.start.line, m.range.start.character, m.kind) for m in marks] == [
        (2, 12, W), (4, 12, W), (6, 13, R), (6, 17, R)]


async def test_rename_and_its_refusal(client):
    uri = open_document(client, SOURCE)
    pos = client_position(client, SOURCE, *READ)
    prep = await client.text_document_prepare_rename_async(t.PrepareRenameParams(
        text_document=_doc(uri), position=pos))
    assert prep.placeholder == "r1" and prep.range.start == t.Position(line=6, character=13)
    edit = await client.text_document_rename_async(t.RenameParams(
        text_document=_doc(uri), position=pos, new_name="r5"))
    assert sorted((e.range.start.line, e.range.start.character, e.new_text)
                  for e in edits_of(edit, uri)) == [(2, 12, "r5"), (4, 12, "r5"),
                                                    (6, 13, "r5"), (6, 17, "r5")]
    with pytest.raises(Exception, match="r2 is already used in kernel 'k'"):
        await client.text_document_rename_async(t.RenameParams(
            text_document=_doc(uri), position=pos, new_name="r2"))
    with pytest.raises(Exception, match="beyond the kernel's 8 registers"):
        await client.text_document_rename_async(t.RenameParams(
            text_document=_doc(uri), position=pos, new_name="r8"))


async def test_reads_before_writes_are_published(client):
    text = SOURCE.replace("    mov_imm r1, 0\n", "").replace("iadd r2, r1, r1", "iadd r2, r1, r3")
    text = text.replace("    halt\n", "    mov_imm r3, 1\n    halt\n")
    uri = open_document(client, text)
    found = {d.code: d for d in await diagnostics(client, uri) if d.code in ("U511", "U512")}
    assert found["U512"].severity == t.DiagnosticSeverity.Hint
    assert found["U511"].severity == t.DiagnosticSeverity.Warning
    assert found["U511"].range.start == client_position(client, text, 5, 17)
    assert "r3 is read before any write reaches this read" in found["U511"].message
