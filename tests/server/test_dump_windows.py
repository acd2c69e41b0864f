"""Any part of a dump on request through the real server: `wave-lsp.dump` answers
exactly the lines `wave-lsp run` prints at any offset, refuses bad windows and stale requests
with a clear message, the hover links to it and then shows the window asked for, and a launch
dumping 64 MiB keeps the server's memory bounded, and closing the document cancels the
window's re-run."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from urllib.parse import unquote

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient

from .conftest import SERVER, VS_CODE
from .rawclient import RawClient
from .test_hostile_launches import open_file
from .test_memory import rss_mb
from .test_run_results import _watch_refreshes, run
from tests.forkserver import wave_lsp_argv

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
              pytest.mark.real_server]    # the resident size of the server's own process

FLAGS = ("--grid 16,1,1 --workgroup 256,1,1 --device-memory 65536 --dump-u32 0:4096 "
         "--dump-f32 0:5 --dump-memory 0:8200")
KERNEL = """.kernel k
; wave-lsp run: {flags}
.registers 8
    mov_sr r1, sr_workgroup_id_x
    mov_imm r2, 8
    shl r3, r1, r2
    mov_sr r0, sr_thread_id_x
    iadd r4, r3, r0
    imul r7, r4, r4
    mov_imm r5, 2
    shl r6, r4, r5
    device_store_u32 r6, r7
    halt
.end
"""
LAUNCH = 1


@pytest_lsp.fixture(params=VS_CODE, config=SERVER, scope="module")
async def client(request, lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=pytest_lsp.client_capabilities(request.param),
        initialization_options={"diagnostics": {"debounceMs": 5}}))
    lsp_client.preset = request.param
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


_cli_dumps: dict[str, dict[str, list[str]]] = {}


def cli_dumps(path: Path) -> dict[str, list[str]]:
    """`wave-lsp run`'s output for the same launch, split per dump (print order: memory, u32,
    f32); run once per text (every test and preset runs the same kernel)."""
    text = path.read_text()
    if text not in _cli_dumps:
        _cli_dumps[text] = _run_cli(path)
    return _cli_dumps[text]


def _run_cli(path: Path) -> dict[str, list[str]]:
    done = subprocess.run(wave_lsp_argv("run", str(path), *FLAGS.split()),
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert lines[0] == "Device memory 0x00000000-0x00002008:"
    rows = -(-8200 // 16)
    return {"memory": lines[1:1 + rows], "u32": lines[1 + rows:1 + rows + 4096],
            "f32": lines[1 + rows + 4096:]}


async def dump(client, *args):
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.dump", arguments=list(args)))


async def hover_text(client, uri: str) -> str:
    got = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        position=t.Position(line=LAUNCH, character=3)))
    return got.contents.value


async def ran(client, tmp_path):
    path = tmp_path / "k.wave"
    uri = open_file(client, path, KERNEL.format(flags=FLAGS))
    result = await run(client, uri, "k", LAUNCH)
    assert result["ok"], result
    return uri, cli_dumps(path)


async def test_windows_are_the_lines_the_command_line_prints(client, tmp_path):
    uri, cli = await ran(client, tmp_path)
    for index, kind, start, count in [(1, "u32", 0, 300), (1, "u32", 256, 256),
                                      (1, "u32", 1000, 4096), (1, "u32", 4090, 100),
                                      (0, "memory", 500, 50), (0, "memory", 0, 3),
                                      (2, "f32", 2, 3)]:
        got = await dump(client, uri, "k", LAUNCH, index, start, count, 1)
        want = cli[kind][start:start + count]
        assert got["ok"] and got["kind"] == kind, got
        assert got["values"] == want and got["start"] == start and got["count"] == len(want)
        assert got["total"] == len(cli[kind])
        # each line's device address (the regions start at 0): 4-byte values, 16-byte rows
        size = {"u32": 4, "f32": 4, "memory": 16}[kind]
        assert got["addresses"] == [size * (start + i) for i in range(len(want))]
    # the end of the memory dump is the partial row of 8 bytes, as upstream prints it
    assert got["values"] and cli["memory"][-1].startswith("00002000: ")
    last = await dump(client, uri, "k", None, 0, 512, 1)
    assert last["values"] == [cli["memory"][-1]]


async def test_bad_windows_and_stale_requests_are_refused(client, tmp_path):
    uri, _ = await ran(client, tmp_path)
    cases = [((uri, "k", LAUNCH, 1, -1, 10), "start -1 is outside the dump: it has 4,096 values"),
             ((uri, "k", LAUNCH, 1, 4096, 10), "start 4096 is outside the dump"),
             ((uri, "k", LAUNCH, 1, 0, 4097), "count must be 1..4,096 values, got 4,097"),
             ((uri, "k", LAUNCH, 1, 0, 0), "count must be 1..4,096"),
             ((uri, "k", LAUNCH, 0, 513, 1), "it has 513 rows"),
             ((uri, "k", LAUNCH, 3, 0, 1), "dump 3 does not exist: the launch line has 3"),
             ((uri, "k", LAUNCH, 1, "0", 1), "must be integers"),
             ((uri, "k", 5, 1, 0, 1), "no current run of kernel 'k' with the launch line 5"),
             ((uri, "nope", LAUNCH, 1, 0, 1), "no current run of kernel 'nope'"),
             ((uri + "x", "k", LAUNCH, 1, 0, 1), "not an open WAVE document"),
             ((uri, "k", LAUNCH, 1, 0, 1, 7), "the document changed since this dump was shown")]
    for args, message in cases:
        got = await dump(client, *args)
        assert got["ok"] is False and message in got["message"], (args, got)
    # after an edit, the run of the old revision gives no values at all
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=8, character=13),
                          end=t.Position(line=8, character=14)), text="5")]))
    got = await dump(client, uri, "k", LAUNCH, 1, 0, 4, 1)
    assert got["ok"] is False and "changed since this dump was shown" in got["message"]
    got = await dump(client, uri, "k", LAUNCH, 1, 0, 4)
    # the edit's own run may already have ended (the debounce is 30 ms): then its values, of the
    # new version, are what a window shows; the old revision's run never is
    if got.get("ok") is False:
        assert "no current run" in got["message"] or "cannot run" in got["message"], got
    else:
        assert got["version"] == 2, got


async def test_the_hover_links_to_the_next_values_and_then_shows_them(client, tmp_path):
    uri, cli = await ran(client, tmp_path)
    text = await hover_text(client, uri)
    assert "4096 × u32 at 0x0 (values 0..255 of 4,096; 3,840 more after these)" in text
    assert "\n".join(cli["u32"][:256]) in text
    assert "the command line prints them all" in text
    links = [part.split(")")[0] for part in text.split("(command:wave-lsp.dump?")[1:]]
    args = [json.loads(unquote(link)) for link in links]
    # next and last of the memory dump (513 rows), next and last of the u32 dump; f32 is whole
    assert args == [[uri, "k", LAUNCH, 0, 256, 256, 1], [uri, "k", LAUNCH, 0, 257, 256, 1],
                    [uri, "k", LAUNCH, 1, 256, 256, 1], [uri, "k", LAUNCH, 1, 3840, 256, 1]]
    got = await dump(client, *args[2])        # what clicking "next 256 values" does
    assert got["values"] == cli["u32"][256:512]
    text = await hover_text(client, uri)
    assert "(values 256..511 of 4,096; 3,584 more after these)" in text and "\n".join(cli["u32"][256:512]) in text
    assert "[previous 256 values](command:wave-lsp.dump?" in text
    assert "\n".join(cli["u32"][:256]) not in text


def peak_mb(pid: int) -> float:
    """The process's highest resident size so far (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


