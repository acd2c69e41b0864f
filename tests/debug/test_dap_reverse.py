"""Reverse debugging against the real `wave-lsp debug` subprocess: stepBack through divergence,
across a barrier and back into the previous workgroup, reverseContinue to plain, conditional
and per-lane breakpoints (and to the start when there is none), gotoTargets/goto, data
breakpoints on a register lane and a device word (forward and backward), stepping back from a
run-time error, the checkpoint budget's message, an edit restarting the history, and the
launch attribute stopAt (a finding's moment with its lanes in view)."""

from __future__ import annotations

import pytest

from dap_client import DapClient
from conftest import ROOT

KERNELS = ROOT / "tests" / "debug" / "kernels"
DIVERGENT = ROOT / "examples" / "divergent_break.wave"
TWO_GROUPS = ["--workgroup", "8,1,1", "--grid", "2,1,1", "--wave-width", "4",
              "--dump-u32", "0:8"]
BLOCK_SUM = ROOT / "examples" / "block_sum.wave"
OOB = KERNELS / "out_of_bounds.wave"


@pytest.fixture
def client():
    c = DapClient(cwd=ROOT)
    yield c
    c.close()


def where(client, stop) -> tuple[int, str, list[str]]:
    """(line, frame name, lanes of r1) of the stopped wave."""
    frame = client.top_frame(stop["threadId"])
    return frame["line"], frame["name"], client.lanes(frame["id"], "r1")


def go(client, command, stop, **extra) -> dict:
    client.request(command, {"threadId": stop["threadId"], **extra})
    return client.stopped()


def test_capabilities_announce_reverse_execution(client):
    client.start(DIVERGENT, stop_on_entry=True, args=TWO_GROUPS)
    caps = client.capabilities
    assert caps["supportsStepBack"] and caps["supportsGotoTargetsRequest"]
    assert caps["supportsDataBreakpoints"]


def test_reverse_continue_returns_to_the_previous_hit_with_its_lane_values(client):
    client.start(DIVERGENT, breakpoints=[16], args=TWO_GROUPS)
    stops = [client.stopped()]
    seen = [where(client, stops[0])]
    for _ in range(2):
        stops.append(go(client, "continue", stops[-1]))
        seen.append(where(client, stops[-1]))
    assert [s[2] for s in seen] == [["0", "0", "0", "0"], ["0", "1", "1", "1"],
                                    ["0", "1", "2", "2"]]
    back = go(client, "reverseContinue", stops[-1])
    assert back["reason"] == "breakpoint" and back["hitBreakpointIds"] == [1]
    assert where(client, back) == seen[1]
    back = go(client, "reverseContinue", back)
    assert where(client, back) == seen[0]
    start = go(client, "reverseContinue", back)        # nothing earlier: the start
    assert start["reason"] == "entry" and "start of the recorded history" in start["description"]
    assert client.top_frame(start["threadId"])["line"] == 10
    again = go(client, "continue", start)              # forward again: the same first hit
    assert where(client, again) == seen[0]


def test_reverse_continue_honours_per_lane_conditions_across_workgroups(client):
    # the condition holds only when lane 3 is active and r1 == 2: once per workgroup
    client.start(DIVERGENT, breakpoints=[16], args=TWO_GROUPS,
                 conditions={16: {"condition": "lane == 3 and r1 == 2"}})
    first = client.stopped()
    assert where(client, first)[2] == ["0", "1", "2", "2"]
    second = go(client, "continue", first)
    assert second["threadId"] == 3                     # workgroup 1, wave 0
    back = go(client, "reverseContinue", second)
    assert back["threadId"] == 1 and where(client, back)[2] == ["0", "1", "2", "2"]
    exited = [e["body"]["threadId"] for e in client.events
              if e["event"] == "thread" and e["body"]["reason"] == "exited"]
    assert exited[-2:] == [3, 4]                       # workgroup 1's waves went away again


