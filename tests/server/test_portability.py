"""The portability features through the real server: the "Check portability" lens and command
(results inline at the store lines, gone after an edit), the `targets` setting (lints and the
occupancy lens), and `wave-lsp.emit` for the backend previews."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as t

import test_wave_widths

from .conftest import diagnostics, example, open_document

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

WAVE_SUM = "; wave-lsp run: --device-memory 1024\n" + test_wave_widths.WAVE_SUM
ATOMIC_SUM = test_wave_widths.ATOMIC_SUM


def ident(uri: str) -> t.TextDocumentIdentifier:
    return t.TextDocumentIdentifier(uri=uri)


def count_refreshes(client) -> list:
    """Answer the server's `workspace/codeLens/refresh` (VS Code supports it), counting them."""
    if not hasattr(client, "lens_refreshes"):
        client.lens_refreshes = []

        @client.feature(t.WORKSPACE_CODE_LENS_REFRESH)
        def refresh(params):
            client.lens_refreshes.append(params)
            return None

    return client.lens_refreshes


def resource_tooltip(found) -> str:
    """The full resource table of the kernel line's resource lens."""
    return next(l.command.tooltip for l in found if l.command.command == "wave-lsp.kernelResources")


async def lenses(client, uri):
    return await client.text_document_code_lens_async(t.CodeLensParams(text_document=ident(uri)))


async def execute(client, command, *arguments):
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command=command, arguments=list(arguments)))


async def configure(client, settings: dict) -> None:
    client.set_configuration(settings, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)


async def test_check_portability_lens_and_inline_results(client):
    refreshes = count_refreshes(client)
    uri = open_document(client, WAVE_SUM, "wave_sum")
    found = await lenses(client, uri)
    check = [l for l in found if l.command.title == "Check portability"]
    assert len(check) == 1 and check[0].range.start.line == 1
    assert list(check[0].command.arguments) == [uri, "wave_sum"]
    result = await execute(client, check[0].command.command, *check[0].command.arguments)
    assert result["portable"] is False and result["widths"] == [8, 16, 32, 64]
    assert [entry["line"] for entry in result["lines"]] == [8]
    assert len(result["differences"]) == 64
    assert any("differ between" in m.message for m in client.messages)
    if client.preset == "visual-studio-code":
        assert refreshes   # the editor is told to ask for the lenses again
    inline = [l for l in await lenses(client, uri) if l.command.title.startswith("⚠")]
    assert len(inline) == 1 and inline[0].range.start.line == 8
    assert "W8=0x1c" in inline[0].command.title and "W64=0x7e0" in inline[0].command.title
    # an edit makes the results stale: they go away until the next check
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=5, character=15),
                          end=t.Position(line=5, character=16)), text="8")]))
    await asyncio.sleep(0.1)
    assert not [l for l in await lenses(client, uri) if l.command.title.startswith("⚠")]


async def test_closing_a_document_drops_its_portability_results(client):
    """The results live on the document's state: after didClose and a new
    didOpen of the same text at the same URI, no stale "⚠" lens comes back."""
    count_refreshes(client)
    uri = open_document(client, WAVE_SUM, "closed_check")
    result = await execute(client, "wave-lsp.checkPortability", uri, "wave_sum")
    assert result["portable"] is False
    assert [l for l in await lenses(client, uri) if l.command.title.startswith("⚠")]
    client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=ident(uri)))
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=WAVE_SUM)))
    found = await lenses(client, uri)
    assert [l.command.title for l in found].count("Check portability") == 1
    assert not [l for l in found if l.command.title.startswith("⚠")]


async def test_portable_kernel_passes_the_check(client):
    count_refreshes(client)
    uri = open_document(client, ATOMIC_SUM, "atomic_sum")
    result = await execute(client, "wave-lsp.checkPortability", uri, "atomic_sum")
    assert result["portable"] is True and result["differences"] == [] and result["lines"] == []
    assert not [l for l in await lenses(client, uri) if l.command.title.startswith("⚠")]


def refused(result, *words: str) -> bool:
    """A refusal as `wave-lsp.run` answers one: status invalid-request, the reason in it."""
    return result["status"] == "invalid-request" and result["ok"] is False and \
        all(word in result["message"] for word in words)


