"""The TCP and WebSocket transports, on 127.0.0.1 only: TCP frames as stdio
does (any header case, optional space, malformed lengths answered with a parse error and the
session going on); one client per server: a second connection is refused with a message and
can neither take the session over nor end the server; a WebSocket message of several
megabytes (a 1.1 MB document) is read; the server ends when its client does."""

from __future__ import annotations

import json

import pytest

from .netclient import HOVER, NetServer, TcpPeer, ws_connect, ws_send, ws_until
from .rawclient import INIT_PARAMS, frame


def serving(transport: str, tmp_path, port: int):
    server = NetServer(transport, port, tmp_path / "cache")
    server.wait_listening()
    yield server
    server.close()


@pytest.fixture
def tcp(tmp_path, unused_tcp_port):
    yield from serving("tcp", tmp_path, unused_tcp_port)


@pytest.fixture
def ws(tmp_path, unused_tcp_port):
    yield from serving("ws", tmp_path, unused_tcp_port)


def ping(msg_id) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover",
                       "params": HOVER}).encode()


@pytest.mark.parametrize("case", ["lower-case", "no-space", "not-a-number", "negative",
                                  "too-long", "too-short", "huge", "not-json"])
def test_tcp_frames_as_stdio_does(tcp, case):
    peer = TcpPeer(tcp.address)
    try:
        peer.initialize()
        body = ping(1)
        data = {"lower-case": frame(body, b"content-length: %d\r\n\r\n" % len(body)),
                "no-space": frame(body, b"Content-Length:%d\r\n\r\n" % len(body)),
                "not-a-number": frame(body, b"Content-Length: ten\r\n\r\n"),
                "negative": frame(body, b"Content-Length: -1\r\n\r\n"),
                "too-long": frame(body, b"Content-Length: %d\r\n\r\n" % (len(body) + 1)),
                "too-short": frame(body, b"Content-Length: %d\r\n\r\n" % (len(body) - 1)),
                "huge": frame(body, b"Content-Length: 99999999999\r\n\r\n"),
                "not-json": frame(b"{oops")}[case]
        peer.send(data)
        peer.still_answers(2)
        if case in ("lower-case", "no-space"):
            assert any(m.get("id") == 1 and "result" in m for m in peer.seen)
        else:
            assert [m["error"]["code"] for m in peer.seen
                    if "error" in m and m.get("id") is None][:1] == [-32700], peer.seen
    finally:
        peer.close()


def test_tcp_refuses_a_second_client_and_ends_with_its_client(tcp):
    first = TcpPeer(tcp.address)
    first.initialize()
    intruder = TcpPeer(tcp.address)
    refusal = intruder.next()
    assert refusal["method"] == "window/showMessage"
    assert "already has a client" in refusal["params"]["message"]
    assert intruder.closed.wait(30)
    # a third one initializes and leaves with exit: it is refused too, and ends nothing
    third = TcpPeer(tcp.address)
    third.initialize_sent = third.request(0, "initialize", INIT_PARAMS)
    third.notify("exit")
    assert third.next()["method"] == "window/showMessage"
    third.close()
    first.still_answers(1)          # the first client keeps its session
    assert tcp.proc.poll() is None
    first.request(2, "shutdown")
    first.response(2)
    first.notify("exit")
    assert tcp.proc.wait(30) == 0, tcp.stderr()


def test_websocket_reads_a_large_document_and_refuses_a_second_client(ws):
    text = ".kernel k\n.registers 4\n" + "    iadd r1, r2, r3 ; padding padding\n" * 30_000 \
        + "    halt\n.end\n"
    assert len(text) > 1_100_000
    uri = "file:///tmp/big.wave"
    with ws_connect(ws.address) as first:
        ws_send(first, {"id": 1, "method": "initialize", "params": INIT_PARAMS})
        assert "capabilities" in ws_until(first, lambda m: m.get("id") == 1)["result"]
        ws_send(first, {"method": "initialized", "params": {}})
        ws_send(first, {"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "wave", "version": 1, "text": text}}})
        with ws_connect(ws.address) as intruder:
            refusal = json.loads(intruder.recv(timeout=30))
            assert "already has a client" in refusal["params"]["message"]
            from websockets.exceptions import ConnectionClosed
            with pytest.raises(ConnectionClosed) as closed:
                intruder.recv(timeout=30)
            assert closed.value.rcvd.code == 1013
        ws_send(first, {"id": 2, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": uri}, "position": {"line": 30_002, "character": 5}}})
        assert "halt" in json.dumps(ws_until(first, lambda m: m.get("id") == 2,
                                             timeout=120)["result"])
        ws_send(first, {"id": 3, "method": "shutdown"})
        ws_until(first, lambda m: m.get("id") == 3)
        ws_send(first, {"method": "exit"})
    assert ws.proc.wait(30) == 0, ws.stderr()


def test_websocket_session_survives_bad_messages(ws):
    with ws_connect(ws.address) as client:
        ws_send(client, {"id": 1, "method": "initialize", "params": INIT_PARAMS})
        ws_until(client, lambda m: m.get("id") == 1)
        client.send("{not json")
        client.send("[" * 100_000)
        error = ws_until(client, lambda m: "error" in m)
        assert error["error"]["code"] == -32700
        ws_send(client, {"id": 2, "method": "textDocument/hover", "params": HOVER})
        assert "result" in ws_until(client, lambda m: m.get("id") == 2)
