"""Whole debug sessions against the real `wave-lsp debug` subprocess: breakpoints (plain,
conditional, hit counts, logpoints, instruction), stepping into and out of `call`, exception
stops, memory, disassembly, setVariable, evaluate, restart, pause, disconnect mid-run and
invalid launches."""

from __future__ import annotations

import base64
import struct

import pytest

from dap_client import DapClient
from conftest import ROOT

KERNELS = ROOT / "tests" / "debug" / "kernels"
DIVERGENT = ROOT / "examples" / "divergent_break.wave"
DIVERGENT_ARGS = ["--workgroup", "8,1,1", "--wave-width", "4", "--dump-u32", "0:8"]
CALLS = KERNELS / "calls.wave"


@pytest.fixture
def client():
    c = DapClient(cwd=ROOT)
    yield c
    c.close()


def test_breakpoint_shows_waves_and_lane_values(client):
    client.start(DIVERGENT, breakpoints=[16], args=DIVERGENT_ARGS)
    stop = client.stopped()
    assert stop["reason"] == "breakpoint" and stop["allThreadsStopped"]
    threads = client.request("threads")["body"]["threads"]
    assert [t["name"] for t in threads] == ["wg(0,0,0) wave 0", "wg(0,0,0) wave 1"]
    frame = client.top_frame(stop["threadId"])
    assert frame["line"] == 16 and frame["source"]["path"] == str(DIVERGENT)
    # first time in the loop body: lane 0 (0 >= 0) has left the loop
    assert "lanes 1-3 active" in frame["name"]
    assert client.lanes(frame["id"], "r0") == ["0", "1", "2", "3"]
    assert client.lanes(frame["id"], "r2") == ["1", "1", "1", "1"]
    assert client.lanes(frame["id"], "r0", hex_format=True)[3] == "0x00000003"
    predicates = {v["name"]: v["value"] for v in client.scope(frame["id"], "Predicates")}
    assert predicates["p1"] == "0x1 (lane 0)"
    lanes = {v["name"]: v for v in client.scope(frame["id"], "Lanes and divergence")}
    assert lanes["active"]["value"] == "0xe (lanes 1-3)"
    stack = client.request("variables", {
        "variablesReference": lanes["divergence stack"]["variablesReference"]})["body"]
    loop = stack["variables"][0]
    assert loop["name"] == "loop (line 13)" and "broken 0x1 (lane 0)" in loop["value"]
    specials = {v["name"]: v["value"] for v in client.scope(frame["id"], "Special registers")}
    assert specials["sr_lane_id"] == "[0, 1, 2, 3]" and specials["sr_wave_width"].startswith("4")
    # wave 1 has the same lanes at the same instruction
    wave1 = client.top_frame(threads[1]["id"])
    assert client.lanes(wave1["id"], "r0") == ["0", "1", "2", "3"]
    client.request("setBreakpoints", {"source": {"path": str(DIVERGENT)}, "breakpoints": []})
    client.request("continue", {"threadId": stop["threadId"]})
    assert client.wait_event("exited")["body"]["exitCode"] == 0
    client.wait_event("terminated")
    assert "0\n1\n2\n3\n0\n0\n0\n0\n" in client.output()   # out[lane] = lane


def test_conditional_breakpoint_stops_when_any_active_lane_satisfies_it(client):
    client.start(DIVERGENT, breakpoints=[16], args=DIVERGENT_ARGS,
                 conditions={16: {"condition": "r1 >= 2"}})
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    assert "lanes 3 active" in frame["name"]
    assert client.lanes(frame["id"], "r1") == ["0", "1", "2", "2"]
    result = client.request("evaluate", {"expression": "r1 * 10 + lane",
                                         "frameId": frame["id"], "context": "watch"})
    assert result["body"]["result"] == "[0, 11, 22, 23]"


def test_hit_count_and_logpoint(client):
    client.start(DIVERGENT, breakpoints=[16, 13], args=DIVERGENT_ARGS,
                 conditions={16: {"hitCondition": "3"},
                             13: {"logMessage": "lanes {lane} start at {r1}"}})
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    assert client.lanes(frame["id"], "r1") == ["0", "1", "2", "2"]   # third time in the body
    assert "wg(0,0,0) wave 1: lanes [0, 1, 2, 3] start at 0 (all lanes)" in client.output()


def test_unverified_and_moved_breakpoints(client):
    client.start(DIVERGENT, breakpoints=[2, 8, 19])
    lines = [(bp["verified"], bp.get("line")) for bp in client.breakpoints]
    # line 2 is a comment before the kernel; 8 is the .kernel line... moved to the first
    # instruction? no: it is before the first instruction, so unverified; 19 is an instruction
    assert lines[0][0] is False and lines[1][0] is False
    assert lines[2] == (True, 19)
    assert "not in kernel" in client.breakpoints[0]["message"]


