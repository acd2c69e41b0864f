"""Handler isolation, in process: a failing feature logs to the client and answers empty."""

from __future__ import annotations

import asyncio
import json

from lsprotocol import types as t
from pygls.workspace import Workspace

from wave_lsp.ide import hover_answer as hover_module
from wave_lsp.server.server import create_server


class Capture:
    """A transport sink: the messages the server writes."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def write(self, data: bytes) -> None:
        body = data.split(b"\r\n\r\n", 1)[-1]
        self.messages.append(json.loads(body))

    def close(self) -> None:
        pass


def test_exception_becomes_log_message_and_empty_result(monkeypatch):
    server = create_server()
    sink = Capture()
    server.protocol.set_writer(sink)
    server.protocol._workspace = Workspace(None, position_encoding=t.PositionEncodingKind.Utf16)
    server.documents.open("file:///x.wave", ".kernel k\n    iadd r1, r2, r3\n.end\n", 1)

    def broken(*_args):
        raise RuntimeError("injected failure")

    monkeypatch.setattr(hover_module, "hover_markdown", broken)
    handler = server.protocol.fm.features[t.TEXT_DOCUMENT_HOVER]
    params = t.HoverParams(text_document=t.TextDocumentIdentifier(uri="file:///x.wave"),
                           position=t.Position(line=1, character=5))
    assert asyncio.run(handler(params)) is None
    logs = [m for m in sink.messages if m.get("method") == t.WINDOW_LOG_MESSAGE]
    assert logs and "injected failure" in logs[0]["params"]["message"]
    assert logs[0]["params"]["type"] == t.MessageType.Error
    # one line to the client; the traceback only in the server's log
    assert "\n" not in logs[0]["params"]["message"]
    assert "Traceback" not in logs[0]["params"]["message"]
