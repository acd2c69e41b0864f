"""Debugger inputs, through the real `wave-lsp debug` subprocess: every
request's cost is bounded (64-bit expression arithmetic, bounded expressions, at most 10,000
instructions per `disassemble`) and every argument is checked, so a wrong one gets a message
naming it, never an "internal error" answer or a traceback."""

from __future__ import annotations

import pytest

from dap_client import DapClient
from conftest import ROOT

DIVERGENT = ROOT / "examples" / "divergent_break.wave"
ARGS = ["--workgroup", "8,1,1", "--wave-width", "4", "--dump-u32", "0:8"]
BAD_VALUES = [None, "x", -1, 1 << 70, 1.5, [], {}, True, [1], {"a": 1}, "9" * 5000]


@pytest.fixture
def stopped():
    """A client stopped at the breakpoint on line 16; (client, thread id, frame id)."""
    client = DapClient(cwd=ROOT)
    client.start(DIVERGENT, breakpoints=[16], args=ARGS)
    thread = client.stopped()["threadId"]
    yield client, thread, client.top_frame(thread)["id"]
    client.close()
    stderr = client.proc.stderr.read().decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr


def fails_with(client, command, arguments, text):
    answer = client.request(command, arguments, ok=False, timeout=60)
    assert answer["success"] is False, answer
    assert text in answer["message"], answer["message"]
    assert "internal error" not in answer["message"]


def evaluate(client, frame, expression) -> str:
    return client.request("evaluate", {"expression": expression, "frameId": frame},
                          timeout=60)["body"]["result"]


def test_expressions_are_64_bit_and_wrap(stopped):
    client, _, frame = stopped
    assert evaluate(client, frame, "1 << 100000000") == "0 (all lanes)"
    assert evaluate(client, frame, "(1 << 62) * 8") == "0 (all lanes)"
    assert evaluate(client, frame, "r0 << 64 | r0 >> 99") == "0 (all lanes)"
    assert evaluate(client, frame, "-1 >> 99") == "-1 (all lanes)"
    assert evaluate(client, frame, "(r0 << 2) + 1") == "[1, 5, 9, 13]"
    assert evaluate(client, frame, "0xffffffffffffffff") == "-1 (all lanes)"
    fails_with(client, "evaluate", {"expression": "1" + "0" * 25, "frameId": frame},
               "does not fit in 64 bits")
    fails_with(client, "evaluate", {"expression": "-" * 3000 + "1", "frameId": frame},
               "nested")
    fails_with(client, "evaluate", {"expression": "-(" * 100 + "1" + ")" * 100},
               "nested")
    fails_with(client, "evaluate", {"expression": "1 +" * 3000 + "1"}, "the limit is 4096")
    fails_with(client, "evaluate", {"expression": "r" + "9" * 4000}, "unknown name")
    fails_with(client, "evaluate", {"expression": "1.5 << 2"}, "shifts take integers")


def test_a_costly_condition_never_holds_the_run(tmp_path):
    """A condition with huge shifts and products is evaluated in 64 bits at every hit (before,
    each evaluation took seconds on numbers of millions of bits, and the run minutes): the run
    goes to its end, and `pause` sent meanwhile is answered."""
    client = DapClient(cwd=ROOT)
    try:
        huge = "((1 << 30000000) - 1)"
        client.start(DIVERGENT, breakpoints=[16], args=ARGS,
                     conditions={16: {"condition": f"{huge} * {huge} == 0"}})
        client.request("pause", {"threadId": 1}, timeout=60)
        with client.cond:     # the pause may land before the run ends: then go on
            client.cond.wait_for(lambda: any(e["event"] in ("exited", "stopped")
                                             for e in client.events), 120)
            paused = [e for e in client.events if e["event"] == "stopped"]
        if paused:
            client.request("continue", {"threadId": paused[0]["body"]["threadId"]})
        assert client.wait_event("exited", timeout=120)["body"]["exitCode"] == 0
        assert "0\n1\n2\n3\n" in client.output()
    finally:
        client.close()


def test_disassemble_is_bounded(stopped):
    client, _, _ = stopped
    fails_with(client, "disassemble", {"memoryReference": "0x0", "instructionCount": 3_000_000},
               "'instructionCount' must be an integer from 0 to 10000")
    fails_with(client, "disassemble", {"memoryReference": "0x0", "instructionCount": -1},
               "'instructionCount' must be an integer from 0 to 10000")
    many = client.request("disassemble", {"memoryReference": "0x0", "instructionCount": 10_000,
                                          "instructionOffset": -5000})["body"]["instructions"]
    assert len(many) == 10_000


