"""A launch line that would run for days: the editor caps its limits, an edit,
`wave-lsp.clear` or `didClose` stops the run, another document's run is answered meanwhile,
`shutdown` answers while the command is pending and `exit` ends the process; a settling that
changes nothing a run computes does not cancel it. The tests under the most the settings allow
share one server (`unlimited`), each with documents and request ids of its own."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator

import pytest

from .rawclient import INIT_PARAMS, Fresh, RawClient, SharedServers, frame

HUGE = (".kernel k\n; wave-lsp run: --grid 4294967295,1,1 --max-instructions 0 "
        "--time-limit 604800\n.registers 4\n    mov_sr r0, sr_lane_id\n    halt\n.end\n")
SMALL = ".kernel s\n.registers 4\n    mov_imm r1, 5\n    halt\n.end\n"
UNLIMITED = {"run": {"maxInstructions": 0, "timeLimitMs": 600_000}}   # the most settings allow


def start(tmp_path, options: dict | None = None) -> RawClient:
    client = RawClient(tmp_path)
    client.seen = []
    client.request(0, "initialize", {**INIT_PARAMS, "initializationOptions": options or {}})
    client.response(0)
    client.notify("initialized", {})
    return client


def answer(client: RawClient, msg_id: int | str, timeout: float = 20) -> dict:
    """The response to `msg_id`, also when it came while waiting for another."""
    for message in client.seen:
        if message.get("id") == msg_id and "method" not in message:
            return message
    return client.response(msg_id, timeout)


def open_doc(client: RawClient, uri: str, text: str) -> None:
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "wave", "version": 1, "text": text}})


def run(client: RawClient, msg_id: int | str, uri: str, kernel: str) -> None:
    client.request(msg_id, "workspace/executeCommand",
                   {"command": "wave-lsp.run", "arguments": [uri, kernel, None]})


def close_doc(client: RawClient, uri: str) -> None:
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


@contextmanager
def unlimited_session(servers: SharedServers) -> Iterator[tuple[RawClient, Fresh, str, str]]:
    """The shared server under `UNLIMITED`, this test's names, and its HUGE and SMALL documents
    (open; closed at the end)."""
    names = Fresh()
    huge, small = names.uri("huge"), names.uri("small")
    with servers.session("unlimited", UNLIMITED) as client:
        open_doc(client, huge, HUGE)
        open_doc(client, small, SMALL)
        yield client, names, huge, small
        close_doc(client, huge)
        close_doc(client, small)


@pytest.fixture(scope="module")
def servers(tmp_path_factory) -> Iterator[SharedServers]:
    started = SharedServers(tmp_path_factory.mktemp, start)
    yield started
    started.close()


def test_closing_the_document_stops_its_run_and_others_are_answered(servers):
    with unlimited_session(servers) as (client, names, huge, small):
        run(client, names.id(1), huge, "k")
        time.sleep(1.0)
        close_doc(client, huge)
        run(client, names.id(2), small, "s")
        assert answer(client, names.id(2))["result"]["status"] == "ok"
        assert answer(client, names.id(1))["result"]["status"] == "cancelled"


def test_clear_stops_the_run(servers):
    with unlimited_session(servers) as (client, names, huge, _small):
        run(client, names.id(1), huge, "k")
        time.sleep(1.0)
        client.request(names.id(2), "workspace/executeCommand",
                       {"command": "wave-lsp.clear", "arguments": [huge]})
        assert answer(client, names.id(2))["result"]["cleared"] == ["k"]
        assert answer(client, names.id(1))["result"]["status"] == "cancelled"


def test_a_launch_line_cannot_raise_the_editors_limits(tmp_path):
    client = start(tmp_path, {"run": {"maxInstructions": 0, "timeLimitMs": 1000}})
    try:
        open_doc(client, "file:///tmp/huge.wave", HUGE)
        run(client, 1, "file:///tmp/huge.wave", "k")
        result = answer(client, 1, timeout=30)["result"]
        assert result["status"] == "error" and result["errors"][0]["kind"] == "time_limit"
    finally:
        client.close()


def test_shutdown_answers_and_exit_ends_while_a_run_is_pending(tmp_path):
    client = start(tmp_path, UNLIMITED)
    try:
        open_doc(client, "file:///tmp/huge.wave", HUGE)
        run(client, 1, "file:///tmp/huge.wave", "k")
        time.sleep(1.0)
        client.request(2, "shutdown")
        assert "error" not in answer(client, 2, timeout=10)
        client.notify("exit")
        assert client.wait(timeout=15) == 0
    finally:
        client.close()


def test_an_edit_stops_the_run(servers):
    with unlimited_session(servers) as (client, names, huge, _small):
        run(client, names.id(1), huge, "k")
        time.sleep(1.0)
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": huge, "version": 2},
            "contentChanges": [{"range": {"start": {"line": 5, "character": 0},
                                          "end": {"line": 5, "character": 0}},
                                "text": "; edited\n"}]})
        assert answer(client, names.id(1))["result"]["status"] == "cancelled"


# ---- a settling at the revision a Run is running does not cancel it -----------------------------
LONG = ("; wave-lsp run: --grid 30000,1,1 --workgroup 64,1,1\n.kernel k\n.registers 8\n"
        "    mov_sr  r0, sr_thread_id_x\n    cvt_f32_u32 r1, r0\n    mov_imm r2, 3.0\n"
        "    fdiv    r3, r1, r2\n    halt\n.end\n")


def test_a_settling_of_the_same_revision_does_not_cancel_a_run(tmp_path):
    """A Run right after the document opened can meet that open's settling, or the settling
    after the client's configuration came (Neovim, VS Code: the reply to the server's
    `workspace/configuration` often comes after the first Run). Neither changes what the run
    computes, so neither cancels it: the Run answers its result and the next inlay hints show
    it. Here `didChangeConfiguration` with unchanged settings comes in the Run's own write."""
    raw = RawClient(tmp_path / "cache")
    try:
        raw.initialize()
        uri = "file:///tmp/settle-during-run.wave"
        raw.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "wave", "version": 1, "text": LONG}})
        raw.request(1, "textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        raw.response(1)                 # the open settled
        started = time.monotonic()
        raw.send(frame({"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
                        "params": {"command": "wave-lsp.run", "arguments": [uri, "k", None]}})
                 + frame({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                          "params": {"settings": {}}}))
        answer = raw.response(2, timeout=120)
        took = time.monotonic() - started
        assert answer["result"]["status"] == "ok", answer["result"].get("message")
        raw.request(3, "textDocument/inlayHint", {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}})
        hints = [h["label"] for h in raw.response(3)["result"]]
        assert hints and hints[0].startswith("r0 = 0, 1, 2"), (hints, took)
        raw.request(4, "shutdown")
        raw.response(4)
        raw.notify("exit")
        assert raw.wait() == 0
    finally:
        raw.close()


