"""The debugger runs every project example to the same output as `wave-lsp run`, debugs `.wbin`
programs (disassembly, no source), and reads launch lines from the source."""

from __future__ import annotations

import pytest

from dap_client import DapClient
from conftest import ROOT, run_wave_lsp
from test_project_examples import EXAMPLES, header

from wave_lsp.debug.target import TargetError, resolve


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_run_under_the_debugger_print_what_run_prints(path):
    args, _ = header(path)
    flags = args[2:]                      # after "run FILE"
    expected = run_wave_lsp(*args, cwd=ROOT).stdout.decode()
    client = DapClient(cwd=ROOT)
    try:
        client.start(path, args=flags, cwd=str(ROOT))
        assert client.wait_event("exited")["body"]["exitCode"] == 0
        client.wait_event("terminated")
        assert client.output().startswith(expected)
    finally:
        client.close()


def test_a_wbin_program_is_debugged_by_instruction(tmp_path):
    wbin = tmp_path / "calls.wbin"
    r = run_wave_lsp("asm", str(ROOT / "tests/debug/kernels/calls.wave"), "-o", str(wbin))
    assert r.returncode == 0, r.stderr
    client = DapClient(cwd=ROOT)
    try:
        client.start(wbin, stop_on_entry=True, args=["--workgroup", "4,1,1", "--wave-width", "4",
                                                     "--dump-u32", "0:4"])
        stop = client.stopped()
        frame = client.top_frame(stop["threadId"])
        assert "source" not in frame and frame["instructionPointerReference"] == "0x0"
        listing = client.request("disassemble", {"memoryReference": "0x0",
                                                 "instructionCount": 3})["body"]["instructions"]
        assert [i["instruction"] for i in listing] == [
            "mov_sr r0, sr_thread_id_x", "mov_imm r1, 4", "call loc_0028"]
        client.request("stepIn", {"threadId": stop["threadId"]})
        client.stopped()
        assert client.finish(stop["threadId"]).startswith("4\n5\n8\n13\n")
    finally:
        client.close()


SOURCE = """\
; wave-lsp run: --grid 2,1,1
.kernel first
    halt
.end

.kernel second
; wave-lsp run: --workgroup 4,1,1 --dump-u32 0:4
; wave-lsp run: --workgroup 8,1,1
    halt
.end
.kernel third
    halt
.end
.kernel fourth
; wave-lsp run: --grid two
    halt
.end
"""


def test_without_args_the_kernels_launch_line_is_used(tmp_path):
    program = tmp_path / "k.wave"
    program.write_text(SOURCE)
    first = resolve({"program": str(program)})
    assert first.launch.grid == (2, 1, 1) and first.launch.kernel == "first"
    second = resolve({"program": str(program), "kernel": "second"})
    assert second.launch.workgroup == (4, 1, 1) and second.dumps[0].count == 4
    third = resolve({"program": str(program), "kernel": "third"})
    assert third.launch.grid == (1, 1, 1) and third.dumps == ()
    with pytest.raises(TargetError, match="launch line 15: --grid"):
        resolve({"program": str(program), "kernel": "fourth"})
    explicit = resolve({"program": str(program), "kernel": "fourth", "args": ["--grid", "3,1,1"]})
    assert explicit.launch.grid == (3, 1, 1) and explicit.launch.kernel == "fourth"


def test_a_fifo_as_program_is_an_error_not_a_hang(tmp_path):
    import os
    fifo = tmp_path / "k.wave"
    os.mkfifo(fifo)
    with pytest.raises(TargetError, match="cannot read"):
        resolve({"program": str(fifo)})
