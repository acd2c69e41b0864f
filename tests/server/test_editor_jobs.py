"""The editor's runs are bounded work, through the real server:
`$/cancelRequest` stops a run or a profile (the answer is `RequestCancelled`, and the worker is
free at once), the time limit counts setting a run up as well as the emulation, Runs of the same
kernel asked for at once share one run, and the Run the user clicked goes before waiting dump
windows, which a newer window of the same dump supersedes."""

from __future__ import annotations

import time

import pytest

from .rawclient import RawClient, frame
from .test_runaway_runs import SMALL, answer, open_doc, run, start, unlimited_session
from .test_runaway_runs import servers  # noqa: F401 (the fixture)

# the resident size of the server's own process (the memory test)
pytestmark = pytest.mark.real_server

REQUEST_CANCELLED = -32800

# a loop of 20,000 trips: long enough (a good part of a second) to have requests wait for it;
# run under a generous time limit, so that a loaded machine does not turn it into an error
PATIENT = {"run": {"timeLimitMs": 120_000}}
SLOW = (".kernel slow\n; wave-lsp run: --workgroup 64,1,1 --dump-u32 0:4096\n.registers 8\n"
        "    mov_sr r0, sr_thread_id_x\n    mov_imm r1, 0\n    mov_imm r2, 1\n"
        "    mov_imm r3, 20000\n    loop\n        iadd r1, r1, r2\n"
        "        icmp_eq p1, r1, r3\n        break p1\n    endloop\n"
        "    mov_imm r4, 4\n    imul r5, r0, r4\n    device_store_u32 r5, r1\n    halt\n.end\n")


def cancel(client: RawClient, msg_id) -> None:
    client.notify("$/cancelRequest", {"id": msg_id})


def command(client: RawClient, msg_id, name: str, *arguments) -> None:
    client.request(msg_id, "workspace/executeCommand",
                   {"command": name, "arguments": list(arguments)})


def test_cancelling_a_run_stops_it_and_the_next_run_starts_at_once(servers):
    # the shared server under the most the settings allow: the run would go on for 10 minutes
    with unlimited_session(servers) as (client, names, huge, small):
        run(client, names.id(1), huge, "k")
        time.sleep(1.0)
        cancel(client, names.id(1))
        assert answer(client, names.id(1))["error"]["code"] == REQUEST_CANCELLED
        run(client, names.id(2), small, "s")      # the worker is free again
        assert answer(client, names.id(2))["result"]["status"] == "ok"
        # the cancelled kernel is not live: the lens offers a Run, not "running…"
        client.request(names.id(3), "textDocument/codeLens", {"textDocument": {"uri": huge}})
        titles = [lens["command"]["title"] for lens in answer(client, names.id(3))["result"]]
        assert "▶ Run" in titles and not any("running" in t for t in titles), titles


def test_cancelling_a_profile_stops_it(servers):
    with unlimited_session(servers) as (client, names, huge, small):
        command(client, names.id(1), "wave-lsp.profile", huge, "k", None)
        time.sleep(1.0)
        cancel(client, names.id(1))
        assert answer(client, names.id(1))["error"]["code"] == REQUEST_CANCELLED
        command(client, names.id(2), "wave-lsp.profile", small, "s", None)
        assert answer(client, names.id(2), timeout=60)["result"]["status"] == "ok"


# A kernel of four lines whose launch writes 1 GiB of zeros (four fills of 256 MiB) before it
# runs: the emulation itself takes milliseconds, the set-up seconds.
SLOW_SETUP = (".kernel k\n; wave-lsp run: --device-memory 268435456"
              + " --fill-zero 0:u32:67108864" * 4
              + "\n.registers 4\n    mov_imm r1, 5\n    halt\n.end\n")


def test_the_time_limit_counts_setting_the_run_up(tmp_path):
    client = start(tmp_path, {"run": {"timeLimitMs": 300}})
    try:
        open_doc(client, "file:///tmp/setup.wave", SLOW_SETUP)
        run(client, 1, "file:///tmp/setup.wave", "k")
        result = answer(client, 1, timeout=120)["result"]
        assert result["status"] == "error" and result["message"] == "time limit", result
        assert result["errors"][0]["kind"] == "time_limit"
        assert result["summary"].startswith("✕ time limit")
    finally:
        client.close()


def test_runs_of_one_kernel_asked_for_at_once_share_one_run(tmp_path):
    client = start(tmp_path, PATIENT)
    try:
        open_doc(client, "file:///tmp/slow.wave", SLOW)
        client.send(b"".join(frame({"jsonrpc": "2.0", "id": i, "method": "workspace/executeCommand",
                                    "params": {"command": "wave-lsp.run",
                                               "arguments": ["file:///tmp/slow.wave", "slow", None]}})
                             for i in range(1, 31)))
        results = [answer(client, i, timeout=120)["result"] for i in range(1, 31)]
        assert {r["status"] for r in results} == {"ok"}, {r["status"] for r in results}
        # one run answered them all: the same run's figures in every answer
        assert len({r["elapsedMs"] for r in results}) == 1
    finally:
        client.close()


