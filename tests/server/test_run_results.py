"""Inline runs end to end: the real server as Neovim and as VS Code runs kernels from a code lens
command and shows what each line did (inlay hints, hover, diagnostics, lenses), re-runs on
edits, stops runaway kernels while answering other requests, and never shows a stale run."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from run_kernels import OUT_OF_BOUNDS

from .conftest import PRESETS, SERVER, client_position, configure, open_document, pulls

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

PROJECT_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
INIT = {"diagnostics": {"debounceMs": 5}, "inlayHints": {"offsets": False, "encoding": False},
        "run": {"timeLimitMs": 1500}}


def _watch_refreshes(client: LanguageClient) -> None:
    client.refreshes = []

    @client.feature(t.WORKSPACE_INLAY_HINT_REFRESH)
    def inlay_refresh(params):
        client.refreshes.append(("inlay", time.monotonic()))

    @client.feature(t.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params):
        client.refreshes.append(("lens", time.monotonic()))


@pytest_lsp.fixture(params=PRESETS, config=SERVER, scope="module")
async def client(request, lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(request.param), initialization_options=INIT))
    lsp_client.preset = request.param
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


def ident(uri: str) -> t.TextDocumentIdentifier:
    return t.TextDocumentIdentifier(uri=uri)


async def run(client, uri: str, kernel: str | None, line: int | None = None) -> dict:
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.run", arguments=[uri, kernel, line]))


async def hints(client, uri: str) -> dict[int, str]:
    """Run-result hints by line (offset and encoding hints are switched off)."""
    got = await client.text_document_inlay_hint_async(t.InlayHintParams(
        text_document=ident(uri), range=t.Range(start=t.Position(line=0, character=0),
                                                end=t.Position(line=10_000, character=0))))
    out: dict[int, str] = {}
    for h in got or []:
        out[h.position.line] = h.label if isinstance(h.label, str) else \
            "".join(p.value for p in h.label)
    return out


async def lenses(client, uri: str) -> list[tuple[int, str, list]]:
    got = await client.text_document_code_lens_async(t.CodeLensParams(text_document=ident(uri)))
    return [(l.range.start.line, l.command.title, l.command.arguments) for l in got
            if l.command.command in ("wave-lsp.run", "wave-lsp.clear")]


async def current_diagnostics(client, uri: str) -> list[t.Diagnostic]:
    if pulls(client):
        report = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
            text_document=ident(uri)))
        return list(report.items)
    return list(client.diagnostics.get(uri, []))


async def eventually(probe, timeout: float = 30.0, every: float = 0.02):
    """Call `probe()` until it returns something truthy; return that."""
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if value:
            return value
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(every)


def change(client, uri: str, version: int, line: int, old: str, new: str, text: str) -> str:
    """Replace the first `old` on `line` by `new` (an incremental edit); returns the new text."""
    lines = text.split("\n")
    col = lines[line].index(old)
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=line, character=col),
                          end=t.Position(line=line, character=col + len(old))), text=new)]))
    lines[line] = lines[line][:col] + new + lines[line][col + len(old):]
    return "\n".join(lines)


def line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.split("\n")) if fragment in line)


# ---- the project's examples --------------------------------------------------------------------
def with_launch_line(path: Path) -> tuple[str, list[str]]:
    """The example with its documented launch as a launch line, and its documented output."""
    text = path.read_text()
    launch = re.search(r"^; Launch: wave-lsp run \S+ (.*?)\n(?!;     )", text, re.S | re.M)
    flags = " ".join(part.strip(" ;\\") for part in launch.group(1).split("\n"))
    output = re.search(r"^; Output: (.*)$", text, re.M).group(1).split()
    return text.replace(".kernel", f"; wave-lsp run: {flags}\n.kernel", 1), output


@pytest.mark.parametrize("name", sorted(p.stem for p in PROJECT_EXAMPLES.glob("*.wave")))
async def test_project_example_runs_to_its_documented_output(client, name):
    text, output = with_launch_line(PROJECT_EXAMPLES / f"{name}.wave")
    uri = open_document(client, text, name)
    result = await run(client, uri, name, line_of(text, "wave-lsp run:"))
    assert result["ok"], result
    values = [v for dump in result["dumps"] for v in dump["values"]]
    assert [float(v) for v in values] == [float(v) for v in output]
    shown = await hints(client, uri)
    executed = {entry["line"] for entry in result["lines"] if entry["label"]}
    assert executed and executed == set(shown)


async def test_vector_add_hints_have_the_exact_values(client):
    text, _ = with_launch_line(PROJECT_EXAMPLES / "vector_add.wave")
    uri = open_document(client, text)
    launch = line_of(text, "wave-lsp run:")
    # `▶ Run` above the kernel and each launch line: this one and the example's own test
    assert [title for _, title, _ in await lenses(client, uri)] == ["▶ Run"] * 3
    result = await run(client, uri, "vector_add", launch)
    shown = await hints(client, uri)
    assert shown[line_of(text, "mov_sr  r5")] == "r5 = 0, 1, 2 … 31"
    assert shown[line_of(text, "mov_imm r7, 4")] == "r7 = 4 (all lanes)"
    assert shown[line_of(text, "imul    r6")] == "r6 = 0, 4, 8 … 124"
    assert shown[line_of(text, "device_load_u32 r9")] == "r9 = 0.0, 1.0, 2.0 … 31.0"
    assert shown[line_of(text, "device_load_u32 r10")] == "r10 = 0.0, 2.0, 4.0 … 62.0"
    assert shown[line_of(text, "fadd")] == "r11 = 0.0, 3.0, 6.0 … 93.0"
    assert shown[line_of(text, "device_store_u32")] == "[r8] ← 0.0, 3.0, 6.0 … 93.0"
    assert result["threads"] == list(range(32)) and result["instructions"] == 4 * 8 * 14
    titles = [(line, title) for line, title, _ in await lenses(client, uri)]
    status = [title for line, title in titles if line == launch]
    assert re.fullmatch(r"✓ \d+\.\d ms · 448 instr · 100% lanes active", status[1])
    assert status[0] == "▶ Run again" and status[2] == "✕ Clear"
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=t.Position(line=launch, character=3)))
    assert "8 × f32 at 0x2000" in hover.contents.value
    assert "0.0\n3.0\n6.0\n9.0\n12.0\n15.0\n18.0\n21.0" in hover.contents.value


async def test_hover_shows_a_register_per_lane_before_and_after(client):
    text = open((PROJECT_EXAMPLES / "divergent_break.wave")).read()
    text = text.replace(".kernel", "; wave-lsp run: --workgroup 8,1,1 --wave-width 8\n.kernel")
    uri = open_document(client, text)
    await run(client, uri, "divergent_break", None)
    line = line_of(text, "iadd r1, r1, r2")
    col = text.split("\n")[line].index("r1")
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=client_position(client, text, line, col)))
    value = hover.contents.value
    assert "| lane | thread | active | before | after |" in value
    assert "| 7 | 7 | ✓ | 6 | 7 ← |" in value and "| 0 | 0 | · | 0 | 0 |" in value
    assert "general-purpose register" in value     # the usual hover follows


# ---- live re-runs, masks, not-executed lines ---------------------------------------------------
LOOP = """.kernel k
; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4
.registers 8
    mov_sr  r0, sr_lane_id
    mov_imm r1, 3
    iadd    r2, r0, r1
    icmp_lt p1, r0, r1
    if p1
        mov_imm r3, 100
    else
        mov_imm r3, 200
    endif
    mov_imm r4, 4
    imul    r5, r0, r4
    device_store_u32 r5, r3
    loop
        icmp_eq p2, r0, r0
        break p2
        mov_imm r6, 9
    endloop
    halt