def test_step_into_and_out_of_a_call(client):
    client.start(CALLS, breakpoints=[8])                 # the launch line gives the flags
    stop = client.stopped()
    thread = stop["threadId"]
    client.request("stepIn", {"threadId": thread})
    assert client.stopped()["reason"] == "step"
    frames = client.request("stackTrace", {"threadId": thread})["body"]["stackFrames"]
    assert [(f["name"].split(" ·")[0], f["line"]) for f in frames] == [("square", 13),
                                                                       ("calls", 8)]
    client.request("next", {"threadId": thread})
    client.stopped()
    assert client.top_frame(thread)["line"] == 14
    assert client.lanes(client.top_frame(thread)["id"], "r2") == ["0", "1", "4", "9"]
    client.request("stepOut", {"threadId": thread})
    client.stopped()
    frames = client.request("stackTrace", {"threadId": thread})["body"]["stackFrames"]
    assert [f["line"] for f in frames] == [9]
    assert client.lanes(frames[0]["id"], "r2") == ["4", "5", "8", "13"]
    client.request("continue", {"threadId": thread})
    client.wait_event("terminated")
    assert "4\n5\n8\n13\n20\n29\n40\n53\n" in client.output()


def test_next_steps_over_a_call(client):
    client.start(CALLS, breakpoints=[8])
    thread = client.stopped()["threadId"]
    client.request("next", {"threadId": thread})
    client.stopped()
    frames = client.request("stackTrace", {"threadId": thread})["body"]["stackFrames"]
    assert [f["line"] for f in frames] == [9]


def test_stop_on_out_of_bounds_store_at_its_line(client):
    client.start(KERNELS / "out_of_bounds.wave")
    stop = client.stopped()
    assert stop["reason"] == "exception" and "out of bounds" in stop["text"]
    frame = client.top_frame(stop["threadId"])
    assert frame["line"] == 11
    assert client.lanes(frame["id"], "r2") == ["60", "64", "68", "72"]
    info = client.request("exceptionInfo", {"threadId": stop["threadId"]})["body"]
    assert info["exceptionId"] == "out_of_bounds"
    client.request("continue", {"threadId": stop["threadId"]})
    assert client.wait_event("exited")["body"]["exitCode"] == 1
    assert "Error: memory access out of bounds" in client.output()


def test_exception_filter_off_runs_to_the_error(client):
    client.start(KERNELS / "out_of_bounds.wave", exception_filters=["barrier"])
    assert client.wait_event("exited")["body"]["exitCode"] == 1
    assert not [e for e in client.events if e["event"] == "stopped"]


def test_memory_read_write_and_set_variable(client):
    client.start(CALLS, breakpoints=[10])
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    memory = {v["name"]: v for v in client.scope(frame["id"], "Memory")}
    assert memory["device"]["memoryReference"] == "device"
    # lane 2 of wave 0 stores 100 instead of 8
    registers = client.scope(frame["id"], "Registers")
    r2 = next(v for v in registers if v["name"] == "r2")
    changed = client.request("setVariable", {"variablesReference": r2["variablesReference"],
                                             "name": "lane 2", "value": "100"})
    assert changed["body"]["value"] == "100"
    client.request("setBreakpoints", {"source": {"path": str(CALLS)},
                                      "breakpoints": [{"line": 11}]})
    client.request("continue", {"threadId": stop["threadId"]})
    client.stopped()
    data = client.request("readMemory", {"memoryReference": "device", "offset": 0,
                                         "count": 16})["body"]
    assert struct.unpack("<4I", base64.b64decode(data["data"])) == (4, 5, 100, 13)
    beyond = client.request("readMemory", {"memoryReference": "device", "offset": 1048570,
                                           "count": 16})["body"]
    assert beyond["unreadableBytes"] == 10
    client.request("writeMemory", {"memoryReference": "device", "offset": 0,
                                   "data": base64.b64encode(struct.pack("<I", 77)).decode()})
    assert client.finish(stop["threadId"]).startswith("77\n5\n100\n13\n20\n")


def test_disassembly_and_instruction_breakpoints(client):
    client.start(CALLS, stop_on_entry=True)
    stop = client.stopped()
    assert stop["reason"] == "entry"
    pointer = client.top_frame(stop["threadId"])["instructionPointerReference"]
    listing = client.request("disassemble", {"memoryReference": pointer, "instructionOffset": -2,
                                             "instructionCount": 12})["body"]["instructions"]
    assert len(listing) == 12
    assert [i["presentationHint"] for i in listing[:2]] == ["invalid", "invalid"]
    texts = [i["instruction"] for i in listing[2:10]]
    assert texts[0] == "mov_sr r0, sr_thread_id_x" and texts[2] == "call square"
    square = next(i for i in listing if i["instruction"] == "imul r2, r0, r0")
    assert square["symbol"] == "square" and square["line"] == 13
    bps = client.request("setInstructionBreakpoints", {"breakpoints": [
        {"instructionReference": square["address"], "offset": 8}]})["body"]["breakpoints"]
    assert bps[0]["verified"]
    client.request("continue", {"threadId": stop["threadId"]})
    stop = client.stopped()
    assert stop["reason"] == "instruction breakpoint"
    assert client.top_frame(stop["threadId"])["line"] == 14