async def test_check_portability_bad_arguments(client):
    uri = open_document(client, ATOMIC_SUM, "bad_args")
    assert refused(await execute(client, "wave-lsp.checkPortability", uri, "nope"),
                   "no kernel 'nope'")
    assert refused(await execute(client, "wave-lsp.checkPortability"), "no kernel None")
    bad = open_document(client, "; wave-lsp run: --grid 0,1,1\n" + ATOMIC_SUM, "bad_launch")
    assert refused(await execute(client, "wave-lsp.checkPortability", bad, "atomic_sum"),
                   "cannot run kernel")
    assert any("cannot run kernel" in m.message for m in client.messages)


async def test_check_portability_answers_why_it_cannot_run(client):
    """A launch line the check cannot run is answered with the reason (it was `null`, the
    reason only in a message): here a device memory over the 4 GiB the launcher allows."""
    uri = open_document(client, ".kernel k\n; wave-lsp run: --device-memory 8589934592\n"
                                ".registers 4\n    halt\n.end\n", "too_much_memory")
    result = await execute(client, "wave-lsp.checkPortability", uri, "k")
    assert result["uri"] == uri and result["kernel"] == "k"
    assert refused(result, "cannot run kernel 'k'", "--device-memory", "8589934592")


async def test_targets_setting_drives_lints_lens_and_check(client):
    count_refreshes(client)
    text = (".kernel k\n.registers 8\n    dadd r0, r2, r4\n    mov_imm r1, 16\n"
            "    wave_shuffle_xor r2, r3, r1\n    halt\n.end\n")
    uri = open_document(client, text, "targets")
    codes = sorted(d.code for d in await diagnostics(client, uri) if str(d.code).startswith("P"))
    assert codes == ["P801", "P804"]
    title = resource_tooltip(await lenses(client, uri))
    assert "(ptx: " in title and "(hip: " in title and "(sycl: " in title
    # each architecture's own limits (the launcher chooses the workgroup: 8 registers per thread
    # leave the warp/wave/thread slots as the limit)
    assert "at most 32 of 32 warps per SM (100%)" in title                   # sm_75
    assert "at most 32 of 32 waves per CU (100%)" in title                   # gfx90a, W64
    assert "W8: workgroup size chosen at launch: at most 128 of 128 threads per Xe-core" in title
    await configure(client, {"targets": ["ptx", "metal"]})
    try:
        again = open_document(client, text, "targets_again")
        codes = [d.code for d in await diagnostics(client, again) if str(d.code).startswith("P")]
        assert codes == ["P801"]
        title = resource_tooltip(await lenses(client, again))
        assert "(ptx: " in title and "(metal: " in title and "(hip: " not in title
        assert "Apple publishes no occupancy limits" in title
        assert refused(await execute(client, "wave-lsp.checkPortability", again, "k"),
                       "only one wave width")
        assert any("only one wave width" in m.message for m in client.messages)
    finally:
        await configure(client, {})


async def test_emit_command_returns_text_and_map(client):
    text = example("vector_add")
    uri = open_document(client, text, "emit")
    for target in ("ptx", "hip", "metal", "sycl"):
        result = await execute(client, "wave-lsp.emit", uri, target)
        lines = result["text"].splitlines()
        assert result["target"] == target and lines
        mapped = {source for _generated, source in result["map"]}
        instruction_lines = {i for i, line in enumerate(text.splitlines())
                             if line.startswith("    ") and line.strip()}
        assert mapped == instruction_lines
        for generated, source in result["map"]:
            if text.splitlines()[source].strip() == "halt":
                assert lines[generated].strip() in ("ret;", "return;")
    ptx = await execute(client, "wave-lsp.emit", uri, "ptx")
    line_of_fadd = next(i for i, l in enumerate(text.splitlines()) if "fadd" in l)
    fadd = [ptx["text"].splitlines()[g] for g, s in ptx["map"] if s == line_of_fadd]
    assert "    add.f32 %f11, %f7, %f10;" in fadd


async def test_emit_command_errors(client):
    uri = open_document(client, ".kernel k\nf:\n    call f\n    halt\n.end\n", "emit_call")
    result = await execute(client, "wave-lsp.emit", uri, "hip")
    assert "call instructions" in result["error"] and "text" not in result
    broken = open_document(client, ".kernel k\n    frob r1\n    halt\n.end\n", "emit_bad")
    result = await execute(client, "wave-lsp.emit", broken, "ptx")
    assert result["line"] == 1 and "error" in result
    assert await execute(client, "wave-lsp.emit", uri, "cuda") is None
    assert await execute(client, "wave-lsp.emit", "file:///nowhere.wave", "ptx") is None
    upstream = await execute(client, "wave-lsp.emit", broken, "ptx", "upstream")
    assert "error" in upstream
