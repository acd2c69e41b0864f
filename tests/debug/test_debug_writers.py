"""Who wrote a register lane, in the real debug adapter's Variables view (`debug.provenance`):
each lane of a register expands to the write that made its value now and where that
instruction's operands came from, down to the launch's inputs; it follows the session's steps."""

from __future__ import annotations

import pytest

from conftest import ROOT
from dap_client import DapClient

KERNEL = ROOT / "tests" / "debug" / "kernels" / "float_load.wave"
ARGS = ["--grid", "2,1,1", "--workgroup", "4,1,1", "--wave-width", "4",
        "--fill-iota", "0:f32:4:1"]
INSIDE = 12          # 0-based: the iadd inside the `if`


@pytest.fixture
def client():
    c = DapClient(cwd=ROOT)
    yield c
    c.close()


def lane_writer(client, frame_id: int, register: str, lane: int) -> list[tuple[str, str]]:
    registers = {v["name"]: v for v in client.scope(frame_id, "Registers")}
    lanes = client.request("variables", {"variablesReference": registers[register][
        "variablesReference"]})["body"]["variables"]
    children = client.request("variables", {"variablesReference": lanes[lane][
        "variablesReference"]})["body"]["variables"]
    return [(v["name"], v["value"]) for v in children]


def test_a_lane_expands_to_its_writer_and_inputs(client):
    client.start(KERNEL, breakpoints=[INSIDE + 1], args=ARGS)
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    assert lane_writer(client, frame["id"], "r3", 1) == [
        ("written by", "line 9, thread 1, step 3 ← device_load_u32 r3, r1"),
        ("r1", "0x4 from line 8, thread 1, step 2 ← imul r1, r0, r2"),
        ("device[0x4]", "0x3f800000 from --fill-iota 0:f32:4:1")]
    assert lane_writer(client, frame["id"], "r5", 0) == [
        ("written by", "r5 zeroed at launch")]       # the iadd has not run yet
    client.request("next", {"threadId": stop["threadId"]})
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    assert lane_writer(client, frame["id"], "r5", 1)[0] == (
        "written by", "line 13, thread 1, step 7 ← iadd r5, r0, r0")
    client.request("continue", {"threadId": stop["threadId"]})      # the second workgroup
    client.finish(client.stopped()["threadId"])


def test_the_second_workgroup_names_its_own_threads(client):
    client.start(KERNEL, breakpoints=[INSIDE + 1], args=ARGS)
    stop = client.stopped()
    client.request("continue", {"threadId": stop["threadId"]})
    stop = client.stopped()
    frame = client.top_frame(stop["threadId"])
    assert lane_writer(client, frame["id"], "r1", 1)[0] == (
        "written by", "line 8, thread 5, step 2 ← imul r1, r0, r2")
    client.finish(stop["threadId"])