COUNT = (".kernel count\n; wave-lsp run: --workgroup 1,1,1 --max-instructions 0\n.registers 4\n"
         "    mov_imm r0, 0\n    mov_imm r1, 1\n    mov_imm r2, 2000\n    loop\n"
         "        iadd r0, r0, r1\n        icmp_eq p1, r0, r2\n        break p1\n    endloop\n    halt\n.end\n")


def test_new_limits_in_the_settings_run_a_live_kernel_again(tmp_path):
    """A setting that changes what a run computes (its limits) does re-run a live kernel at the
    same revision: the limit error of the first run goes when the limit is raised."""
    client = start(tmp_path, {"run": {"maxInstructions": 1000}})
    try:
        uri = "file:///tmp/count-limits.wave"
        open_doc(client, uri, COUNT)
        run(client, 1, uri, "count")
        first = answer(client, 1)["result"]
        assert first["status"] == "error" and "limit" in first["message"], first
        client.notify("workspace/didChangeConfiguration",
                      {"settings": {"run": {"maxInstructions": 100_000}}})
        deadline = time.monotonic() + 30
        while True:     # the loop line's hint: all 2,000 trips (the limit cut it short first)
            client.request(3, "textDocument/inlayHint", {
                "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0},
                                                        "end": {"line": 99, "character": 0}}})
            hints = [h["label"] for h in answer(client, 3)["result"]]
            client.seen.clear()
            if any(label.startswith("r0 = ") and label.endswith("×2,000") for label in hints):
                break
            assert time.monotonic() < deadline, hints
            time.sleep(0.2)
    finally:
        client.close()
