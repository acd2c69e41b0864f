""""Debug at this moment" end to end: the real server (as VS Code) offers the
code action on a run's data race, uninitialised read and run-time error and on a failing kernel
test; the configuration it carries, given to the real debug adapter, opens a session paused at
that moment with the involved lanes in view."""

from __future__ import annotations

import ast
import asyncio
import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from kernel_test_cases import store
from run_kernels import OUT_OF_BOUNDS

from .conftest import SERVER, VS_CODE
from .test_run_results import _watch_refreshes, eventually, run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "debug"))
from dap_client import DapClient  # noqa: E402
from tests.time_travel_kernels import RACE_BODY, kernel

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

ROOT = Path(__file__).resolve().parents[2]
INIT = {"diagnostics": {"debounceMs": 5}, "run": {"timeLimitMs": 3000}}
DEBUG = "wave.debugAtMoment"
RACE = kernel("race", RACE_BODY, "--workgroup 8,1,1 --wave-width 4", "after_registers")
UNINITIALISED = """.kernel uninit
.registers 8
; wave-lsp run: --workgroup 4,1,1 --wave-width 4
    mov_sr r0, sr_thread_id_x
    iadd r2, r0, r5
    halt
.end
"""


@pytest_lsp.fixture(params=VS_CODE, config=SERVER, scope="module")
async def client(request, lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(request.param), initialization_options=INIT))
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


def on_disk(client, tmp_path: Path, name: str, text: str) -> str:
    """Open a document whose file holds the same text (the debugger reads the file)."""
    path = tmp_path / f"{name}.wave"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))
    return uri


async def moment_action(client, uri: str, line: int) -> t.CodeAction:
    async def probe():
        actions = await client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            range=t.Range(start=t.Position(line=line, character=0),
                          end=t.Position(line=line, character=0)),
            context=t.CodeActionContext(diagnostics=[])))
        return [action for action in map(_code_action, actions or [])
                if action is not None and action.command.command == DEBUG]
    return (await eventually(probe, 20.0))[0]


def _code_action(item) -> t.CodeAction | None:
    """A code action with a command as sent. lsprotocol's client side reads any item with a
    "command" key as a `Command` (its whole command object turned into the string): read it
    back as the code action it is."""
    if isinstance(item, t.CodeAction):
        return item if item.command is not None else None
    if isinstance(item.command, str) and item.command.startswith("{"):
        raw = ast.literal_eval(item.command)
        return t.CodeAction(title=item.title, command=t.Command(**raw))
    return None


def paused(configuration: dict) -> tuple[DapClient, dict]:
    """A debug session started with the action's configuration, and its first stop."""
    dap = DapClient(cwd=ROOT)
    config = dict(configuration)
    program = config.pop("program")
    response = dap.start(program, args=config.pop("args", None), kernel=config.pop("kernel"),
                         **{k: v for k, v in config.items() if k in ("stopAt", "cwd")})
    assert response["success"], response
    return dap, dap.stopped()


async def test_a_data_race_opens_the_session_at_its_first_access(client, tmp_path):
    uri = on_disk(client, tmp_path, "race", RACE)
    result = await run(client, uri, "race", 2)
    assert any(w["kind"] == "data_race" for w in result["warnings"])
    action = await moment_action(client, uri, 6)        # the local store
    assert action.title.startswith("Debug at this moment") and "data race" in action.title
    configuration = action.command.arguments[0]
    assert configuration["stopAt"]["line"] == 6 and configuration["type"] == "wave"
    dap, stop = paused(configuration)
    try:
        assert stop["reason"] == "goto" and "data race" in stop["description"]
        frame = dap.top_frame(stop["threadId"])
        assert frame["line"] == 7                        # 1-based: the store, not yet run
        focus = dap.scope(frame["id"], "Finding lanes")
        assert len(focus) == 2 and all(v["value"].startswith("wave") for v in focus)
    finally:
        dap.close()


