"""The debug adapter's framing, through the real `wave-lsp debug` subprocess:
malformed frames and bodies (bad, huge, negative, missing or off-by-one lengths, a 50 MB header
line, 100,000-deep JSON, invalid UTF-8) are reported in an `output` event and skipped, and the
next request is answered; requests whose `command` or `arguments` have the wrong type get an
error response. The adapter never dies and never goes deaf."""

from __future__ import annotations

import json
import threading

import pytest

from dap_client import DapClient
from conftest import ROOT
from server.rawclient import frame

INITIALIZE = {"type": "request", "command": "initialize",
              "arguments": {"adapterID": "wave", "linesStartAt1": True}}


@pytest.fixture
def client():
    c = DapClient(cwd=ROOT)
    yield c
    c.close()


def still_answers(client: DapClient) -> None:
    """A well-formed request, sent right behind, is answered, and the adapter lives on."""
    seq = client.send_message(INITIALIZE)
    answer = client.response(seq, timeout=30)
    assert answer["success"] and answer["command"] == "initialize", answer
    assert "supportsConfigurationDoneRequest" in answer["body"]
    assert client.proc.poll() is None


def request_bytes(seq: int) -> bytes:
    return json.dumps({"seq": seq, "type": "request", "command": "threads"}).encode()


@pytest.mark.parametrize("case", [
    "negative", "minus-one", "huge", "not-a-number", "missing", "too-short", "too-long",
    "not-json", "deep-json", "not-an-object", "bad-utf8", "junk"])
def test_a_malformed_frame_is_reported_and_skipped(client, case):
    body = request_bytes(900)
    data = {
        "negative": frame(body, b"Content-Length: -5\r\n\r\n"),
        "minus-one": frame(body, b"Content-Length: -1\r\n\r\n"),
        "huge": frame(body, b"Content-Length: 99999999999999999999\r\n\r\n"),
        "not-a-number": frame(body, b"Content-Length: twelve\r\n\r\n"),
        "missing": frame(body, b"Content-Type: application/json\r\n\r\n"),
        "too-short": frame(body, b"Content-Length: %d\r\n\r\n" % (len(body) - 1)),
        "too-long": frame(body, b"Content-Length: %d\r\n\r\n" % (len(body) + 1)),
        "not-json": frame(b"{not json"),
        "deep-json": frame(b"[" * 100_000 + b"]" * 100_000),
        "not-an-object": frame(b"[1, 2, 3]"),
        "bad-utf8": frame(b'{"seq": 900, "type": "request", "command": "\xff\xfe"}'),
        "junk": b"\x00\x01 hello\r\n\r\n",
    }[case]
    client.send_raw(data)
    still_answers(client)
    assert "wave-lsp debug: protocol error" in client.output()
    assert 900 not in client.responses      # the broken request itself is not answered


def test_a_50_megabyte_header_line_is_dropped(client):
    junk = b"X-Junk: " + b"a" * (50 << 20)
    writer = threading.Thread(target=client.send_raw, args=(junk + b"\r\n\r\n",))
    writer.start()
    writer.join(120)
    still_answers(client)
    assert "no message header in the input" in client.output()


def test_many_malformed_frames_in_one_write_leave_it_listening(client):
    body = request_bytes(901)
    data = b"".join([frame(body, b"Content-Length: -1\r\n\r\n"), b"garbage\r\n",
                     frame(body, b"Content-Length: x\r\n\r\n"),
                     frame(body, b"content-length:%d\r\n\r\n" % (len(body) + 3)),
                     frame(b"[" * 50_000)])
    client.send_raw(data)
    still_answers(client)


def test_a_command_that_is_not_a_name_gets_an_error_response(client):
    for command in [5, None, ["initialize"], {"a": 1}, True, "", "a b", "__init__"]:
        seq = client.send_message({"type": "request", "command": command})
        answer = client.response(seq)
        assert answer["success"] is False and answer["request_seq"] == seq
        assert "'command' must be a request name" in answer["message"] \
            or "unsupported request" in answer["message"], answer
        still_answers(client)


def test_arguments_that_are_not_an_object_get_an_error_response(client):
    for command in ["initialize", "launch", "setBreakpoints", "evaluate", "disassemble",
                    "restart", "variables"]:
        for arguments in [[1, 2], "text", 7, True]:
            seq = client.send_message({"type": "request", "command": command,
                                       "arguments": arguments})
            answer = client.response(seq)
            assert answer["success"] is False, answer
            assert answer["message"].startswith(
                f"the arguments of '{command}' must be an object"), answer
    still_answers(client)


def test_a_request_with_a_seq_of_the_wrong_type_is_answered_with_request_seq_0(client):
    client.send_raw(frame({"seq": "one", "type": "request", "command": 3}))
    seq = client.send_message(INITIALIZE)
    assert client.response(seq)["success"]
    assert client.response(0)["success"] is False
