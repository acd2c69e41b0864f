"""Every request gets exactly one answer: its result, an error, `RequestCancelled` (-32800) after
a `$/cancelRequest`, or `ContentModified` (-32801) when edits kept superseding its work (what
rust-analyzer guarantees its clients). A client that waits for an answer that never comes hangs.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from lsprotocol import types as t
from pygls.workspace import Workspace

from wave_lsp.server import transport
from wave_lsp.server.handlers import request
from wave_lsp.server.server import create_server

from .rawclient import RawClient
from .test_isolation import Capture

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from corpus import distinct_source  # noqa: E402

URI = "file:///tmp/wave-lsp-tests/answers.wave"
REQUEST_CANCELLED, CONTENT_MODIFIED, INTERNAL_ERROR = -32800, -32801, -32603


def in_process_server():
    server = create_server()
    sink = Capture()
    server.protocol.set_writer(sink)
    server.protocol._workspace = Workspace(None, position_encoding=t.PositionEncodingKind.Utf16)
    return server, sink


def test_a_result_that_cannot_be_encoded_is_answered_with_an_error():
    server, sink = in_process_server()

    @request(server, "wave-lsp/test/unencodable")
    def unencodable(_params):
        return {"not json": object()}

    async def main() -> None:
        server.protocol.handle_message(server.protocol.structure_message(
            {"jsonrpc": "2.0", "id": 7, "method": "wave-lsp/test/unencodable", "params": {}}))
        for _ in range(100):
            if any(m.get("id") == 7 for m in sink.messages):
                return
            await asyncio.sleep(0.01)

    asyncio.run(main())
    answers = [m for m in sink.messages if m.get("id") == 7]
    assert len(answers) == 1 and answers[0]["error"]["code"] == INTERNAL_ERROR
    assert "could not be encoded" in answers[0]["error"]["message"]


def test_a_request_whose_dispatch_fails_is_answered_with_an_error(monkeypatch):
    server, sink = in_process_server()

    def broken(_message):
        raise RuntimeError("injected dispatch failure")

    monkeypatch.setattr(server.protocol, "handle_message", broken)
    session = transport.Session(server.protocol)
    session.initialized = True
    session.handle_body(json.dumps({"jsonrpc": "2.0", "id": "d1", "method": "textDocument/hover",
                                    "params": {"textDocument": {"uri": URI},
                                               "position": {"line": 0, "character": 0}}}).encode())
    session.handle_body(json.dumps({"jsonrpc": "2.0", "method": "initialized",
                                    "params": {}}).encode())  # a notification: nothing to answer
    assert [(m["id"], m["error"]["code"]) for m in sink.messages] == [("d1", INTERNAL_ERROR)]
    assert "injected dispatch failure" in sink.messages[0]["error"]["message"]


def test_requests_racing_edits_and_cancels_all_get_one_answer(tmp_path):
    """A large document (parsed and analysed in the workers) is edited while requests of every
    kind arrive, and half of them are cancelled: each one is answered exactly once."""
    text = distinct_source(6_000, seed=41)
    raw = RawClient(tmp_path / "cache")
    try:
        raw.initialize()
        raw.notify("textDocument/didOpen", {"textDocument": {
            "uri": URI, "languageId": "wave", "version": 1, "text": text}})
        doc = {"textDocument": {"uri": URI}}
        at = dict(doc, position={"line": 3, "character": 5})
        raw.request("parsed", "textDocument/hover", at)     # the racing starts once it is
        assert "result" in raw.response("parsed")
        whole = dict(doc, range={"start": {"line": 0, "character": 0},
                                 "end": {"line": 6_000, "character": 0}})
        kinds = [("textDocument/hover", at), ("textDocument/completion", at),
                 ("textDocument/formatting", dict(doc, options={"tabSize": 4,
                                                                "insertSpaces": True})),
                 ("textDocument/semanticTokens/full", doc),
                 ("textDocument/documentSymbol", doc), ("textDocument/foldingRange", doc),
                 ("textDocument/inlayHint", whole), ("textDocument/codeLens", doc),
                 ("textDocument/codeAction", dict(whole, context={"diagnostics": []})),
                 ("textDocument/selectionRange", dict(doc, positions=[at["position"]])),
                 ("textDocument/documentHighlight", at), ("textDocument/definition", at)]
        sent = []
        version = 1
        for n in range(48):
            method, params = kinds[n % len(kinds)]
            msg_id = f"r{n}"
            raw.request(msg_id, method, params)
            sent.append(msg_id)
            if n % 3 == 1:
                raw.notify("$/cancelRequest", {"id": msg_id})
            if n % 2 == 1:
                version += 1
                raw.notify("textDocument/didChange", {
                    "textDocument": {"uri": URI, "version": version},
                    "contentChanges": [{"range": {"start": {"line": 2, "character": 0},
                                                  "end": {"line": 2, "character": 0}},
                                        "text": f"    ; edit {version}\n"}]})
            if n % 8 == 7:
                time.sleep(0.02)    # let some of the work start before the next edit
        answers: dict[str, list[dict]] = {}
        deadline = time.monotonic() + 240
        while len(answers) < len(sent):
            message = raw.next(max(0.1, deadline - time.monotonic()))
            assert message is not None, f"the server closed its output; stderr:\n{raw.stderr}"
            if "method" not in message and message.get("id") in sent:
                answers.setdefault(message["id"], []).append(message)
        unanswered = [i for i in sent if i not in answers]
        assert unanswered == []
        for msg_id, got in answers.items():
            assert len(got) == 1, (msg_id, got)
            error = got[0].get("error")
            assert error is None or error["code"] in (REQUEST_CANCELLED, CONTENT_MODIFIED), got
        cancelled = sum(1 for got in answers.values()
                        if (got[0].get("error") or {}).get("code") == REQUEST_CANCELLED)
        assert cancelled >= 1          # the cancels did reach requests still in flight
        raw.request("last", "textDocument/hover", at)        # and the session goes on
        assert "result" in raw.response("last")
        time.sleep(0.3)
        late = [m for m in [raw.messages.get_nowait() for _ in range(raw.messages.qsize())]
                if m and m.get("id") in answers]
        assert late == []              # no second answer came after all
    finally:
        raw.close()
