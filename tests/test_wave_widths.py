"""The wave-width check: a kernel whose result depends on the wave width is caught, at its store
line; a portable kernel is not (in-process and through `wave-lsp run --wave-widths`)."""

from __future__ import annotations

import json

from wave_lsp.emu import Launch
from wave_lsp.emu.wave_widths import compare_widths

from conftest import run_wave_lsp

WAVE_SUM = """\
.kernel wave_sum
.registers 8
.workgroup_size 64, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    wave_reduce_add r3, r0
    device_store_u32 r2, r3
    halt
.end
"""

# the same sum done portably: every thread adds its id into one word with an atomic
ATOMIC_SUM = """\
.kernel atomic_sum
.registers 8
.workgroup_size 64, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 0
    atomic_add r1, r0, .device
    mov_imm r2, 4
    imul r3, r0, r2
    mov_imm r4, 64
    iadd r3, r3, r4
    device_store_u32 r3, r0
    halt
.end
"""

BALLOT = """\
.kernel ballot
.registers 8
.workgroup_size 64, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 32
    icmp_ge p1, r0, r1
    nop
    wave_ballot r3, p1
    mov_imm r4, 4
    imul r5, r0, r4
    device_store_u32 r5, r0
    mov_imm r6, 256
    device_store_u32 r6, r3
    halt
.end
"""


def test_width_dependent_result_is_caught_at_the_store_line():
    result = compare_widths(WAVE_SUM, Launch(device_memory=1024), (16, 32, 64))
    assert not result.portable
    assert list(result.by_line) == [7]                 # device_store_u32, 0-based
    assert len(result.differences) == 64
    first = result.differences[0]
    assert first.address == 0
    assert first.values == {16: sum(range(16)), 32: sum(range(32)), 64: sum(range(64))}
    assert "64 word(s) differ" in result.line_message(7)


def test_portable_kernel_is_not_flagged():
    result = compare_widths(ATOMIC_SUM, Launch(device_memory=1024), (8, 16, 32, 64))
    assert result.portable and result.differences == [] and result.errors == {}
    assert int.from_bytes(result.reports[8].device_memory[:4].tobytes(), "little") == 2016


def test_only_the_width_dependent_store_is_reported():
    result = compare_widths(BALLOT, Launch(device_memory=1024), (32, 64))
    assert list(result.by_line) == [12]
    (diff,) = result.differences
    # the last wave's mask of the lanes >= 32: all of wave 1 at W32, none of the low 32 at W64
    assert diff.address == 256 and diff.values == {32: 0xFFFFFFFF, 64: 0}
    assert diff.writers == {32: 12, 64: 12}


def test_run_command_wave_widths(tmp_path):
    kernel = tmp_path / "wave_sum.wave"
    kernel.write_text(WAVE_SUM)
    result = run_wave_lsp("run", str(kernel), "--wave-widths", "16,32,64",
                          "--device-memory", "1024")
    assert result.returncode == 1
    out = result.stdout.decode()
    assert f"{kernel}:8: 64 word(s) differ" in out and "W16=0x78" in out and "W64=0x7e0" in out
    portable = tmp_path / "atomic_sum.wave"
    portable.write_text(ATOMIC_SUM)
    result = run_wave_lsp("run", str(portable), "--wave-widths", "8,16,32,64", "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data["portable"] is True and data["widths"] == [8, 16, 32, 64]


def test_run_command_rejects_bad_widths(tmp_path):
    kernel = tmp_path / "k.wave"
    kernel.write_text(WAVE_SUM)
    result = run_wave_lsp("run", str(kernel), "--wave-widths", "32")
    assert result.returncode == 1 and b"at least two widths" in result.stderr
    result = run_wave_lsp("run", str(kernel), "--wave-widths", "32,abc")
    assert result.returncode == 1 and b"numbers separated by commas" in result.stderr


def test_wbin_input_reports_byte_offsets(tmp_path):
    from wave_lsp.asm import assemble
    binary = tmp_path / "wave_sum.wbin"
    binary.write_bytes(assemble(WAVE_SUM).wbin())
    result = run_wave_lsp("run", str(binary), "--wave-widths", "32,64", "--device-memory", "1024")
    assert result.returncode == 1
    assert f"{binary}: pc 0x0018: 64 word(s) differ" in result.stdout.decode()
    data = compare_widths(binary.read_bytes(), Launch(device_memory=1024), (32, 64)).as_dict()
    assert data["lineKind"] == "pc" and data["lines"][0]["line"] == 0x18


def test_wave_widths_of_the_configured_targets(tmp_path):
    kernel = tmp_path / "wave_sum.wave"
    kernel.write_text(WAVE_SUM)
    result = run_wave_lsp("run", str(kernel), "--wave-widths", "targets", "--json")
    assert json.loads(result.stdout)["widths"] == [8, 16, 32, 64]
    (tmp_path / "wave-lsp.toml").write_text('targets = ["hip"]\n')
    result = run_wave_lsp("run", str(kernel), "--wave-widths", "targets", "--json")
    assert json.loads(result.stdout)["widths"] == [32, 64] and result.returncode == 1
    (tmp_path / "wave-lsp.toml").write_text('targets = ["ptx", "metal"]\n')
    result = run_wave_lsp("run", str(kernel), "--wave-widths", "targets")
    assert result.returncode == 1 and b"one wave width" in result.stderr
