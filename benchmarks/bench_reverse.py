"""Reverse debugging speed, through the real `wave-lsp debug` subprocess and the real server.

Measures (request to `stopped` event, median and p95 of --repeat):
- `stepBack` deep in a long run (a loop of LOOP iterations over 2 waves, stopped by a
  breakpoint near its end: the nearest checkpoint is up to `interval` steps back), target
  ≤ 100 ms;
- `reverseContinue` to the previous hit of a conditional per-lane breakpoint one loop iteration
  back, and `goto` the first iteration (re-execution from the start of the history);
- finding → paused session: the server's "Debug at this moment" code action on a data race
  (the request), then the debug adapter with its configuration to the `stopped` event, target
  ≤ 1 s, side by side (alternating, on the same load): a `wave-lsp debug` process per session
  (before; Neovim's way) and a session of the warm `wave-lsp debug --server` that the VS Code
  extension starts once per window (after); plus VS Code's former assembles check (`wave-lsp
  asm`), which it skips now for a finding's moment;
- the cost of recording: `continue` over the whole loop with checkpoints against the
  checkpoint budget set below one checkpoint (recording off).
Usage: python benchmarks/bench_reverse.py [--repeat N] [--loop N] [--only-finding].
One line per measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "debug"))

from dap_client import DapClient, WarmAdapter  # noqa: E402
from time_travel_kernels import RACE_BODY, kernel  # noqa: E402

LOOP = """\
.kernel spin
.registers 8
    mov_sr  r0, sr_lane_id
    mov_imm r1, 0
    mov_imm r2, 1
    mov_imm r3, {n}
    loop
        icmp_ge p1, r1, r3
        break p1
        iadd r4, r4, r0
        iadd r1, r1, r2
    endloop
    halt
