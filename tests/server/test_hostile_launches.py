"""Hostile documents through the real server: a launch line never reads a file
outside the document's root, nor any file before it runs, nor the same file twice; several
changes in one `didChange` keep the diagnostics exact; a register count beyond the ISA's is one
clear error in Show HIP; an untrusted workspace never runs a kernel."""

from __future__ import annotations

import os

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from .conftest import PRESETS, SERVER, VS_CODE, diagnostics, open_document
from .test_run_results import _watch_refreshes, current_diagnostics, eventually, run

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

SECRET = b"TOP-SECRET-0123456789abcdef"
KERNEL = (".kernel k\n; wave-lsp run: --workgroup 4,1,1 --device-memory 64 {flags}\n"
          ".registers 8\n    mov_sr r0, sr_lane_id\n    halt\n.end\n")


@pytest_lsp.fixture(params=VS_CODE, config=SERVER, scope="module")
async def client(request, lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(request.param),
        initialization_options={"diagnostics": {"debounceMs": 5}}))
    lsp_client.preset = request.param
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


def open_file(client, path, text: str) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))
    return uri


def secret_in(result) -> bool:
    return SECRET.hex() in str(result).lower() or SECRET.decode() in str(result) \
        or str(list(SECRET[:4])) in str(result)


@pytest.fixture
def folders(tmp_path):
    (tmp_path / "secret.txt").write_bytes(SECRET)
    work = tmp_path / "work"
    work.mkdir()
    return tmp_path, work


@pytest.mark.parametrize("name", ["../secret.txt", "{secret}", "/proc/self/environ",
                                  "sub/../../secret.txt"])
async def test_an_arg_outside_the_folder_is_r004_on_the_flag(client, folders, name):
    top, work = folders
    name = name.format(secret=top / "secret.txt")
    text = KERNEL.format(flags=f"--arg 0:{name} --dump-u32 0:4")
    uri = open_file(client, work / "k.wave", text)

    async def refused():
        return [d for d in await current_diagnostics(client, uri) if d.code == "R004"]
    found = (await eventually(refused))[0]
    column = text.split("\n")[1].index("--arg")
    assert (found.range.start.line, found.range.start.character) == (1, column)
    assert "inside" in found.message
    result = await run(client, uri, "k", 1)
    assert result["status"] == "invalid" and not secret_in(result)


async def test_a_link_leaving_the_folder_is_refused_when_it_runs(client, folders):
    top, work = folders
    os.symlink(top / "secret.txt", work / "data.bin")
    uri = open_file(client, work / "k.wave", KERNEL.format(flags="--arg 0:data.bin --dump-u32 0:4"))
    result = await run(client, uri, "k", 1)
    assert result["status"] == "failed" and "outside" in result["message"]
    assert not secret_in(result)


async def test_opening_never_touches_an_arg_file(client, folders):
    _, work = folders
    os.mkfifo(work / "pipe.bin")            # reading it would be an error on open
    uri = open_file(client, work / "k.wave", KERNEL.format(flags="--arg 0:pipe.bin"))
    await diagnostics(client, uri)
    assert not [d for d in await current_diagnostics(client, uri) if d.code == "R004"]
    result = await run(client, uri, "k", 1)
    assert result["status"] == "failed" and "pipe.bin" in result["message"]


async def test_a_file_inside_the_folder_is_copied_in(client, folders):
    _, work = folders
    (work / "sub").mkdir()
    (work / "sub" / "in.bin").write_bytes(bytes([7, 0, 0, 0, 9, 0, 0, 0]))
    flags = " ".join(["--arg 0:sub/in.bin"] * 10) + " --dump-u32 0:2"
    uri = open_file(client, work / "k.wave", KERNEL.format(flags=flags))
    result = await run(client, uri, "k", 1)
    assert result["status"] == "ok", result["message"]
    assert result["dumps"][0]["values"] == ["7", "9"]


async def test_several_changes_in_one_notification(client):
    text = (".kernel k\n.registers 8\n    mov_sr r0, sr_lane_id\n    nop\n    nop\n"
            "    nop\n    halt\n.end\n")
    uri = open_document(client, text, "multi")
    await diagnostics(client, uri)
    bad = "    mov_imm r1, 1.5"            # U504, at line 5 before the second change
    changes = [(5, 0, 5, 0, bad + "\n"), (2, 0, 2, 0, "    nop\n    nop\n    nop\n")]
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=a, character=b),
                          end=t.Position(line=c, character=d)), text=new)
            for a, b, c, d, new in changes]))
    lines = text.split("\n")
    lines.insert(5, bad)
    lines[2:2] = ["    nop"] * 3
    fresh = open_document(client, "\n".join(lines), "multi_fresh")
    want = [(d.code, d.range.start.line) for d in await diagnostics(client, fresh)]
    assert ("U504", 8) in want

    async def same():
        got = [(d.code, d.range.start.line) for d in await diagnostics(client, uri, 2)]
        return got == want or None
    await eventually(same, timeout=5)


async def test_show_hip_names_the_register_limit(client):
    uri = open_document(client, ".kernel k\n.registers 2584243001\n    halt\n.end\n", "regs")
    result = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.emit", arguments=[uri, "hip"]))
    assert result["error"] == "kernel 'k': the register count must be 1-256, got 2584243001"


async def _untrusted_session(lsp_client: LanguageClient, trust) -> None:
    _watch_refreshes(lsp_client)
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(PRESETS[0]),
        initialization_options={"workspaceTrusted": trust, "run": {"live": True}}))
    lsp_client.preset = PRESETS[0]
    lsp_client.server_capabilities = result.capabilities


# Trust is JSON `true` alone: every other value a client (or a hostile wrapper) sends is untrusted
@pytest_lsp.fixture(params=[False, "false", 0, None, "no", [], "true", 1], config=SERVER,
                    scope="module", ids=repr)
async def untrusted(request, lsp_client: LanguageClient):
    await _untrusted_session(lsp_client, request.param)
    yield
    await lsp_client.shutdown_session()


# The one untrusted server of the other kinds' modules (kernel tests, profiles): the option is
# read in one place (`job_feature`) into the one gate every kind asks (`ide.jobs`), and every
# value above goes through it here, so they need not start a server for each value again.
@pytest_lsp.fixture(config=SERVER, scope="module")
async def untrusted_once(lsp_client: LanguageClient):
    await _untrusted_session(lsp_client, False)
    yield
    await lsp_client.shutdown_session()


async def test_an_untrusted_workspace_never_runs(untrusted, folders):
    _, work = folders
    (work / "in.bin").write_bytes(b"\1\0\0\0")
    uri = open_file(untrusted, work / "k.wave", KERNEL.format(flags="--arg 0:in.bin"))
    result = await run(untrusted, uri, "k", 1)
    assert result["status"] == "invalid-request" and "untrusted" in result["message"]
    assert not untrusted.messages or "invalid setting" not in untrusted.messages[0].message


async def test_check_portability_confines_arg_files_too(client, folders):
    _, work = folders
    uri = open_file(client, work / "k.wave", KERNEL.format(flags="--arg 0:../secret.txt"))
    result = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.checkPortability", arguments=[uri, "k"]))
    assert result["status"] == "invalid-request" and "leaves" in result["message"]
    assert any("leaves" in m.message and "cannot run" in m.message
               for m in client.messages), [m.message for m in client.messages][-3:]