@pytest.mark.filterwarnings("ignore::pytest.PytestWarning")
def test_a_dump_of_64_mib_keeps_the_server_small(tmp_path):
    """The launch dumps 16 Mi values (the whole 64 MiB of device memory): the server keeps 256
    of them, answers windows of them, and its resident size stays far below the dump's text
    (about 150 MB)."""
    raw = RawClient(tmp_path / "cache", env={"MALLOC_MMAP_THRESHOLD_": str(128 * 1024)})
    try:
        raw.initialize()
        path = tmp_path / "big.wave"
        text = (".kernel k\n; wave-lsp run: --workgroup 1,1,1 --device-memory 67108864 "
                "--fill-iota 0:f32:16777216 --dump-f32 0:16777216\n.registers 4\n    halt\n.end\n")
        path.write_text(text)
        uri = path.as_uri()
        raw.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "wave", "version": 1, "text": text}})
        raw.request("warm", "workspace/executeCommand",
                    {"command": "wave-lsp.run", "arguments": [uri, "k", 1]})
        raw.response("warm", timeout=300)
        baseline = rss_mb(raw.proc.pid)
        started = time.monotonic()
        for n, start in enumerate([0, 5_000_000, 16_777_216 - 4096]):
            raw.request(f"d{n}", "workspace/executeCommand",
                        {"command": "wave-lsp.dump", "arguments": [uri, "k", 1, 0, start, 4096]})
            got = raw.response(f"d{n}", timeout=300)["result"]
            assert got.get("values") == [f"{v}.0" for v in range(start, start + 4096)], got.get("message")
        after = rss_mb(raw.proc.pid)
        peak = peak_mb(raw.proc.pid)
        print(f"RSS MB: after the run {baseline:.0f}, after 3 windows {after:.0f}, peak "
              f"{peak:.0f}; {time.monotonic() - started:.1f} s")
        assert after - baseline < 40, (baseline, after)
        # the emulator's 64 MiB device memory while it runs, never the dump's ~150 MB of text
        assert peak < baseline + 200, (baseline, peak)
    finally:
        raw.close()


@pytest.mark.filterwarnings("ignore::pytest.PytestWarning")
def test_closing_the_document_stops_a_window_being_read(tmp_path):
    """The window's re-run is cancelled like any run: closing the document answers at once,
    with a message and no values (the first run ends at the 4 s time limit)."""
    from .test_runaway_runs import answer, open_doc, start
    client = start(tmp_path, {"run": {"maxInstructions": 0, "timeLimitMs": 4000}})
    uri = "file:///tmp/wave-lsp-tests/spin-dump.wave"
    try:
        open_doc(client, uri, ".kernel k\n; wave-lsp run: --grid 4294967295,1,1 "
                              "--max-instructions 0 --dump-u32 0:1000\n.registers 4\n"
                              "    mov_sr r0, sr_lane_id\n    halt\n.end\n")
        client.request(1, "workspace/executeCommand",
                       {"command": "wave-lsp.run", "arguments": [uri, "k", 1]})
        assert answer(client, 1, timeout=60)["result"]["status"] == "error"   # time limit
        client.request(2, "workspace/executeCommand",
                       {"command": "wave-lsp.dump", "arguments": [uri, "k", 1, 0, 300, 10]})
        time.sleep(0.5)
        asked = time.monotonic()
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        got = answer(client, 2, timeout=60)["result"]
        assert got["ok"] is False and "cancelled" in got["message"], got
        assert time.monotonic() - asked < 2.5
    finally:
        client.close()