def test_step_back_undoes_steps_through_divergence_and_into_the_previous_workgroup(client):
    client.start(DIVERGENT, stop_on_entry=True, args=TWO_GROUPS)
    stop = client.stopped()
    forward = []
    for _ in range(40):                                # into workgroup 1
        forward.append((stop["threadId"], where(client, stop)))
        stop = go(client, "next", stop)
        if stop["threadId"] == 3:
            break
    assert stop["threadId"] == 3 and len(forward) > 10
    back = go(client, "stepBack", stop)                # workgroup 0's last instruction
    assert back["threadId"] == 1 and where(client, back)[0] == 21
    for thread, expected in reversed(forward[:-1]):
        back = go(client, "stepBack", back)
        assert (back["threadId"], where(client, back)) == (thread, expected)
    at_start = go(client, "stepBack", back)
    assert "nothing earlier" in at_start["description"]


def test_step_back_across_a_barrier_restores_local_memory(client):
    client.start(BLOCK_SUM, breakpoints=[22], args=["--grid", "1,1,1", "--wave-width", "32",
                                                     "--dump-u32", "1024:1"])
    stop = client.stopped()                            # after the barrier: mov_imm r7, 0
    before = client.request("readMemory", {"memoryReference": "local", "count": 16})["body"]
    back = go(client, "stepBack", stop)
    assert client.top_frame(back["threadId"])["line"] == 20        # the barrier
    back = go(client, "stepBack", back)
    assert client.top_frame(back["threadId"])["line"] == 18        # the local store
    empty = client.request("readMemory", {"memoryReference": "local", "count": 16})["body"]
    assert empty["data"] != before["data"]
    again = go(client, "continue", back)               # forward: the same state at line 22
    assert client.request("readMemory", {"memoryReference": "local", "count": 16})[
        "body"]["data"] == before["data"] and again["reason"] == "breakpoint"


def test_goto_targets_name_each_earlier_iteration(client):
    client.start(DIVERGENT, breakpoints=[18], args=["--workgroup", "4,1,1", "--wave-width", "4",
                                                     "--dump-u32", "0:4"])
    stop = client.stopped()                            # after the loop
    targets = client.request("gotoTargets", {"source": {"path": str(DIVERGENT)},
                                             "line": 16})["body"]["targets"]
    assert [t["label"] for t in targets] == [f"line 16, iteration {n}" for n in (3, 2, 1)]
    back = go(client, "goto", stop, targetId=targets[1]["id"])
    assert back["reason"] == "goto" and where(client, back)[:2] == (
        16, "divergent_break · lanes 2-3 active")
    assert where(client, back)[2] == ["0", "1", "1", "1"]
    bad = client.request("goto", {"threadId": 1, "targetId": 10_000}, ok=False)
    assert not bad["success"] and "not an earlier moment" in bad["message"]


def test_data_breakpoint_on_a_register_lane_stops_at_each_write_both_ways(client):
    client.start(DIVERGENT, stop_on_entry=True, args=["--workgroup", "4,1,1", "--wave-width",
                                                      "4", "--dump-u32", "0:4"])
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    registers = client.scope(frame["id"], "Registers")
    r1 = next(v for v in registers if v["name"] == "r1")
    info = client.request("dataBreakpointInfo", {"variablesReference": r1["variablesReference"],
                                                 "name": "lane 2 ✓"})["body"]
    assert info["dataId"] == "reg:r1:thread:2" and info["accessTypes"] == ["write"]
    whole = client.request("dataBreakpointInfo", {"variablesReference":
                                                  frame and _scope_ref(client, frame, "Registers"),
                                                  "name": "r1"})["body"]
    assert whole["dataId"] is None and "lanes" in whole["description"]
    set_ = client.request("setDataBreakpoints", {"breakpoints": [{"dataId": info["dataId"]}]})
    bp = set_["body"]["breakpoints"][0]
    assert bp["verified"]
    values = []
    for _ in range(3):                                 # r1 = 0, then 1, then 2 in lane 2
        stop = go(client, "continue", stop)
        assert stop["reason"] == "data breakpoint" and stop["hitBreakpointIds"] == [bp["id"]]
        values.append(where(client, stop)[2][2])
    assert values == ["0", "1", "2"]
    back = go(client, "reverseContinue", stop)
    assert back["reason"] == "data breakpoint" and where(client, back)[2][2] == "1"


