"""The debug adapter's start-up loads only what a session needs up to its first stop: a
finding's moment (`stopAt`) in a fresh adapter loads neither the language server's packages
nor other commands, the disassembler (it loads with the first `disassemble` request) nor the
grammar-wide checks, as tests/test_emu_startup.py holds `run` to its lists.

The adapter runs in a fresh interpreter (the real `serve` over pipes, as `wave-lsp debug` runs it)
and the probe prints the modules loaded once the `stopped` event came; no timing is asserted
(benchmarks/bench_reverse.py measures finding → paused session).
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

from tests.time_travel_kernels import RACE_BODY, kernel

PROBE = r"""
import json, os, sys, threading
sys.path.insert(0, os.path.join(sys.argv[1], "tests"))
from server.rawclient import frame, read_messages
from wave_lsp.cli.main import main
requests_in, requests_out = os.pipe()
events_in, events_out = os.pipe()
sys.stdin = os.fdopen(requests_in, "r")
sys.stdout = os.fdopen(events_out, "w")
threading.Thread(target=main, args=(["debug"],), daemon=True).start()
out = os.fdopen(requests_out, "wb")
launch = json.loads(sys.argv[2])
for seq, (command, arguments) in enumerate([
        ("initialize", {"adapterID": "wave", "linesStartAt1": True}), ("launch", launch),
        ("configurationDone", {})], 1):
    out.write(frame({"seq": seq, "type": "request", "command": command,
                     "arguments": arguments}))
    out.flush()
incoming = read_messages(os.fdopen(events_in, "rb"))
for message in incoming:
    if message.get("type") == "response":
        assert message["success"], message
    if message.get("event") == "stopped":
        break
extra = sys.argv[3:]
if extra:
    out.write(frame({"seq": 9, "type": "request", "command": extra[0],
                     "arguments": json.loads(extra[1])}))
    out.flush()
    for message in incoming:
        if message.get("type") == "response":
            break
print(json.dumps(sorted(sys.modules)), file=sys.__stdout__, flush=True)
os._exit(0)
"""
RACE = kernel("race", RACE_BODY, "--workgroup 64,1,1 --wave-width 32")
# what a session's start never needs: the language server and its protocol packages, other
# commands, the disassembler and the checks only it loads, package metadata, the generators
NOT_FOR_A_SESSION = ("pygls", "lsprotocol", "cattrs", "importlib.metadata", "wave_lsp.server",
                     "wave_lsp.generate", "wave_lsp.asm.disassembler", "wave_lsp.asm.backends",
                     "wave_lsp.isa.backends", "wave_lsp.analysis.operand_checks",
                     "wave_lsp.analysis.analyzer",
                     *(f"wave_lsp.cli.{name}_command" for name in (
                         "lint", "asm", "dis", "run", "test", "serve", "emit", "why", "verify")))


def session_modules(tmp_path, *request: str) -> list[str]:
    path = tmp_path / "race.wave"
    path.write_text(RACE, encoding="utf-8")
    launch = {"program": str(path), "kernel": "race",
              "stopAt": {"workgroup": [0, 0, 0], "line": 6, "lanes": [[0, 1], [1, 1]],
                         "reason": "data race"}}
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT), json.dumps(launch), *request],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def banned(modules: list[str]) -> list[str]:
    return [m for m in modules
            if any(m == name or m.startswith(name + ".") for name in NOT_FOR_A_SESSION)]


def test_a_findings_moment_loads_no_server_and_no_disassembler(tmp_path):
    modules = session_modules(tmp_path)
    assert "wave_lsp.debug.moment" in modules and "wave_lsp.emu.stepping" in modules
    assert banned(modules) == []


def test_the_disassembler_loads_with_the_first_disassemble(tmp_path):
    modules = session_modules(tmp_path, "disassemble",
                              json.dumps({"memoryReference": "0x0", "instructionCount": 3}))
    assert "wave_lsp.asm.disassembler" in modules


def test_the_list_names_modules_that_exist():
    import importlib
    for name in NOT_FOR_A_SESSION:
        if name.startswith("wave_lsp."):
            importlib.import_module(name)