def test_a_clicked_run_goes_before_waiting_dump_windows(tmp_path, monkeypatch):
    monkeypatch.setenv("WAVE_LSP_NATIVE", "0")    # windows that take long: the numpy engine's
    client = start(tmp_path, PATIENT)
    try:
        uri = "file:///tmp/slow.wave"
        open_doc(client, uri, SLOW)
        open_doc(client, "file:///tmp/small.wave", SMALL)
        run(client, 1, uri, "slow")
        assert answer(client, 1, timeout=60)["result"]["status"] == "ok"
        run(client, 3, "file:///tmp/small.wave", "s")     # its launch lines parsed (and kept)
        assert answer(client, 3, timeout=60)["result"]["status"] == "ok"
        client.seen.clear()
        windows = list(range(10, 20))
        # the windows and the Run in one write: the Run is queued while the windows wait
        client.send(b"".join([frame({"jsonrpc": "2.0", "id": i, "method": "workspace/executeCommand",
                                     "params": {"command": "wave-lsp.dump",
                                                "arguments": [uri, "slow", 1, 0, 100 * (i - 10),
                                                              50]}})
                              for i in windows] + [frame({
                                  "jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
                                  "params": {"command": "wave-lsp.run",
                                             "arguments": ["file:///tmp/small.wave", "s", None]}})]))
        assert answer(client, 2, timeout=60)["result"]["status"] == "ok"
        answered = [m.get("id") for m in client.seen if "method" not in m]
        # the Run was answered before the newest window (which waited behind it) ...
        assert windows[-1] not in answered, answered
        last = answer(client, windows[-1], timeout=60)["result"]
        assert last["values"] and last["start"] == 900, last
        # ... and the windows it superseded while they waited were refused, not run
        refused = [answer(client, i)["result"] for i in windows[:-1]]
        superseded = [r for r in refused if "superseded" in r.get("message", "")]
        assert len(superseded) >= len(windows) - 3, refused
    finally:
        client.close()


# ---- many documents -------------------------------------------------------------------------
def long_text(index: int, lines: int) -> str:
    """A kernel of `lines` lines, distinct from every other `index`'s (as real files are)."""
    body = "".join(f"    mov_imm r{1 + i % 6}, {index * 100_000 + i}\n" if i % 2 else
                   f"    iadd r{1 + i % 6}, r{1 + (i + index) % 6}, r7\n" for i in range(lines))
    return f".kernel k{index}\n.registers 8\n    mov_sr r7, sr_lane_id\n{body}    halt\n.end\n"


def hover(client: RawClient, msg_id, uri: str, line: int) -> dict:
    client.request(msg_id, "textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": line, "character": 6}})
    return answer(client, msg_id, timeout=60)


def test_a_hover_is_answered_while_200_documents_open(tmp_path):
    client = start(tmp_path)
    try:
        open_doc(client, "file:///tmp/small.wave", SMALL)
        uris = [f"file:///tmp/many/open-{i}.wave" for i in range(200)]
        client.send(b"".join(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "wave", "version": 1,
                             "text": long_text(i, 1_900)}}}) for i, uri in enumerate(uris)))
        assert "mov_imm" in hover(client, 1, "file:///tmp/small.wave", 2)["result"]["contents"]["value"]
        # the last document opened is answered against its text
        assert "mov_sr" in hover(client, 2, uris[-1], 2)["result"]["contents"]["value"]
    finally:
        client.close()


def rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status").read().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


# on Python's own allocator RSS grew most in these: 66 MB to 195 after one cycle of 100
# documents, 251 after five (one cycle shows it: a second cost the suite about 20 s of CPU).
# 60 documents still fail the bound by 20 MB or more with any one part of the release undone
# (growth after the closes: on Python's allocator 104 MB, without malloc_trim 176, the memos
# never cleared 88, the frozen cycles never collected 51; with all of it: 9 MB).
CYCLES, DOCUMENTS, LINES = 1, 60, 600


def test_memory_returns_near_the_baseline_after_documents_close(tmp_path):
    """60 documents opened, run and closed. What they used (their lines' memos,
    the allocator's free memory) goes back when they close (it grew by hundreds of MB)."""
    client = start(tmp_path)
    try:
        open_doc(client, "file:///tmp/small.wave", SMALL)
        run(client, 1, "file:///tmp/small.wave", "s")       # the emulator is loaded
        assert answer(client, 1)["result"]["status"] == "ok"
        hover(client, 2, "file:///tmp/small.wave", 2)
        baseline = rss_mb(client.proc.pid)
        figures = []
        for cycle in range(CYCLES):
            uris = [f"file:///tmp/cycle/{cycle}-{i}.wave" for i in range(DOCUMENTS)]
            for i, uri in enumerate(uris):
                open_doc(client, uri, long_text(cycle * DOCUMENTS + i, LINES))
            for i, uri in enumerate(uris):
                run(client, f"run-{cycle}-{i}", uri, f"k{cycle * DOCUMENTS + i}")
                answer(client, f"run-{cycle}-{i}", timeout=120)
                client.seen.clear()
            for uri in uris:
                client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            hover(client, f"after-{cycle}", "file:///tmp/small.wave", 2)
            # the server gives memory back a second after the closes (later on a busy machine):
            # looked at every 0.2 s until it has, for up to 20 s
            deadline = time.monotonic() + 20
            while True:
                time.sleep(0.2)
                hover(client, f"settled-{cycle}-{time.monotonic()}", "file:///tmp/small.wave", 2)
                resident = rss_mb(client.proc.pid)
                if resident - baseline < 30 or time.monotonic() > deadline:
                    break
            figures.append(round(resident))
        print(f"RSS MB: baseline {baseline:.0f}, after each cycle {figures}")
        assert figures[-1] - baseline < 30, (baseline, figures)
    finally:
        client.close()
