"""The warm debug adapter, `wave-lsp debug --server`, the real process: it announces where it
listens, serves whole sessions one after another and side by side with nothing carried from one
to the next (a finding's moment, breakpoints, a run error, a malformed frame), survives a client
that vanishes mid-session, and exits (removing its socket) when its stdin ends."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import threading

import pytest

from conftest import ROOT
from dap_client import DapClient, WarmAdapter
from tests.forkserver import wave_lsp_argv
from wave_lsp.debug import listener

DIVERGENT = ROOT / "examples" / "divergent_break.wave"
TWO_GROUPS = ["--workgroup", "8,1,1", "--grid", "2,1,1", "--wave-width", "4",
              "--dump-u32", "0:8"]
OOB = ROOT / "tests" / "debug" / "kernels" / "out_of_bounds.wave"


def Server(*flags: str) -> WarmAdapter:
    return WarmAdapter(*flags, cwd=ROOT)


@pytest.fixture
def server():
    s = Server()
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def moment(client: DapClient) -> dict:
    """A finding's moment (the last increment of thread 7); returns its focus scope's rows."""
    client.start(DIVERGENT, args=TWO_GROUPS,
                 stopAt={"line": 15, "threads": [7], "occurrence": "last", "reason": "thread 7"})
    stop = client.stopped()
    assert stop["reason"] == "goto" and stop["threadId"] == 2, stop
    frame = client.top_frame(stop["threadId"])
    assert frame["line"] == 16
    return {v["name"]: v["value"] for v in client.scope(frame["id"], "Finding lanes")}


def test_sessions_one_after_another_start_afresh(server):
    if os.name == "posix":
        assert "socket" in server.where
        assert os.stat(os.path.dirname(server.where["socket"])).st_mode & 0o077 == 0
    for _ in range(2):
        client = server.connect()
        assert moment(client) == {"thread 7": "wave 1, lane 3 (active)"}
        client.close()
    client = server.connect()                  # a plain launch after a moment: its breakpoint
    client.start(DIVERGENT, breakpoints=[16], args=TWO_GROUPS[:4])
    stop = client.stopped()
    assert stop["reason"] == "breakpoint" and client.top_frame(stop["threadId"])["line"] == 16
    assert "Finding lanes" not in [s["name"] for s in client.request(
        "scopes", {"frameId": client.top_frame(stop["threadId"])["id"]})["body"]["scopes"]]
    client.close()
    client = server.connect()                  # a run error, with a malformed frame first
    client.send_raw(b"Content-Length: 3\r\n\r\n{x}")
    client.start(OOB, stopAt={"error": True, "threads": [1]})
    assert client.stopped()["reason"] == "exception"
    assert "protocol error" in client.output()
    client.close()
    folder = os.path.dirname(server.where["socket"]) if "socket" in server.where else None
    assert server.stop() == 0
    assert folder is None or not os.path.exists(folder)


def test_sessions_side_by_side_and_a_vanished_client(server):
    gone = server.connect()                    # launched, then the editor vanishes
    gone.start(DIVERGENT, args=TWO_GROUPS, stop_on_entry=True)
    gone.stopped()
    gone.connection.close()
    found: list[dict] = []

    def one() -> None:
        client = server.connect()
        try:
            found.append(moment(client))
        finally:
            client.close()

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert found == [{"thread 7": "wave 1, lane 3 (active)"}] * 2
    assert server.proc.poll() is None
    assert server.stop() == 0


def test_tcp_on_the_loopback_and_bad_flags():
    server = Server("--port", "0")
    try:
        assert set(server.where) == {"port"} and server.where["port"] > 0
        client = server.connect()
        assert moment(client) == {"thread 7": "wave 1, lane 3 (active)"}
        client.close()
        assert server.stop() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    for flags, message in ((["--port", "70000"], "a port is a number"),
                           (["--port", "5"], "--port needs --server")):
        done = subprocess.run(wave_lsp_argv("debug", *flags), cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and message in done.stderr
        assert "Traceback" not in done.stderr


def test_a_sigterm_during_the_cleanup_still_removes_the_socket(monkeypatch):
    """An exiting editor ends the adapter's stdin and sends SIGTERM at once: the signal comes
    while the adapter cleans up after the end of its stdin (here: as it removes its folder)."""
    removing, real = [], shutil.rmtree

    def rmtree(path, **kwargs):
        if not removing:
            removing.append(path)
            os.kill(os.getpid(), signal.SIGTERM)
        return real(path, **kwargs)

    monkeypatch.setattr(listener.shutil, "rmtree", rmtree)
    out, saved = io.StringIO(), signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit):
            listener.listen(None, stdin=io.BytesIO(b""), stdout=out)
    finally:
        signal.signal(signal.SIGTERM, saved)
    folder = os.path.dirname(json.loads(out.getvalue())["socket"])
    assert removing == [folder] and not os.path.exists(folder)
