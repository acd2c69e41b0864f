"""One formatter for a register's lanes (DESIGN.md §2): a float loaded with
`device_load_u32` reads the same in the real debug adapter's Variables view and debug console
as in the inline hints and the hover table of an inline run (the ide layer the server shows),
and inactive lanes are marked in the Variables view as the hover table marks them."""

from __future__ import annotations

import pytest

from conftest import ROOT
from dap_client import DapClient
from wave_lsp.ide.run_hover import register_table
from wave_lsp.ide.run_limits import RunLimits
from wave_lsp.ide.run_session import execute, kernel_launch_lines, plan_runs
from wave_lsp.syntax.document import Document

KERNEL = ROOT / "tests" / "debug" / "kernels" / "float_load.wave"
ARGS = ["--workgroup", "4,1,1", "--wave-width", "4", "--fill-iota", "0:f32:4:1"]
LOAD, INSIDE = 8, 12          # 0-based lines: the load, the iadd inside the `if`


@pytest.fixture
def client():
    c = DapClient(cwd=ROOT)
    yield c
    c.close()


def inline_run():
    doc = Document(KERNEL.read_text(encoding="utf-8"))
    snapshot = plan_runs(doc, {"float_load": None}, kernel_launch_lines(doc, KERNEL.parent))
    return execute(snapshot, RunLimits())[0]


def test_debugger_hints_and_hover_read_a_loaded_float_alike(client):
    client.start(KERNEL, breakpoints=[INSIDE + 1], args=ARGS)
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    registers = {v["name"]: v for v in client.scope(frame["id"], "Registers")}
    assert registers["r3"]["type"] == "f32"
    assert registers["r3"]["value"] == "[0.0, 1.0, 2.0, 3.0]"
    console = client.request("evaluate", {"expression": "r3", "frameId": frame["id"],
                                          "context": "repl"})["body"]["result"]
    assert console == "[0.0, 1.0, 2.0, 3.0]"
    ref = registers["r3"]["variablesReference"]
    lanes = client.request("variables", {"variablesReference": ref})["body"]["variables"]
    # inside the `if`: lanes 0-1 active (✓), 2-3 not (·), as in the hover's table
    assert [(v["name"], v["value"]) for v in lanes] == [
        ("lane 0 ✓", "0.0"), ("lane 1 ✓", "1.0"), ("lane 2 ·", "2.0"), ("lane 3 ·", "3.0")]
    assert lanes[2]["type"] == "f32 (inactive lane)"

    run = inline_run()
    assert run.status == "ok"
    assert run.lines[LOAD].label == "r3 = 0.0, 1.0, 2.0, 3.0"
    table = register_table(run, LOAD, "r3")
    after = [row.split("|")[5].strip().rstrip(" ←") for row in table.split("\n")[4:]]
    assert after == [v["value"] for v in lanes]
    inside = register_table(run, INSIDE, "r5").split("\n")[4:]
    assert [row.split("|")[3].strip() for row in inside] == ["✓", "✓", "·", "·"]
    client.finish(stop["threadId"])
