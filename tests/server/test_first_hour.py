"""How diagnostics reach the client, and the server's smaller first-hour
fixes: run results pushed to a client that cannot be asked to pull again (Neovim
0.11), pull offered only with its refresh, `diagnostics.mode` from the settings applied live,
`wave-lsp/runsChanged` for clients without code-lens refresh, one diagnostic per syntax error
under live runs, and mnemonic completion ordered by the typed prefix."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from run_kernels import OUT_OF_BOUNDS, STORE, AFTER, THIRDS

from .lspclient import edits_of
from .conftest import PRESETS, SERVER, open_document, pulls
from .test_run_results import eventually

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

# the run-time error at the store, the lines after it greyed as not executed
EXPECTED = [("R001", STORE), ("R006", AFTER), ("R006", AFTER + 1)]


def pulling_client_capabilities() -> t.ClientCapabilities:
    """VS Code of today: the preset (1.65) plus pulled diagnostics and their refresh."""
    caps = client_capabilities("visual-studio-code")
    caps.text_document.diagnostic = t.DiagnosticClientCapabilities(
        dynamic_registration=True, related_document_support=False)
    caps.workspace.diagnostics = t.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


def _record(client: LanguageClient) -> None:
    client.runs_changed = []     # (pytest-lsp counts diagnostic refreshes itself)
    for method, seen in ((t.WORKSPACE_CODE_LENS_REFRESH, []),
                         (t.WORKSPACE_INLAY_HINT_REFRESH, [])):
        if method not in client.protocol.fm.features:
            client.feature(method)(lambda params, seen=seen: seen.append(params))
    client.feature("wave-lsp/runsChanged")(lambda params: client.runs_changed.append(params))


@pytest_lsp.fixture(params=PRESETS, config=SERVER, scope="module")
async def client(request, lsp_client: LanguageClient):
    _record(lsp_client)
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(request.param),
        initialization_options={"diagnostics": {"debounceMs": 5, "mode": "pull"},
                                "run": {"live": True}}))
    lsp_client.preset = request.param
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def puller(lsp_client: LanguageClient):
    _record(lsp_client)
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=pulling_client_capabilities(),
        initialization_options={"diagnostics": {"debounceMs": 5}}))
    lsp_client.preset = "visual-studio-code"
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


async def run(client, uri: str, kernel: str) -> dict:
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.run", arguments=[uri, kernel, None]))


def codes(diagnostics) -> list[tuple[str, int]]:
    return sorted((d.code, d.range.start.line) for d in diagnostics)


async def pulled(client, uri: str) -> list[t.Diagnostic]:
    report = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
        text_document=t.TextDocumentIdentifier(uri=uri)))
    return list(report.items)


# ---- every client gets every diagnostic -------------------------------------------------
async def test_neither_preset_can_refresh_pulls_so_run_errors_are_pushed(client):
    # Neovim 0.11 declares pull but no refresh; the VS Code 1.65 preset neither: both get
    # push, although the initialization options ask for "pull"
    assert not pulls(client)
    uri = open_document(client, OUT_OF_BOUNDS)
    mark = client.protocol.mark()
    result = await run(client, uri, "oob")
    assert result["status"] == "error"
    published = await client.protocol.publication(
        uri, lambda p: any(d.code == "R001" for d in p.diagnostics), after=mark)
    assert set(EXPECTED) <= set(codes(published.diagnostics))
    assert ("R006", STORE) not in codes(published.diagnostics)   # it ran, into its error
    greyed = [d for d in published.diagnostics if d.code == "R006"]
    assert greyed and all(list(d.tags) == [t.DiagnosticTag.Unnecessary] for d in greyed)
    assert any("'pull' needs a client that supports pulled diagnostics and their refresh"
               in m.message for m in client.log_messages)


async def test_clients_without_lens_refresh_are_told_when_runs_change(client):
    uri = open_document(client, OUT_OF_BOUNDS)
    before = len(client.runs_changed)
    await run(client, uri, "oob")
    lens_refresh = client.capabilities.workspace.code_lens
    if lens_refresh and lens_refresh.refresh_support:      # VS Code: asked to refresh instead
        await asyncio.sleep(0.3)
        assert len(client.runs_changed) == before
    else:                                                   # Neovim 0.11
        await eventually(lambda: _true(len(client.runs_changed) > before))
        assert client.runs_changed[-1].uri == uri


async def _true(value):
    return value


async def test_pull_is_offered_with_its_refresh_and_run_errors_refresh_it(puller):
    assert pulls(puller)
    uri = open_document(puller, OUT_OF_BOUNDS)
    assert await pulled(puller, uri) == []
    before = puller.diagnostic_refresh_count
    await run(puller, uri, "oob")
    await eventually(lambda: _true(puller.diagnostic_refresh_count > before))
    assert set(EXPECTED) <= set(codes(await pulled(puller, uri)))


async def test_diagnostics_mode_from_settings_switches_live(puller):
    uri = open_document(puller, OUT_OF_BOUNDS)
    await run(puller, uri, "oob")
    expected = await eventually(lambda: _pulled_codes(puller, uri))
    assert set(EXPECTED) <= set(expected)

    # the README's form: `settings = { wave = { diagnostics = { mode = 'push' } } }`
    mark = puller.protocol.mark()
    puller.set_configuration({"diagnostics": {"mode": "push", "debounceMs": 5}}, section="wave")
    puller.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    published = await puller.protocol.publication(uri, lambda p: bool(p.diagnostics), after=mark)
    assert codes(published.diagnostics) == expected
    assert await pulled(puller, uri) == []          # never twice

    mark = puller.protocol.mark()
    puller.set_configuration({"diagnostics": {"mode": "pull", "debounceMs": 5}}, section="wave")
    puller.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await puller.protocol.publication(uri, lambda p: not p.diagnostics, after=mark)
    await asyncio.sleep(0.5)            # the re-run under the new settings ends meanwhile
    last = [p for p in puller.protocol.publications[mark:] if p.uri == uri][-1]
    assert list(last.diagnostics) == []     # the pushed copy is taken back, and stays so
    await eventually(lambda: _codes_pulled(puller, uri, expected))


async def _codes_pulled(client, uri, expected) -> bool:
    return codes(await pulled(client, uri)) == expected


async def _pulled_codes(client, uri) -> list | None:
    found = codes(await pulled(client, uri))
    return found if any(code == "R001" for code, _ in found) else None


# ---- one diagnostic per syntax error under live runs ------------------------------------
BROKEN = """; wave-lsp run: --grid 1,1,1
.kernel live
.registers 4
.workgroup_size 4, 1, 1
    mov_sr  r0, sr_thread_id_x
    iadd    r1, r0, r0
    halt
