"""Framing and lifecycle through a raw JSON-RPC client: malformed headers and
bodies get a parse error and never deafen the session; invalid params, requests before
`initialize` and after `shutdown` are answered per the LSP specification; `exit` without
`shutdown` ends the server with status 1. The tests that end no session and send nothing
malformed share one initialized server (`shared`), each with request ids of its own."""

from __future__ import annotations

import json

import pytest

from .rawclient import INIT_PARAMS, Fresh, RawClient, SharedServers, frame

HOVER = {"textDocument": {"uri": "file:///tmp/t.wave"}, "position": {"line": 0, "character": 0}}
SHUTDOWN_REQUEST = {"jsonrpc": "2.0", "id": "bye", "method": "shutdown"}


@pytest.fixture
def raw(tmp_path):
    client = RawClient(tmp_path / "cache")
    yield client
    client.close()


def _initialized(folder) -> RawClient:
    client = RawClient(folder / "cache")
    client.initialize()
    return client


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """The module's initialized server (`servers.session("initialized")`), for the tests that
    leave its session as they found it."""
    started = SharedServers(tmp_path_factory.mktemp, _initialized)
    yield started
    started.close()


def still_answers(raw: RawClient, msg_id) -> None:
    """The session still works: a well-formed request gets its answer."""
    raw.request(msg_id, "textDocument/hover", HOVER)
    answer = raw.response(msg_id)
    assert "result" in answer, answer


def ping(msg_id):
    return {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover", "params": HOVER}


@pytest.mark.parametrize("header", [
    b"content-length: %d\r\n\r\n",                                        # lower case
    b"Content-Length:%d\r\n\r\n",                                         # no space
    b"CONTENT-LENGTH :  %d\r\n\r\n",                                      # spaces around
    b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
])
def test_header_spellings_are_read(servers, header):
    names = Fresh()
    with servers.session("initialized") as shared:
        body = json.dumps(ping(names.id(1))).encode()
        shared.send(frame(body, header % len(body)))
        assert "result" in shared.response(names.id(1))
        still_answers(shared, names.id(2))


@pytest.mark.parametrize("case", ["negative", "missing", "garbage", "too-short", "too-long",
                                  "not-json", "deep-json", "not-an-object", "no-jsonrpc"])
def test_a_malformed_message_is_answered_and_the_session_goes_on(raw, case):
    raw.initialize()
    body = json.dumps(ping(1)).encode()
    data = {
        "negative": frame(body, b"Content-Length: -5\r\n\r\n"),
        "missing": frame(body, b"Content-Type: x\r\n\r\n"),
        "garbage": b"hello there\r\n\r\n",
        "too-short": frame(body, b"Content-Length: %d\r\n\r\n" % (len(body) - 7)),
        "too-long": frame(body, b"Content-Length: %d\r\n\r\n" % (len(body) + 30)),
        "not-json": frame(b"{not json at all"),
        "deep-json": frame(b"[" * 100_000 + b"]" * 100_000),
        "not-an-object": frame(b"[1, 2, 3]"),
        "no-jsonrpc": frame({"id": 7, "method": "textDocument/hover", "params": HOVER}),
    }[case]
    raw.send(data)
    still_answers(raw, 2)  # the next well-formed request, sent right behind, is answered
    if case == "no-jsonrpc":
        assert [m["error"]["code"] for m in raw.seen if m.get("id") == 7] == [-32600]
    elif case == "not-an-object":
        assert [m["error"]["code"] for m in raw.errors_with_null_id()] == [-32600]
    else:
        errors = raw.errors_with_null_id()
        assert errors and {e["error"]["code"] for e in errors} == {-32700}, raw.seen
    if case in ("too-short", "negative", "missing"):  # the broken request is not answered
        assert not [m for m in raw.seen if m.get("id") == 1]
    raw.request("bye", "shutdown")
    raw.response("bye")


def test_invalid_params_get_an_error_response(servers):
    ids = Fresh().id
    rename = {"textDocument": {"uri": "file:///tmp/t.wave"},
              "position": {"line": 0, "character": 0}, "newName": None}
    with servers.session("initialized") as shared:
        shared.request(ids(1), "textDocument/hover",
                       {"textDocument": {"uri": 5}, "position": "x"})
        assert shared.response(ids(1))["error"]["code"] == -32602
        shared.request(ids(2), "textDocument/rename", rename)
        assert shared.response(ids(2))["error"]["code"] == -32602
        shared.request(ids(3), "textDocument/hover", "a string")
        assert shared.response(ids(3))["error"]["code"] == -32602
        still_answers(shared, ids(4))


def test_rename_with_null_name_never_renames_to_none(servers):
    names = Fresh()
    uri = names.uri("r")
    text = ".kernel k\nloop_top:\n    halt\n.end\n"
    at = {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}}
    with servers.session("initialized") as shared:
        shared.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "wave", "version": 1, "text": text}})
        shared.request(names.id(1), "textDocument/rename", {**at, "newName": None})
        answer = shared.response(names.id(1))
        assert "None" not in json.dumps(answer.get("result"))
        assert answer["error"]["code"] == -32602
        shared.request(names.id(2), "textDocument/rename", {**at, "newName": "again"})
        edits = shared.response(names.id(2))["result"]["changes"][uri]
        assert {e["newText"] for e in edits} == {"again"}
        shared.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_requests_before_initialize_get_server_not_initialized(raw):
    raw.seen = []
    raw.request(1, "textDocument/hover", HOVER)
    assert raw.response(1)["error"]["code"] == -32002
    raw.request(2, "shutdown")
    assert raw.response(2)["error"]["code"] == -32002
    raw.notify("textDocument/didOpen", {"textDocument": {
        "uri": "file:///tmp/early.wave", "languageId": "wave", "version": 1, "text": "x"}})
    raw.request(3, "initialize", INIT_PARAMS)
    assert "capabilities" in raw.response(3)["result"]
    raw.request(4, "initialize", INIT_PARAMS)
    assert raw.response(4)["error"]["code"] == -32600  # initialize only once
    raw.notify("initialized", {})
    still_answers(raw, 5)


