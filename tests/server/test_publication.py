"""Diagnostics delivered after edits (each diagnostic's conversion reused while it survives)
are exactly those of a fresh open of the same text; a whole-file inlay hint request (answered as
JSON written by the handler) gives what requests for its parts give."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lsprotocol import types as t
from lsprotocol.converters import get_converter

from .conftest import configure, diagnostics, open_document

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from corpus import distinct_source  # noqa: E402

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]


def plain(items: list[t.Diagnostic], uri: str) -> list:
    """Diagnostics as JSON values, with the document's URI blanked (related locations)."""
    out = get_converter().unstructure(items, list[t.Diagnostic])
    for d in out:
        for r in d.get("relatedInformation", ()):
            assert r["location"]["uri"] == uri
            r["location"]["uri"] = ""
    return out


def change(client, uri: str, version: int, start: tuple[int, int], end: tuple[int, int],
           text: str) -> None:
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=start[0], character=start[1]),
                          end=t.Position(line=end[0], character=end[1])), text=text)]))


async def test_diagnostics_after_edits_equal_those_of_a_fresh_open(client):
    text = distinct_source(2_000, seed=31)
    uri = open_document(client, text, "edited")
    first = await diagnostics(client, uri)
    assert len(first) > 100
    lines = text.split("\n")
    with_u504 = [d.range.start.line for d in first if d.code == "U504"]
    version = 1
    for step, line in enumerate(with_u504[:4] + [1500, 300]):
        version += 1
        if step % 3 == 0:       # a comment: no diagnostic changes
            change(client, uri, version, (line, len(lines[line])), (line, len(lines[line])),
                   " ; note")
            lines[line] += " ; note"
        elif step % 3 == 1:     # a line inserted: every later diagnostic moves
            change(client, uri, version, (line, 0), (line, 0), "    iadd r1, r2, r3\n")
            lines.insert(line, "    iadd r1, r2, r3")
        else:                   # a line removed
            change(client, uri, version, (line, 0), (line + 1, 0), "")
            del lines[line]
        edited = await diagnostics(client, uri, version)
    fresh_uri = open_document(client, "\n".join(lines), "fresh")
    fresh = await diagnostics(client, fresh_uri)
    assert plain(edited, uri) == plain(fresh, fresh_uri)


async def test_whole_file_inlay_hints_are_the_hints_of_its_parts(client):
    text = distinct_source(1_500, seed=32, clean=True)
    uri = open_document(client, text, "hints")
    await diagnostics(client, uri)
    ident = t.TextDocumentIdentifier(uri=uri)

    async def hints(first: int, last: int):
        found = await client.text_document_inlay_hint_async(t.InlayHintParams(
            text_document=ident, range=t.Range(start=t.Position(line=first, character=0),
                                               end=t.Position(line=last, character=0))))
        return get_converter().unstructure(found, list[t.InlayHint])

    await configure(client, {"inlayHints": {"offsets": True, "encoding": True}})
    try:
        whole = await hints(0, 1_499)
        parts = await hints(0, 699) + await hints(700, 1_499)
        again = await hints(0, 1_499)
    finally:
        await configure(client, {})
    assert len(whole) > 1_000
    assert whole == parts
    assert whole == again                            # again, from the kept JSON
    offsets = [h for h in whole if h.get("paddingRight")]
    assert offsets and all(len(h["label"]) == 4 and h["kind"] == 1 for h in offsets)