.end
"""


async def test_a_syntax_error_is_reported_once_on_its_line_under_live_runs(client):
    uri = open_document(client, BROKEN)
    ok = await client.protocol.publication(uri, lambda p: not p.diagnostics)
    assert ok.version == 1
    mark = client.protocol.mark()
    edits = [(4, "mov_sr  r0", "mov_sr  r0,"), (5, "iadd    r1", "iaddd   r1")]
    for version, (line, old, new) in enumerate(edits, 2):
        col = BROKEN.split("\n")[line].index(old)
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[t.TextDocumentContentChangePartial(
                range=t.Range(start=t.Position(line=line, character=col),
                              end=t.Position(line=line, character=col + len(old))),
                text=new)]))
    last = await client.protocol.publication(uri, lambda p: p.version == 3, after=mark)
    await asyncio.sleep(0.5)    # the live re-run of version 3 ends and is published again
    published = [p for p in client.protocol.publications[mark:] if p.uri == uri]
    last = published[-1]
    lines = sorted(d.range.start.line for d in last.diagnostics)
    assert lines == [4, 5], [(d.code, d.range.start.line, d.message) for d in last.diagnostics]
    assert all(d.code != "R005" for d in last.diagnostics)


# ---- completion puts what starts with the typed word first ------------------------------
async def test_mnemonic_completion_orders_prefix_matches_first(client):
    text = ".kernel k\n.registers 4\n    wave_re\n    halt\n.end\n"
    uri = open_document(client, text)
    got = await client.text_document_completion_async(t.CompletionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=2, character=11)))
    ordered = [item.label for item in sorted(got.items, key=lambda i: i.sort_text)]
    assert ordered == [item.label for item in got.items]       # the answer's order too
    from wave_lsp.isa import INSTRUCTIONS
    prefixed = sorted(m for m in INSTRUCTIONS if m.startswith("wave_re"))
    containing = sorted(m for m in INSTRUCTIONS if "wave_re" in m and m not in prefixed)
    rest = sorted(m for m in INSTRUCTIONS if "wave_re" not in m)
    assert prefixed == ["wave_reduce_add", "wave_reduce_max", "wave_reduce_min"]
    assert ordered == prefixed + containing + rest
    assert got.is_incomplete        # the order depends on the word: asked again as it grows


# ---- a cancel for a request already answered is routine, not a warning ----------------
async def test_cancel_of_an_answered_request_is_not_logged_as_a_warning(tmp_path):
    from .rawclient import RawClient
    raw = RawClient(tmp_path / "cache", args=("--log-level", "INFO"))
    try:
        raw.initialize()
        raw.request(1, "workspace/symbol", {"query": ""})
        raw.response(1)
        for msg_id in (1, 77, "gone"):      # answered, and never sent
            raw.notify("$/cancelRequest", {"id": msg_id})
        raw.request(2, "shutdown")          # after the cancels were read
        raw.response(2)
        raw.notify("exit")
        assert raw.wait() == 0
    finally:
        raw.close()
    assert "Cancel notification" not in raw.stderr and "cancel notification" not in raw.stderr
    assert "INFO" in raw.stderr         # the log itself is there at this level


# ---- by default the inlay hints are the run values, each short and alone --------------


async def test_default_inlay_hints_are_the_run_values_alone(client):
    uri = open_document(client, THIRDS)
    whole = t.Range(start=t.Position(line=0, character=0), end=t.Position(line=99, character=0))
    params = t.InlayHintParams(text_document=t.TextDocumentIdentifier(uri=uri), range=whole)
    await run(client, uri, "k")
    got = await client.text_document_inlay_hint_async(params)
    assert [(h.position.line, h.label) for h in got] == [
        (3, "r0 = 0, 1, 2 … 63"), (4, "r1 = 0.0, 1.0, 2.0 … 63.0"), (5, "r2 = 3.0 (all lanes)"),
        (6, "r3 = 0.0, 0.33333334, 0.6666667 … 21.0"),
        (7, "r4 = 0.0, 0.11111112, 0.44444448 … 441.0")]
    assert all(h.position.character == len(THIRDS.split("\n")[h.position.line]) for h in got)


# ---- local memory without .local_memory ------------------------------------------------
SHARED = """.kernel share
.registers 8
.workgroup_size 64, 1, 1
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 4
    imul    r2, r0, r1
    local_store_u32 r2, r0
    barrier
    local_load_u32 r3, r2
    halt
