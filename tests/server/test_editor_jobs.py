"""The editor's runs are bounded work (issue 31 item 13), through the real server:
`$/cancelRequest` stops a run or a profile (the answer is `RequestCancelled`, and the worker is
free at once), the time limit counts setting a run up as well as the emulation, Runs of the same
kernel asked for at once share one run, and the Run the user clicked goes before waiting dump
windows, which a newer window of the same dump supersedes."""

from __future__ import annotations

import time

from .rawclient import RawClient, frame
from .test_runaway_runs import HUGE, SMALL, UNLIMITED, answer, open_doc, run, start

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


def test_cancelling_a_run_stops_it_and_the_next_run_starts_at_once(tmp_path):
    client = start(tmp_path, UNLIMITED)       # the run would go on for 10 minutes
    try:
        open_doc(client, "file:///tmp/huge.wave", HUGE)
        open_doc(client, "file:///tmp/small.wave", SMALL)
        run(client, 1, "file:///tmp/huge.wave", "k")
        time.sleep(1.0)
        cancel(client, 1)
        assert answer(client, 1)["error"]["code"] == REQUEST_CANCELLED
        run(client, 2, "file:///tmp/small.wave", "s")      # the worker is free again
        assert answer(client, 2)["result"]["status"] == "ok"
        # the cancelled kernel is not live: the lens offers a Run, not "running…"
        client.request(3, "textDocument/codeLens", {"textDocument": {"uri": "file:///tmp/huge.wave"}})
        titles = [lens["command"]["title"] for lens in answer(client, 3)["result"]]
        assert "▶ Run" in titles and not any("running" in t for t in titles), titles
    finally:
        client.close()


def test_cancelling_a_profile_stops_it(tmp_path):
    client = start(tmp_path, UNLIMITED)
    try:
        open_doc(client, "file:///tmp/huge.wave", HUGE)
        open_doc(client, "file:///tmp/small.wave", SMALL)
        command(client, 1, "wave-lsp.profile", "file:///tmp/huge.wave", "k", None)
        time.sleep(1.0)
        cancel(client, 1)
        assert answer(client, 1)["error"]["code"] == REQUEST_CANCELLED
        command(client, 2, "wave-lsp.profile", "file:///tmp/small.wave", "s", None)
        assert answer(client, 2, timeout=60)["result"]["status"] == "ok"
    finally:
        client.close()


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


def test_a_clicked_run_goes_before_waiting_dump_windows(tmp_path):
    client = start(tmp_path, PATIENT)
    try:
        uri = "file:///tmp/slow.wave"
        open_doc(client, uri, SLOW)
        open_doc(client, "file:///tmp/small.wave", SMALL)
        run(client, 1, uri, "slow")
        assert answer(client, 1, timeout=60)["result"]["status"] == "ok"
        windows = list(range(10, 20))
        client.send(b"".join(frame({"jsonrpc": "2.0", "id": i, "method": "workspace/executeCommand",
                                    "params": {"command": "wave-lsp.dump",
                                               "arguments": [uri, "slow", 1, 0, 100 * (i - 10), 50]}})
                             for i in windows))
        run(client, 2, "file:///tmp/small.wave", "s")
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
