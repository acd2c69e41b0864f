"""Hostile inputs to the commands, through the real `wave-lsp` process: a register
count beyond the ISA's is one clear error wherever it is read, limits hold between workgroups,
the small reliability items."""

from __future__ import annotations

import os
import struct
import subprocess
import sys

import pytest
from tests.forkserver import wave_lsp_argv

from wave_lsp.asm import assemble
from wave_lsp.asm.wbin import RECORD
from wave_lsp.isa import MAX_REGISTER_COUNT

KERNEL = ".kernel k\n.registers {registers}\n    mov_sr r0, sr_lane_id\n    halt\n.end\n"


def wave_lsp(*args, timeout: float = 60, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(wave_lsp_argv(*map(str, args), env=kw.get("env")),
                          capture_output=True, text=True, timeout=timeout, **kw)


def wbin_with_registers(count: int) -> bytes:
    """A valid `.wbin` whose kernel record declares `count` registers."""
    data = bytearray(assemble(KERNEL.format(registers=4)).wbin())
    at = data.index(struct.pack("<I", 4), 16)     # the record's register count field
    assert RECORD.unpack_from(data, at - 4)[1] == 4
    data[at:at + 4] = struct.pack("<I", count)
    return bytes(data)


@pytest.mark.parametrize("target", ["hip", "metal", "sycl", "ptx"])
@pytest.mark.parametrize("form", ["wave", "wbin"])
def test_emit_refuses_more_registers_than_the_isa_has(tmp_path, target, form):
    count = MAX_REGISTER_COUNT + 44
    path = tmp_path / f"k.{form}"
    if form == "wave":
        path.write_text(KERNEL.format(registers=count))
    else:
        path.write_bytes(wbin_with_registers(count))
    done = wave_lsp("emit", "--target", target, path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"error: kernel 'k': the register count must be " \
                          f"1-{MAX_REGISTER_COUNT}, got {count}\n"


def test_emit_and_run_accept_the_largest_register_file(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL.format(registers=MAX_REGISTER_COUNT))
    assert wave_lsp("emit", "--target", "hip", path).returncode == 0
    assert wave_lsp("run", path).returncode == 0


def test_run_names_the_same_limit(tmp_path):
    path = tmp_path / "k.wbin"
    path.write_bytes(wbin_with_registers(2_584_243_001))
    done = wave_lsp("run", path)
    assert done.returncode != 0
    assert f"the register count must be 1-{MAX_REGISTER_COUNT}, got 2584243001" in done.stderr


def test_the_time_limit_holds_between_workgroups(tmp_path):
    """A two-instruction kernel on 2^32 - 1 workgroups never reaches a poll inside a batch."""
    path = tmp_path / "k.wave"
    path.write_text(KERNEL.format(registers=4))
    done = wave_lsp("run", path, "--grid", "4294967295,1,1", "--max-instructions", "0",
                    "--time-limit", "1", timeout=60)
    assert done.returncode == 1 and "time limit exceeded" in done.stderr


PORTABILITY = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
from wave_lsp.emu.kernel_launch import Launch
from wave_lsp.emu.wave_widths import compare_widths
source = ".kernel k\\n.registers 8\\n    mov_sr r0, sr_lane_id\\n    mov_sr r3, sr_wave_width\\n" \\
         "    mov_imm r1, 4\\n    imul r2, r0, r1\\n    device_store_u32 r2, r3\\n    halt\\n.end\\n"
found = compare_widths(source, Launch(kernel="k", device_memory=1 << 30), (32, 64))
print(len(found.differences), sorted(found.by_line))
"""


def test_the_wave_width_check_compares_a_gigabyte_in_bounded_memory():
    """Each width's writers were 8 bytes per device byte (8 GiB here): now they follow what the
    kernel wrote. Under a 6 GiB address-space limit, with two 1 GiB device memories."""
    done = subprocess.run([sys.executable, "-c", PORTABILITY], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == "32 [6]"     # each lane stores its wave width


LEGACY = ".kernel k\n.registers 4\n    ADD r1, r2, r3\n    halt\n.end\n"   # --fix writes iadd


def test_lint_fix_refuses_a_read_only_file(tmp_path):
    path = tmp_path / "ro.wave"
    path.write_text(LEGACY)
    path.chmod(0o444)
    done = wave_lsp("lint", "--fix", path)
    assert done.returncode != 0 and "read-only" in done.stderr
    assert path.read_text() == LEGACY and (path.stat().st_mode & 0o777) == 0o444


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a file to another user needs root")
def test_lint_fix_keeps_the_owner(tmp_path):
    path = tmp_path / "theirs.wave"
    path.write_text(LEGACY)
    os.chown(path, 4321, 4322)
    path.chmod(0o664)
    done = wave_lsp("lint", "--fix", path)
    info = path.stat()
    assert "iadd" in path.read_text(), done.stderr
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (4321, 4322, 0o664)


def test_a_byte_order_mark_is_one_error_and_the_kernel_stays_whole():
    from wave_lsp.analysis import analyze
    from wave_lsp.syntax.document import Document
    text = "\ufeff" + KERNEL.format(registers=4)
    found = analyze(text)
    assert [(d.code, d.range.start_line, d.range.start_col, d.range.end_col) for d in found] \
        == [("S101", 0, 0, 1)]
    assert "byte order mark" in found[0].message and found[0].fixes[0].edits[0].new_text == ""
    assert [k.name for k in Document(text).program.kernels] == ["k"]


def test_lint_refuses_a_file_over_its_documented_limit(tmp_path):
    from wave_lsp.cli.lint_command import MAX_LINT_BYTES
    path = tmp_path / "huge.wave"
    path.write_text("    nop\n" * (MAX_LINT_BYTES // 8 + 1))
    done = wave_lsp("lint", path, timeout=30)
    assert done.returncode == 2 and "file too large" in done.stderr
    assert f"the limit is {MAX_LINT_BYTES} bytes" in done.stderr


def test_ctrl_c_stops_an_unlimited_run_between_workgroups(tmp_path):
    """The native core polls for signals between workgroups (it runs without the GIL)."""
    import signal
    import time
    path = tmp_path / "k.wave"
    path.write_text(KERNEL.format(registers=4))
    proc = subprocess.Popen([sys.executable, "-m", "wave_lsp", "run", str(path), "--grid",
                             "100000000,1,1", "--max-instructions", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            # as a terminal's Ctrl-C finds it, even when this suite runs in the
                            # background (where a shell starts it with SIGINT ignored)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) != 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