async def test_an_uninitialised_read_opens_at_the_reading_line(client, tmp_path):
    uri = on_disk(client, tmp_path, "uninit", UNINITIALISED)
    await run(client, uri, "uninit", 2)
    action = await moment_action(client, uri, 4)
    dap, stop = paused(action.command.arguments[0])
    try:
        frame = dap.top_frame(stop["threadId"])
        assert frame["line"] == 5 and "uninitialised" in stop["description"]
    finally:
        dap.close()


async def test_a_run_error_opens_at_the_error(client, tmp_path):
    uri = on_disk(client, tmp_path, "oob", OUT_OF_BOUNDS)
    await run(client, uri, "oob", None)
    action = await moment_action(client, uri, 6)
    dap, stop = paused(action.command.arguments[0])
    try:
        assert stop["reason"] == "exception" and "out of bounds" in stop["text"].lower()
    finally:
        dap.close()


async def test_a_failing_kernel_test_opens_at_the_write_of_the_wrong_value(client, tmp_path):
    text = store("0", "10", "25", "30")
    uri = on_disk(client, tmp_path, "test", text)
    launch = next(i for i, line in enumerate(text.split("\n")) if "wave-lsp run:" in line)
    result = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.test", arguments=[uri, "store", launch]))
    [outcome] = result["tests"]                         # the Testing view's link uses it
    assert outcome["debugAtMoment"]["stopAt"]["address"] == 8
    wrong = next(i for i, line in enumerate(text.split("\n")) if "expect: 25" in line)
    started = time.perf_counter()
    action = await moment_action(client, uri, wrong)
    dap, stop = paused(action.command.arguments[0])
    elapsed = time.perf_counter() - started
    try:
        assert action.command.arguments[0]["stopAt"]["address"] == 8
        assert stop["reason"] == "goto" and "thread 2" in stop["description"]
        frame = dap.top_frame(stop["threadId"])
        store_line = next(i for i, line in enumerate(text.split("\n"))
                          if "device_store_u32" in line)
        assert frame["line"] == store_line + 2           # 1-based, just after the store
        word = dap.request("readMemory", {"memoryReference": "device", "offset": 8,
                                          "count": 4})["body"]["data"]
        assert word == "FAAAAA=="                        # 20, the wrong value, just written
        assert elapsed < 5                               # the benchmark holds it to 1 s
    finally:
        dap.close()
    await asyncio.sleep(0)


async def test_a_gpu_difference_opens_at_the_emulators_write_of_that_word(tmp_path):
    """`wave-lsp.runOnGpu`'s `debugAtMoment`: the difference's word, last written in the
    emulator (the GPU run itself needs a device; the moment is the server's, from its answer)."""
    from wave_lsp.ide.run_session import kernel_launch_lines
    from wave_lsp.ide.state import DocumentState
    from wave_lsp.server.gpu_run import _difference_moment
    text = store("0", "10", "25", "30")
    path = tmp_path / "gpu.wave"
    path.write_text(text)
    doc = DocumentState(path.as_uri(), text, 1)
    lines = kernel_launch_lines(doc, tmp_path).get("store", [])
    store_line = next(i for i, line in enumerate(text.split("\n")) if "device_store_u32" in line)
    outcome = {"ok": True, "difference": {"address": 8, "line": store_line}}
    moment = _difference_moment(doc, "store", lines, outcome)
    assert moment is not None and moment.line == store_line
    assert _difference_moment(doc, "store", lines, {"ok": True, "difference": None}) is None
    dap, stop = paused(moment.configuration)
    try:
        assert stop["reason"] == "goto"
        assert dap.top_frame(stop["threadId"])["line"] == store_line + 2   # just after it
        word = dap.request("readMemory", {"memoryReference": "device", "offset": 8,
                                          "count": 4})["body"]["data"]
        assert word == "FAAAAA=="                        # 20, what the emulator wrote there
    finally:
        dap.close()