.end
"""


async def test_undeclared_local_memory_is_reported_fixed_and_summarised(client):
    from .conftest import diagnostics
    uri = open_document(client, SHARED)
    found = [d for d in await diagnostics(client, uri) if d.code == "U510"]
    assert [(d.range.start.line, d.severity) for d in found] == [
        (6, t.DiagnosticSeverity.Warning)]
    assert "its accesses reach 256 bytes" in found[0].message
    resources = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.kernelResources", arguments=[uri, "share"]))
    assert resources["localMemory"] == 0 and resources["localMemoryDeclared"] is False
    assert resources["usesLocalMemory"] is True and resources["localMemoryNeeded"] == 256

    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=found[0].range,
        context=t.CodeActionContext(diagnostics=found)))
    fix = [a for a in actions if a.title == "Declare .local_memory 256"]
    assert len(fix) == 1 and fix[0].kind == t.CodeActionKind.QuickFix
    (edit,) = edits_of(fix[0].edit, uri)
    assert (edit.range.start.line, edit.range.start.character, edit.new_text) == \
        (2, 0, ".local_memory 256\n")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(range=edit.range,
                                                            text=edit.new_text)]))
    assert [d for d in await diagnostics(client, uri, version=2) if d.code == "U510"] == []
    resources = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.kernelResources", arguments=[uri, "share"]))
    assert resources["localMemory"] == 256 and resources["localMemoryDeclared"] is True


# ---- portability never gates; the hover reads a loaded float as a float -------
F64_AND_FLOATS = """; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --fill-iota 0:f32:4:1
.kernel mixed
.registers 8
    mov_sr  r0, sr_thread_id_x
    mov_imm r2, 4
    imul    r1, r0, r2
    device_load_u32 r3, r1
    cvt_f64_f32 r4, r3
    dadd    r4, r4, r4
    halt
.end
"""


async def test_f64_assembles_and_runs_and_a_loaded_float_hovers_as_a_float(client):
    from .conftest import diagnostics
    uri = open_document(client, F64_AND_FLOATS)
    p801 = [d for d in await diagnostics(client, uri) if d.code == "P801"]
    assert p801 and all(d.severity == t.DiagnosticSeverity.Warning for d in p801)
    assembled = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.assemble", arguments=[uri]))
    assert assembled["size"] > 0 and "error" not in assembled
    result = await run(client, uri, "mixed")
    assert result["status"] == "ok"
    load = 6
    assert [line["label"] for line in result["lines"] if line["line"] == load] == [
        "r3 = 0.0, 1.0, 2.0, 3.0"]
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        position=t.Position(line=load, character=F64_AND_FLOATS.split("\n")[load].index("r3"))))
    rows = [row for row in hover.contents.value.split("\n") if row.startswith("| ")][1:]
    assert [row.split("|")[5].strip().rstrip(" ←") for row in rows] == [
        "0.0", "1.0", "2.0", "3.0"]