def _scope_ref(client, frame, name):
    scopes = client.request("scopes", {"frameId": frame["id"]})["body"]["scopes"]
    return next(s["variablesReference"] for s in scopes if s["name"] == name)


def test_data_breakpoint_on_a_device_word_stops_at_the_store_both_ways(client):
    client.start(BLOCK_SUM, breakpoints=[39], args=["--grid", "1,1,1", "--wave-width", "32",
                                                     "--dump-u32", "1024:1"])
    stop = client.stopped()                            # at halt: the block total is stored
    info = client.request("dataBreakpointInfo", {"name": "device[0x400]"})["body"]
    assert info["dataId"] == "mem:device:0x400"
    bad = client.request("dataBreakpointInfo", {"name": "0x100000"})["body"]
    assert bad["dataId"] is None and "not a word of device memory" in bad["description"]
    client.request("setDataBreakpoints", {"breakpoints": [{"dataId": info["dataId"]}]})
    back = go(client, "reverseContinue", stop)
    assert back["reason"] == "data breakpoint"
    assert client.top_frame(back["threadId"])["line"] == 38        # just after the store
    store = go(client, "stepBack", back)
    assert client.top_frame(store["threadId"])["line"] == 37       # the store itself
    word = client.request("readMemory", {"memoryReference": "device", "offset": 1024,
                                         "count": 4})["body"]["data"]
    assert word == "AAAAAA=="                                      # not written yet
    client.request("setBreakpoints", {"source": {"path": str(BLOCK_SUM)}, "breakpoints": []})
    again = go(client, "continue", store)              # forward: stops at the same write
    assert again["reason"] == "data breakpoint" and "device word 0x400" in again["description"]
    assert client.top_frame(again["threadId"])["line"] == 38


def test_step_back_from_a_run_time_error_and_forward_into_it_again(client):
    client.start(OOB)
    error = client.stopped()
    assert error["reason"] == "exception"
    back = go(client, "stepBack", error)
    assert back["reason"] == "step" and client.top_frame(back["threadId"])["line"] == 10
    again = go(client, "continue", back)
    assert again["reason"] == "exception" and again["text"] == error["text"]


def test_a_budget_below_one_checkpoint_refuses_reverse_requests_with_the_reason(client):
    client.start(DIVERGENT, stop_on_entry=True, args=TWO_GROUPS, checkpointBudgetMiB=0.001)
    stop = client.stopped()
    refused = client.request("stepBack", {"threadId": stop["threadId"]}, ok=False)
    assert not refused["success"]
    assert "more than the checkpoint budget" in refused["message"]
    assert "checkpointBudgetMiB" in client.output()


def test_an_edit_starts_the_history_again(client):
    client.start(DIVERGENT, breakpoints=[16], args=TWO_GROUPS)
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    client.request("setVariable", {"variablesReference": _scope_ref(client, frame, "Registers"),
                                   "name": "r2", "value": "1"})
    back = go(client, "stepBack", stop)
    assert "nothing earlier" in back["description"] and "edited" in back["description"]


def test_stop_at_a_findings_moment_shows_its_lanes(client):
    client.start(DIVERGENT, args=TWO_GROUPS,
                 stopAt={"line": 15, "threads": [7], "occurrence": "last",
                         "reason": "the last increment of thread 7"})
    stop = client.stopped()
    assert stop["reason"] == "goto" and "thread 7" in stop["description"]
    assert stop["threadId"] == 2                      # thread 7 = wave 1, lane 3
    frame = client.top_frame(stop["threadId"])
    assert frame["line"] == 16 and where(client, stop)[2] == ["0", "1", "2", "2"]
    focus = client.scope(frame["id"], "Finding lanes")
    assert [(v["name"], v["value"]) for v in focus] == [("thread 7", "wave 1, lane 3 (active)")]
    regs = client.request("variables", {"variablesReference": focus[0]["variablesReference"]})
    assert {v["name"]: v["value"] for v in regs["body"]["variables"]}["r0"] == "3"
    back = go(client, "stepBack", stop)               # the history was recorded on the way
    assert client.top_frame(back["threadId"])["line"] == 15