.end
"""
ARGS = ["--workgroup", "8,1,1", "--wave-width", "4"]
RACE = kernel("race", RACE_BODY, "--workgroup 64,1,1 --wave-width 32")


def line(name: str, times: list[float], extra: str = "") -> None:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    print(f"{name}: median {1000 * statistics.median(times):.1f} ms, p95 {1000 * p95:.1f} ms "
          f"({len(times)} runs){extra}")


def stopped_at_end(program: Path, loop: int, **launch) -> tuple[DapClient, dict]:
    client = DapClient(cwd=ROOT)
    client.start(program, args=ARGS, breakpoints=[11],
                 conditions={11: {"condition": f"r1 == {loop - 2} and lane == 3"}}, **launch)
    return client, client.stopped(timeout=600)


def timed(client: DapClient, command: str, stop: dict, **extra) -> tuple[float, dict]:
    began = time.perf_counter()
    client.request(command, {"threadId": stop["threadId"], **extra})
    stop = client.stopped(timeout=600)
    return time.perf_counter() - began, stop


def reverse_steps(program: Path, loop: int, repeat: int) -> None:
    client, stop = stopped_at_end(program, loop)
    backs, forwards = [], []
    for _ in range(repeat):
        elapsed, stop = timed(client, "stepBack", stop)
        backs.append(elapsed)
    for _ in range(repeat):
        elapsed, stop = timed(client, "next", stop)
        forwards.append(elapsed)
    line("stepBack deep in the run", backs, " (target ≤ 100 ms)")
    line("next (forward, for scale)", forwards)
    client.request("setBreakpoints", {"source": {"path": str(program)}, "breakpoints": [
        {"line": 11, "condition": "lane == 3"}]})
    rc = []
    for _ in range(repeat):
        elapsed, stop = timed(client, "reverseContinue", stop)
        rc.append(elapsed)
    line("reverseContinue to the previous per-lane hit", rc)
    began = time.perf_counter()
    targets = client.request("gotoTargets", {"source": {"path": str(program)}, "line": 11})
    listed = time.perf_counter() - began
    first = targets["body"]["targets"][-1]["id"]
    elapsed, stop = timed(client, "goto", stop, targetId=first)
    print(f"gotoTargets over {len(targets['body']['targets'])} iterations: "
          f"{1000 * listed:.1f} ms; goto the first: {1000 * elapsed:.1f} ms")
    client.close()


def recording_cost(program: Path, loop: int) -> None:
    for label, budget in (("with checkpoints", 256), ("recording off", 0.0001)):
        client = DapClient(cwd=ROOT)
        client.start(program, args=ARGS, checkpointBudgetMiB=budget)
        began = time.perf_counter()
        client.wait_event("terminated", timeout=600)
        elapsed = time.perf_counter() - began
        client.close()
        print(f"continue over the whole run {label}: {1000 * elapsed:.0f} ms")


async def finding_to_pause(folder: Path, repeat: int) -> None:
    from lsprotocol import types as t
    from pytest_lsp import client_capabilities, make_test_lsp_client
    path = folder / "race.wave"
    path.write_text(RACE, encoding="utf-8")
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "wave_lsp", "serve", cwd=str(ROOT))
    for method in ("workspace/inlayHint/refresh", "workspace/codeLens/refresh",
                   "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh"):
        try:
            client.feature(method)(lambda params: None)
        except Exception:   # noqa: BLE001 - the test client answers it already
            pass
    await client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities("visual-studio-code")))
    uri = path.as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=RACE)))
    await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.run", arguments=[uri, "race", 0]))
    warm = warm_server()                     # the editor starts it when the server runs
    paths = {"process": [], "warm": []}
    actions_ms, starts, moments, adapter_cpu, checks = [], [], [], [], []
    for _ in range(repeat):
        for kind in ("process", "warm"):     # side by side, alternating, on the same load
            began = time.perf_counter()
            actions = await client.text_document_code_action_async(t.CodeActionParams(
                text_document=t.TextDocumentIdentifier(uri=uri),
                range=t.Range(start=t.Position(line=6, character=0),
                              end=t.Position(line=6, character=0)),
                context=t.CodeActionContext(diagnostics=[])))
            acted = time.perf_counter()
            actions_ms.append(acted - began)
            config = _configuration(actions)
            cpu = _children_cpu()
            dap = DapClient(cwd=ROOT) if kind == "process" else warm.connect()
            dap.start(config.pop("program"), args=config.pop("args", None),
                      kernel=config.pop("kernel"), stopAt=config["stopAt"])
            configured = time.perf_counter()
            stop = dap.stopped()
            done = time.perf_counter()
            paths[kind].append(done - began)
            assert stop["reason"] == "goto", stop
            dap.close()
            if kind == "process":
                starts.append(configured - acted)
                moments.append(done - configured)
                adapter_cpu.append(_children_cpu() - cpu)
                checked = time.perf_counter()
                subprocess.run([sys.executable, "-m", "wave_lsp", "asm", str(path), "--dump-hex"],
                               cwd=ROOT, capture_output=True, check=True)
                checks.append(time.perf_counter() - checked)
    warm.stop()
    await client.shutdown_session()
    line("code action request (server)", actions_ms)
    line("adapter process start, initialize, launch, configurationDone", starts)
    line("configurationDone → stopped at the moment (run there, recording)", moments)
    line("CPU of the whole adapter process (start to disconnect; wall on an idle machine)",
         adapter_cpu)
    line("VS Code's assembles check before a launch (wave-lsp asm; skipped for stopAt now)",
         checks)
    line("finding → paused session, process adapter (before: action + adapter start + run "
         "to the moment)", paths["process"], " (target ≤ 1 s)")
    line("finding → paused session, warm adapter (after: action + connect + run to the "
         "moment)", paths["warm"], " (target ≤ 1 s)")


def warm_server() -> WarmAdapter:
    """`wave-lsp debug --server`, as the VS Code extension keeps one per window."""
    began = time.perf_counter()
    adapter = WarmAdapter(cwd=ROOT)
    print(f"warm adapter started once: {1000 * (time.perf_counter() - began):.0f} ms "
          f"(when the language server runs, before any finding)")
    return adapter


def _children_cpu() -> float:
    import resource
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _configuration(actions) -> dict:
    import ast
    for item in actions or []:
        command = getattr(item, "command", None)
        if isinstance(command, str) and "debugAtMoment" in command:   # lsprotocol reads it so
            return dict(ast.literal_eval(command)["arguments"][0])
        if command is not None and getattr(command, "command", "") == "wave.debugAtMoment":
            return dict(command.arguments[0])
    raise SystemExit("no 'Debug at this moment' action was offered")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--loop", type=int, default=2000)
    parser.add_argument("--only-finding", action="store_true",
                        help="measure finding → paused session alone (--repeat times)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "spin.wave"
        program.write_text(LOOP.format(n=options.loop), encoding="utf-8")
        print(f"loop of {options.loop} iterations ({5 * options.loop + 6} steps), 8 threads")
        if options.only_finding:
            asyncio.run(finding_to_pause(Path(folder), options.repeat))
            return
        reverse_steps(program, options.loop, options.repeat)
        recording_cost(program, options.loop)
        asyncio.run(finding_to_pause(Path(folder), max(3, options.repeat // 4)))


if __name__ == "__main__":
    main()