def test_set_variable_checks_lanes_and_references(stopped):
    client, _, frame = stopped
    registers = client.scope(frame, "Registers")
    r0 = next(v["variablesReference"] for v in registers if v["name"] == "r0")
    before = client.lanes(frame, "r0")
    for name in ("lane -1", "lane 4", "lane 99999", "lane x"):
        fails_with(client, "setVariable", {"variablesReference": r0, "name": name,
                                           "value": "7"}, "is not a lane of this wave")
    # r0's lanes are unchanged: `lane -1` never wrote the last lane
    frame = client.top_frame(client.request("threads")["body"]["threads"][0]["id"])["id"]
    assert client.lanes(frame, "r0") == before
    fails_with(client, "setVariable", {"variablesReference": frame, "name": "r0", "value": "1"},
               "is a stack frame id, not a variables reference")
    fails_with(client, "variables", {"variablesReference": frame},
               "is a stack frame id, not a variables reference")
    fails_with(client, "scopes", {"frameId": r0}, "not a stack frame id")
    fails_with(client, "evaluate", {"expression": "r0", "frameId": r0}, "not a stack frame id")
    fails_with(client, "variables", {"variablesReference": 10 ** 9}, "unknown reference")
    fails_with(client, "writeMemory", {"memoryReference": "device", "data": "!!"},
               "'data' is not base64")


# request -> (good arguments, with "$frame", "$thread" and "$ref" filled in; fields to spoil)
REQUESTS = {
    "initialize": ({"adapterID": "wave", "linesStartAt1": True}, ["linesStartAt1"]),
    "stackTrace": ({"threadId": "$thread", "startFrame": 0, "levels": 1},
                   ["threadId", "startFrame", "levels"]),
    "scopes": ({"frameId": "$frame"}, ["frameId"]),
    "variables": ({"variablesReference": "$ref", "start": 0, "count": 2,
                   "format": {"hex": True}}, ["variablesReference", "start", "count", "format"]),
    "setVariable": ({"variablesReference": "$ref", "name": "lane 1", "value": "5",
                     "format": {"hex": False}}, ["variablesReference", "name", "value",
                                                 "format"]),
    "evaluate": ({"expression": "r0 + 1", "frameId": "$frame", "format": {"hex": True}},
                 ["expression", "frameId", "format"]),
    "readMemory": ({"memoryReference": "device", "offset": 0, "count": 8},
                   ["memoryReference", "offset", "count"]),
    "writeMemory": ({"memoryReference": "device", "offset": 64, "data": "AAAAAA=="},
                    ["memoryReference", "offset", "data"]),
    "disassemble": ({"memoryReference": "0x0", "offset": 0, "instructionOffset": 0,
                     "instructionCount": 4},
                    ["memoryReference", "offset", "instructionOffset", "instructionCount"]),
    "setBreakpoints": ({"source": {"path": str(DIVERGENT)},
                        "breakpoints": [{"line": 16, "condition": "r0 > 9",
                                         "hitCondition": ">1", "logMessage": "x"}]},
                       ["source", "breakpoints", "lines"]),
    "setInstructionBreakpoints": ({"breakpoints": [{"instructionReference": "0x0",
                                                    "offset": 0}]}, ["breakpoints"]),
    "setExceptionBreakpoints": ({"filters": ["memory"]}, ["filters"]),
    "restart": ({"arguments": {"program": str(DIVERGENT), "args": ARGS}}, ["arguments"]),
}
NESTED = {"format": ["hex"], "source": ["path"],
          "breakpoints": ["line", "condition", "hitCondition", "logMessage",
                          "instructionReference", "offset"],
          "arguments": ["program", "args", "kernel", "cwd"]}


def spoiled(good: dict, field: str):
    """Every variant of `good` with `field` (or a field nested in it) set to a bad value."""
    for value in BAD_VALUES:
        yield {**good, field: value}
    inner = good.get(field)
    for name in NESTED.get(field, []):
        for value in BAD_VALUES:
            if isinstance(inner, dict):
                yield {**good, field: {**inner, name: value}}
            elif isinstance(inner, list) and inner:
                yield {**good, field: [{**inner[0], name: value}]}


def test_no_argument_gets_an_internal_error(stopped):
    """Each request, with each of its fields (and the fields of its objects) spoilt in every
    way: an answer (success or a message), never an internal error; the session stays stopped
    and answers on."""
    client, thread, frame = stopped
    messages, sent = set(), 0
    for command in ("continue", "next", "stepIn", "stepOut"):
        for value in ("x", 1.5, [], {}, True, 1 << 70):
            fails_with(client, command, {"threadId": value}, "'threadId' must be an integer")
    for command, (good, fields) in REQUESTS.items():
        if command == "restart":    # the last: a restart that succeeds stops at line 16 again
            client.request("setBreakpoints", {"source": {"path": str(DIVERGENT)},
                                              "breakpoints": [{"line": 16}]})
        registers = client.scope(frame, "Registers")
        fill = {"$thread": thread, "$frame": frame,
                "$ref": next(v["variablesReference"] for v in registers if v["name"] == "r0")}
        good = {k: fill.get(v, v) if isinstance(v, str) else v for k, v in good.items()}
        for field in fields:
            for arguments in spoiled(good, field):
                answer = client.request(command, arguments, ok=False, timeout=60)
                sent += 1
                assert "internal error" not in answer.get("message", ""), (command, arguments,
                                                                           answer)
                if not answer["success"]:
                    messages.add(answer["message"][:50])
                if answer["success"] and command == "restart":
                    stop = client.stopped(timeout=60)
                    thread = stop["threadId"]
                    frame = client.top_frame(thread)["id"]
        threads = client.request("threads")["body"]["threads"]
        assert threads, command
    assert sent > 500 and len(messages) > 30, (sent, sorted(messages))
