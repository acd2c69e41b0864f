"""Static verification through the real server: "Verify" on each kernel, the verdict in
the lens after `wave-lsp.verify`, a witness as an R031/R032 error with the other access as
related information, "▶ Replay witness" (`wave-lsp.replayWitness`), and an edit hiding it all."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types as t

from .conftest import ONE_PRESET, diagnostics, open_document, pulls

pytestmark = [pytest.mark.asyncio(loop_scope="module"), ONE_PRESET,
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

CORPUS = Path(__file__).resolve().parents[1] / "verify" / "corpus"


def ident(uri: str) -> t.TextDocumentIdentifier:
    return t.TextDocumentIdentifier(uri=uri)


async def lenses(client, uri):
    return await client.text_document_code_lens_async(t.CodeLensParams(text_document=ident(uri)))


async def with_code(client, uri: str, code: str) -> list[t.Diagnostic]:
    """The diagnostics of `code`: pulled, or the first publication that has one."""
    if pulls(client):
        return [d for d in await diagnostics(client, uri) if d.code == code]
    params = await client.protocol.publication(
        uri, lambda p: any(d.code == code for d in p.diagnostics))
    return [d for d in params.diagnostics if d.code == code]


async def execute(client, command, *arguments):
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command=command, arguments=list(arguments)))


async def test_verify_lens_race_diagnostic_and_replay(client):
    text = (CORPUS / "missing_barrier.wave").read_text()
    uri = open_document(client, text, "verify_race")
    found = await lenses(client, uri)
    verify = [l for l in found if l.command.title == "Verify"]
    assert len(verify) == 1 and verify[0].range.start.line == 3
    assert list(verify[0].command.arguments) == [uri, "missing_barrier"]
    result = await execute(client, verify[0].command.command, *verify[0].command.arguments)
    assert result["verdict"] == "race" and result["uri"] == uri
    assert sorted(result["witness"]["lines"]) == [11, 13]
    assert result["witness"]["replayed"] is True
    titles = [l.command.title for l in await lenses(client, uri)]
    assert any(title.startswith("✕ race: line 1") for title in titles), titles
    assert "▶ Replay witness" in titles
    found = await with_code(client, uri, "R031")
    assert len(found) == 1 and found[0].range.start.line in (10, 12)
    assert found[0].severity == t.DiagnosticSeverity.Error
    related = found[0].related_information
    assert related and sorted(r.location.range.start.line for r in related) == [10, 12]
    replayed = await execute(client, "wave-lsp.replayWitness", uri, "missing_barrier")
    assert replayed["shown"] is True and "data race" in replayed["message"]
    assert "--workgroup 64,1,1" in replayed["launch"]
    # an edit hides the verdict; once it settles, the kernel is verified again (now race-free)
    fixed = text.replace("    iadd    r3, r2, r1\n", "    barrier\n    iadd    r3, r2, r1\n")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=fixed)]))
    titles = [l.command.title for l in await lenses(client, uri)]
    assert "▶ Replay witness" not in titles
    for _ in range(100):
        titles = [l.command.title for l in await lenses(client, uri)]
        if any(title.startswith("✓ race-free") for title in titles):
            break
        await asyncio.sleep(0.1)
    assert any(title.startswith("✓ race-free (proved") for title in titles), titles
    latest = [p for p in client.protocol.publications if p.uri == uri][-1]
    assert not [d for d in latest.diagnostics if d.code == "R031"]
    refused = await execute(client, "wave-lsp.replayWitness", uri, "missing_barrier")
    assert refused["ok"] is False and "no witness" in refused["message"]


async def test_verify_proved_and_divergence(client):
    uri = open_document(client, (CORPUS / "tree_reduction.wave").read_text(), "verify_ok")
    result = await execute(client, "wave-lsp.verify", uri, "tree_reduction")
    assert result["verdict"] == "proved" and result["witness"] is None
    titles = [l.command.title for l in await lenses(client, uri)]
    assert any(title.startswith("✓ race-free (proved, ") for title in titles), titles
    uri = open_document(client, (CORPUS / "divergent_barrier_if.wave").read_text(), "verify_div")
    result = await execute(client, "wave-lsp.verify", uri, "divergent_barrier_if")
    assert result["verdict"] == "divergence"
    found = await with_code(client, uri, "R032")
    assert len(found) == 1 and found[0].range.start.line == 10


async def test_verify_refuses_an_unknown_kernel(client):
    uri = open_document(client, (CORPUS / "with_barrier.wave").read_text(), "verify_none")
    refused = await execute(client, "wave-lsp.verify", uri, "nope")
    assert refused["ok"] is False and refused["message"]