.end
"""


async def test_an_edit_changes_the_hints(client):
    uri = open_document(client, LOOP)
    await run(client, uri, "k", 1)
    line = line_of(LOOP, "iadd    r2")
    assert (await hints(client, uri))[line] == "r2 = 3, 4, 5, 6"
    text = change(client, uri, 2, line_of(LOOP, "mov_imm r1"), "3", "10", LOOP)

    async def updated():
        return (await hints(client, uri)).get(line) == "r2 = 10, 11, 12, 13"
    await eventually(updated)
    assert (await hints(client, uri))[line_of(text, "mov_imm r1")] == "r1 = 10 (all lanes)"


async def test_divergent_kernel_shows_masks_and_active_lanes(client):
    text = LOOP.replace("mov_imm r1, 3", "mov_imm r1, 1")
    uri = open_document(client, text)
    await run(client, uri, "k", 1)
    shown = await hints(client, uri)
    assert shown[line_of(text, "icmp_lt")] == "p1 = 0x1 (lane 0)"
    assert shown[line_of(text, "r3, 100")] == "r3 = 100 [lane 0]"
    assert shown[line_of(text, "r3, 200")] == "r3 = 200 [lanes 1-3]"


async def test_lines_after_a_taken_break_are_greyed(client):
    uri = open_document(client, LOOP)
    await run(client, uri, "k", 1)
    dead = line_of(LOOP, "mov_imm r6")

    async def greyed():
        items = await current_diagnostics(client, uri)
        return [d for d in items if d.code == "R006"]
    found = await eventually(greyed)
    assert [d.range.start.line for d in found] == [dead, line_of(LOOP, "endloop")]
    assert found[0].severity == t.DiagnosticSeverity.Hint
    assert list(found[0].tags) == [t.DiagnosticTag.Unnecessary]
    assert "not executed in this run" in found[0].message
    assert dead not in await hints(client, uri)


async def test_clear_removes_results_and_stops_re_running(client):
    uri = open_document(client, LOOP)
    await run(client, uri, "k", 1)
    assert await hints(client, uri)
    cleared = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.clear", arguments=[uri, None]))
    assert cleared == {"uri": uri, "cleared": ["k"]}
    assert await hints(client, uri) == {}
    change(client, uri, 2, line_of(LOOP, "mov_imm r1"), "3", "5", LOOP)
    await asyncio.sleep(0.3)
    assert await hints(client, uri) == {}
    assert [title for _, title, _ in await lenses(client, uri)] == ["▶ Run", "▶ Run"]


# ---- errors ------------------------------------------------------------------------------------


async def test_out_of_bounds_store_is_an_error_at_its_line(client):
    uri = open_document(client, OUT_OF_BOUNDS)
    result = await run(client, uri, "oob", None)
    assert not result["ok"] and result["status"] == "error"
    store = line_of(OUT_OF_BOUNDS, "device_store_u32")
    assert result["errors"][0]["kind"] == "out_of_bounds"

    async def error():
        return [d for d in await current_diagnostics(client, uri) if d.code == "R001"]
    found = (await error_found(error))[0]
    assert found.range.start.line == store and found.severity == t.DiagnosticSeverity.Error
    assert "workgroup (0,0,0)" in found.message and "wave 0" in found.message
    assert "out of bounds" in found.message
    lens = [title for line, title, _ in await lenses(client, uri) if line == 0]
    assert lens[1].startswith(f"✕ out of bounds at line {store + 1}")
    if client.preset == "visual-studio-code":   # declares related information
        assert found.related_information[0].message == "launched here"


async def error_found(probe):
    return await eventually(probe)


INFINITE = """.kernel spin
.registers 4
.workgroup_size 4, 1, 1
    mov_imm r1, 1
    loop
        iadd r2, r2, r1
    endloop
    halt
