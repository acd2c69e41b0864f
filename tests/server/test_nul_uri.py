"""A `file:` URI whose path holds a NUL byte (`%00`) names no file: the document
works in memory (hover, diagnostics, the translation, the encoding, runs without files), and the
file-based features say there is no file instead of failing or falling back to the folder the
path seems to be in (a run read `--arg` files from `/tmp` for `file:///tmp/a%00b.wave`)."""

from __future__ import annotations

import pytest
from lsprotocol import types as t

from .conftest import ONE_PRESET, diagnostics
from .test_portability import execute

pytestmark = [pytest.mark.asyncio(loop_scope="module"), ONE_PRESET,
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

TEXT = (".kernel k\n; wave-lsp run: --grid 1,1,1 --arg 0:in.bin --dump-u32 0:1\n"
        "; wave-lsp run: --grid 1,1,1\n.registers 4\n    halt\n.end\n")


async def test_a_document_with_a_nul_in_its_path_works_in_memory(client, tmp_path):
    (tmp_path / "in.bin").write_bytes(b"\5\0\0\0")
    uri = (tmp_path / "a").as_uri() + "%00b.wave"
    logged = len(client.log_messages)
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=TEXT)))
    await diagnostics(client, uri)           # published
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=0, character=9)))
    assert "kernel `k`" in hover.contents.value
    emitted = await execute(client, "wave-lsp.emit", uri, "metal")
    assert "kernel void" in emitted["text"]
    assert "halt" in (await execute(client, "wave-lsp.encoding", uri))["text"]
    plain = await execute(client, "wave-lsp.run", uri, "k", 2)
    assert plain["ok"] is True, plain
    with_file = await execute(client, "wave-lsp.run", uri, "k", 1)
    assert with_file["ok"] is False and "no folder to read files from" in with_file["message"] \
        and "NUL" in with_file["message"], with_file
    assembled = await execute(client, "wave-lsp.assemble", uri)
    assert assembled["path"] is None and "NUL byte" in assembled["not_written"]
    tested = await execute(client, "wave-lsp.test", uri, None)
    assert tested["uri"] == uri
    failures = [m.message for m in client.log_messages[logged:] if "failed" in m.message]
    assert not failures, failures