def test_stop_at_a_step_or_an_error(client):
    client.start(DIVERGENT, args=TWO_GROUPS, stopAt={"workgroup": [1, 0, 0], "step": 3})
    stop = client.stopped()
    assert stop["threadId"] == 3 and "step 3 of workgroup (1,0,0)" in stop["description"]
    other = DapClient(cwd=ROOT)
    try:
        other.start(OOB, stopAt={"error": True, "threads": [1]})
        error = other.stopped()
        assert error["reason"] == "exception" and "out of bounds" in error["text"].lower()
    finally:
        other.close()


def test_a_malformed_stop_at_fails_the_launch(client):
    response = client.start(DIVERGENT, stopAt={"line": -1})
    assert not response["success"] and "stopAt.line" in response["message"]


def test_stop_at_the_last_write_of_a_word(client):
    client.start(BLOCK_SUM, args=["--grid", "2,1,1", "--wave-width", "32", "--dump-u32",
                                  "1024:2"],
                 stopAt={"address": 1028, "threads": [64], "reason": "the wrong total"})
    stop = client.stopped()
    assert stop["reason"] == "goto" and "the wrong total" in stop["description"]
    assert stop["threadId"] == 3                      # workgroup 1, wave 0 (thread 64)
    assert client.top_frame(stop["threadId"])["line"] == 38        # just after the store
    total = client.request("readMemory", {"memoryReference": "device", "offset": 1028,
                                          "count": 4})["body"]["data"]
    assert total == "4BcAAA=="                                      # 6112, little-endian


def test_stop_at_lanes_given_as_wave_and_lane_pairs(client):
    client.start(DIVERGENT, args=TWO_GROUPS,
                 stopAt={"workgroup": [1, 0, 0], "line": 15, "lanes": [[0, 2], [1, 3]],
                         "reason": "uninitialised read"})
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    assert stop["threadId"] == 3 and frame["line"] == 16
    focus = client.scope(frame["id"], "Finding lanes")
    assert [v["name"] for v in focus] == ["thread 10", "thread 15"]


def test_stop_at_a_barrier_error_then_step_back_before_it(client):
    client.start(KERNELS / "divergent_barrier.wave",
                 stopAt={"error": True, "lanes": [[0, 0], [0, 1]], "reason": "the barrier"})
    error = client.stopped()
    assert error["reason"] == "exception" and "barrier" in error["text"].lower()
    back = go(client, "stepBack", error)
    assert back["reason"] == "step" and client.top_frame(back["threadId"])["line"] < 10


def test_stop_at_the_first_of_two_accesses_each_by_its_own_thread(client):
    """A `wave-lsp verify` witness: thread 31 (wave 0) loads at line 13, thread 32 (wave 1)
    stores at line 11. The workgroup runs its waves together: the store comes first, and the
    wave shown is thread 32's, whose access it is (not thread 31's, first in `threads`)."""
    client.start(ROOT / "tests" / "verify" / "corpus" / "missing_barrier.wave",
                 stopAt={"threads": [31, 32], "lines": [12, 10], "reason": "the race"})
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    assert (stop["threadId"], frame["line"]) == (2, 11), (stop, frame)
    focus = client.scope(frame["id"], "Finding lanes")
    assert [v["name"] for v in focus] == ["thread 31", "thread 32"]
    other = DapClient(cwd=ROOT)
    try:
        response = other.start(DIVERGENT, stopAt={"threads": [1, 2], "lines": [3]})
        assert not response["success"] and "stopAt.lines" in response["message"]
    finally:
        other.close()