.end
"""


class only_the_time_limit:
    """The client's settings without an instruction limit (restored after): the native core
    runs the editor's million wave-instructions in milliseconds, so a run meant to outlast a
    request is bounded by `run.timeLimitMs` alone."""

    def __init__(self, client):
        self.client = client

    async def __aenter__(self):
        await configure(self.client, {**INIT, "run": {**INIT["run"], "maxInstructions": 0}})

    async def __aexit__(self, *exc):
        await configure(self.client, INIT)


async def test_infinite_loop_is_stopped_by_the_limit_while_hover_answers(client):
    async with only_the_time_limit(client):
        await _infinite_loop_is_stopped(client)


async def _infinite_loop_is_stopped(client):
    uri = open_document(client, INFINITE)
    started = time.monotonic()
    running = asyncio.ensure_future(run(client, uri, "spin", None))
    await asyncio.sleep(0.2)
    assert not running.done()
    asked = time.monotonic()
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=t.Position(line=5, character=9)))
    answered = time.monotonic()
    assert "iadd" in hover.contents.value and not running.done()
    assert answered - asked < 1.0
    result = await running
    assert result["status"] == "error" and result["errors"][0]["kind"] == "time_limit"
    assert time.monotonic() - started < 5

    async def limit():
        return [d for d in await current_diagnostics(client, uri) if d.code == "R002"]
    found = (await eventually(limit))[0]
    assert found.range.start.line in (4, 5, 6)


async def test_invalid_launch_lines_are_diagnosed_on_the_flag(client):
    text = (".kernel k\n"
            "; wave-lsp run: --grid 4,1 --workgroup 4,1,1\n"
            "; wave-lsp run: --bogus 3\n"
            "; wave-lsp run: --arg 0:missing-file.bin\n"
            "; wave-lsp run: --lanes 5-2\n"
            ".registers 4\n    halt\n.end\n")
    uri = open_document(client, text)

    async def problems():
        found = [d for d in await current_diagnostics(client, uri) if d.code == "R004"]
        return found if len(found) == 3 else None
    found = sorted(await eventually(problems), key=lambda d: d.range.start.line)
    spans = [(d.range.start.line, d.range.start.character, d.range.end.character) for d in found]
    assert spans == [(1, 16, 26), (2, 16, 25), (4, 16, 27)]   # --arg files: only when it runs
    assert "expected X,Y,Z" in found[0].message and "--bogus" in found[1].message
    assert "--lanes" in found[2].message
    result = await run(client, uri, "k", 1)
    assert result["status"] == "invalid" and "--grid" in result["message"]
    result = await run(client, uri, "k", 3)
    assert result["status"] == "failed" and "missing-file.bin" in result["message"]


async def test_launch_flags_are_completed_in_a_launch_line(client):
    text = ".kernel k\n; wave-lsp run: --grid 1,1,1 --wo\n    halt\n.end\n"
    uri = open_document(client, text)
    result = await client.text_document_completion_async(t.CompletionParams(
        text_document=ident(uri), position=t.Position(line=1, character=34)))
    labels = {item.label for item in result.items}
    assert {"--workgroup", "--lanes", "--fill-iota", "--dump-f32", "--arg"} <= labels
    assert "--trace" not in labels
    other = await client.text_document_completion_async(t.CompletionParams(
        text_document=ident(uri), position=t.Position(line=1, character=24)))
    assert not other.items


async def test_a_stale_run_never_shows(client):
    async with only_the_time_limit(client):
        await _a_stale_run_never_shows(client)


async def _a_stale_run_never_shows(client):
    slow = INFINITE.replace("iadd r2, r2, r1", "iadd r2, r2, r1\n        icmp_ge p1, r2, r3\n"
                            "        break p1").replace("mov_imm r1, 1", "mov_imm r1, 1\n"
                                                       "    mov_imm r3, 200000000")
    uri = open_document(client, slow)
    first = asyncio.ensure_future(run(client, uri, "spin", None))

    async def running():
        return any(title == "⟳ running…" for _, title, _ in await lenses(client, uri))
    await eventually(running)
    await asyncio.sleep(0.1)
    text = change(client, uri, 2, line_of(slow, "mov_imm r3"), "200000000", "7", slow)
    result = await first
    assert result["version"] == 1 and result["status"] == "cancelled", {k: result[k] for k in ("version", "status", "message", "elapsedMs")}
    counter = line_of(text, "iadd r2")
    seen = []

    async def fresh():
        shown = await hints(client, uri)
        seen.append(shown.get(counter))
        return shown.get(counter) == "r2 = 7 (all lanes) ×7"
    await eventually(fresh)
    assert all(label in (None, "r2 = 7 (all lanes) ×7") for label in seen), seen


# ---- live mode ---------------------------------------------------------------------------------
@pytest_lsp.fixture(params=PRESETS, config=SERVER, scope="module")
async def live_client(request, lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(request.param),
        initialization_options={**INIT, "run": {"live": True}}))
    lsp_client.preset = request.param
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


async def test_live_mode_runs_every_kernel_with_a_launch_line(live_client):
    client = live_client
    uri = open_document(client, LOOP + "\n.kernel other\n.registers 4\n    mov_imm r1, 5\n"
                                       "    halt\n.end\n")
    line = line_of(LOOP, "iadd    r2")

    async def shown():
        return (await hints(client, uri)).get(line) == "r2 = 3, 4, 5, 6"
    await eventually(shown)
    assert all(h != "r1 = 5 (all lanes)" for h in (await hints(client, uri)).values())
    if client.preset == "neovim":       # declares inlay hint refresh
        assert any(kind == "inlay" for kind, _ in client.refreshes)
    else:
        assert any(kind == "lens" for kind, _ in client.refreshes)