def test_restart_runs_again_from_the_start(client):
    client.start(CALLS, breakpoints=[14])
    thread = client.stopped()["threadId"]
    client.request("next", {"threadId": thread})
    client.stopped()
    assert client.lanes(client.top_frame(thread)["id"], "r2") == ["4", "5", "8", "13"]
    client.request("restart", {})
    stop = client.stopped()
    assert stop["reason"] == "breakpoint"
    frame = client.top_frame(stop["threadId"])
    assert frame["line"] == 14 and client.lanes(frame["id"], "r2") == ["0", "1", "4", "9"]
    assert client.finish(stop["threadId"]).count("4\n5\n8\n13\n20\n29\n40\n53\n") == 1


def test_pause_and_disconnect_mid_run(client):
    client.start(KERNELS / "spin.wave")
    client.request("pause", {"threadId": 1})
    stop = client.stopped()
    assert stop["reason"] == "pause"
    frame = client.top_frame(stop["threadId"])
    assert frame["line"] in (8, 9, 10, 11, 12)
    client.request("continue", {"threadId": 1})
    client.request("disconnect", {})
    assert client.proc.wait(timeout=10) == 0


def test_invalid_launches_fail_with_a_reason(client):
    response = client.start(DIVERGENT, args=["--grid", "two"])
    assert not response["success"] and "--grid" in response["message"]
    response = client.request("launch", {"program": "missing.wave"}, ok=False)
    assert not response["success"] and "cannot read 'missing.wave'" in response["message"]
    broken = KERNELS / "calls.wave"
    response = client.request("launch", {"program": str(broken), "kernel": "nope"}, ok=False)
    assert not response["success"] and "no kernel named 'nope'" in response["message"]
    client.request("disconnect", {})
    assert client.proc.wait(timeout=10) == 0


def test_source_that_does_not_assemble(client, tmp_path):
    bad = tmp_path / "bad.wave"
    bad.write_text(".kernel bad\n    iadd r1, r2\n    halt\n.end\n")
    response = client.start(bad)
    assert not response["success"] and "does not assemble" in response["message"]


def test_stop_on_a_barrier_in_divergent_flow(client):
    client.start(KERNELS / "divergent_barrier.wave")
    stop = client.stopped()
    assert stop["reason"] == "exception" and "divergent" in stop["description"]
    frame = client.top_frame(stop["threadId"])
    assert frame["line"] == 10 and "lanes 0-1 active" in frame["name"]
    info = client.request("exceptionInfo", {"threadId": stop["threadId"]})["body"]
    assert info["exceptionId"] == "divergent_barrier"


def test_workgroups_follow_one_another_as_threads(client):
    vector_add = ROOT / "examples" / "vector_add.wave"
    args = ["--grid", "4,1,1", "--wave-width", "32",       # 256 threads from .workgroup_size
            "--set-reg", "0:0", "--set-reg", "1:4096", "--set-reg", "2:8192",
            "--fill-iota", "0:f32:1024:1", "--fill-iota", "4096:f32:1024:2",
            "--dump-f32", "8192:4"]
    client.start(vector_add, breakpoints=[25], args=args,
                 conditions={25: {"condition": "sr_workgroup_id_x == 2 and sr_wave_id == 1"}})
    stop = client.stopped()
    threads = client.request("threads")["body"]["threads"]
    assert [t["name"] for t in threads] == [f"wg(2,0,0) wave {w}" for w in range(8)]
    assert stop["threadId"] == threads[1]["id"]
    frame = client.top_frame(stop["threadId"])
    # fadd wrote r11 = a[i] + b[i] = 3 i for i = 2 * 256 + 32 + lane; shown as f32
    registers = {v["name"]: v for v in client.scope(frame["id"], "Registers")}
    assert registers["r11"]["type"] == "f32"
    assert client.lanes(frame["id"], "r11")[:2] == ["1632.0", "1635.0"]
    exited = [e["body"]["threadId"] for e in client.events
              if e["event"] == "thread" and e["body"]["reason"] == "exited"]
    assert exited == list(range(1, 17))
    assert client.finish(stop["threadId"]).startswith("0.0\n3.0\n6.0\n9.0\n")


def test_bad_requests_get_error_responses_and_the_adapter_goes_on(client):
    client.start(CALLS, stop_on_entry=True)
    stop = client.stopped()
    assert not client.request("frobnicate", {}, ok=False)["success"]
    assert not client.request("stackTrace", {}, ok=False)["success"]
    assert not client.request("variables", {"variablesReference": 9999}, ok=False)["success"]
    assert not client.request("evaluate", {"expression": "r1 +"}, ok=False)["success"]
    assert not client.request("readMemory", {"memoryReference": "nowhere", "count": 4},
                              ok=False)["success"]
    assert not client.request("setExceptionBreakpoints", {"filters": ["everything"]},
                              ok=False)["success"]
    client.proc.stdin.write(b"Content-Length: 5\r\n\r\n{oops")
    client.proc.stdin.flush()
    client.wait_event("output")
    frame = client.top_frame(stop["threadId"])
    assert frame["line"] == 6
    client.request("continue", {"threadId": stop["threadId"]})
    assert client.wait_event("exited")["body"]["exitCode"] == 0