def test_requests_after_shutdown_get_invalid_request_and_exit_is_0(raw):
    raw.initialize()
    raw.request(1, "shutdown")
    assert raw.response(1)["result"] is None
    raw.request(2, "textDocument/hover", HOVER)
    assert raw.response(2)["error"]["code"] == -32600
    raw.notify("exit")
    assert raw.wait() == 0


def test_exit_without_shutdown_is_status_1(raw):
    raw.initialize()
    still_answers(raw, 1)
    raw.notify("exit")
    assert raw.wait() == 1


def test_exit_before_initialize_is_status_1(raw):
    raw.notify("exit")
    assert raw.wait() == 1


def test_burst_of_junk_then_valid_traffic(raw):
    """Thousands of broken pieces in one write: every valid request among them is answered."""
    import random

    raw.initialize()
    rng = random.Random(8)
    data, expected = b"", []
    for i in range(300):
        body = json.dumps(ping(100 + i)).encode()
        kind = rng.randrange(6)
        if kind == 0:
            data += frame(body)
            expected.append(100 + i)
        elif kind == 1:
            data += bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
        elif kind == 2:
            data += frame(body, b"Content-Length: %d\r\n\r\n" % (len(body) - rng.randrange(1, 9)))
        elif kind == 3:
            data += frame(b"{" + body)
        elif kind == 4:
            data += b"Content-Length: x\r\n\r\n"
        else:
            data += frame(body, b"content-length:%d\r\n\r\n" % len(body))
            expected.append(100 + i)
        data += b"\r\n" if rng.randrange(4) == 0 else b""
    raw.send(data)
    still_answers(raw, "last")
    answered = {m.get("id") for m in raw.seen if "result" in m}
    # every valid message that does not directly follow junk swallowing its header is answered
    assert len(answered & set(expected)) >= len(expected) * 0.8, (len(answered), len(expected))
    raw.send(frame(SHUTDOWN_REQUEST))
    raw.response("bye")
    raw.notify("exit")
    assert raw.wait() == 0


def test_a_fifo_planted_as_the_cached_initialize_answer_is_not_read(tmp_path, monkeypatch):
    """The server's only cache file is read as a regular file of bounded size: a FIFO (or a
    device) planted in its place never blocks the start."""
    import os

    from wave_lsp.server.handshake import cache_path

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = cache_path(INIT_PARAMS)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    client = RawClient(tmp_path / "cache")
    try:
        assert "capabilities" in client.initialize()["result"]
    finally:
        client.close()


def test_websocket_messages_are_bare_json(tmp_path, unused_tcp_port):
    """On a WebSocket each message is one frame of JSON, without the stdio headers: responses
    and the publications the server encodes itself included."""
    import os
    import subprocess
    import sys
    import time

    from websockets.sync.client import connect

    address = f"127.0.0.1:{unused_tcp_port}"
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "wave_lsp", "serve", "--ws", address],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                ws = connect(f"ws://{address}", open_timeout=5)
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
                time.sleep(0.1)
        with ws:
            def send(message: dict) -> None:
                ws.send(json.dumps(dict(message, jsonrpc="2.0")))

            def until(found) -> dict:
                while True:
                    message = json.loads(ws.recv(timeout=60))   # each frame is bare JSON
                    if found(message):
                        return message

            send({"id": 1, "method": "initialize", "params": INIT_PARAMS})
            assert "capabilities" in until(lambda m: m.get("id") == 1)["result"]
            send({"method": "initialized", "params": {}})
            uri = "file:///tmp/ws.wave"
            send({"method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": uri, "languageId": "wave", "version": 1,
                "text": ".kernel k\n    ADD r1, r2, r3\n    halt\n.end\n"}}})
            published = until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
            assert published["params"]["uri"] == uri and published["params"]["diagnostics"]
            send({"id": 2, "method": "textDocument/hover", "params": {
                "textDocument": {"uri": uri}, "position": {"line": 2, "character": 5}}})
            assert "halt" in json.dumps(until(lambda m: m.get("id") == 2)["result"])
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
