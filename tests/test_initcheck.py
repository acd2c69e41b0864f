"""Uninitialised reads (wave_lsp.emu.initcheck): registers, local memory and device memory read
before anything wrote them are run warnings at the reading line, with the thread and lanes, in
the report, on the command line (both engines alike), in `--json` and in the editor's R003
diagnostics; clean kernels (the shared ones and examples/) give none, and the three shared
kernels that do read uninitialised memory are shown."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

import test_emu_differential as diff
from conftest import ROOT
from emu_native.native_support import launch_of
from test_project_examples import EXAMPLES as PROJECT_EXAMPLES, header
from test_run_results import run_kernel
from numpy_engine import run
from wave_lsp.emu import Launch
from wave_lsp.emu.kernel_launch import DataFill, IotaFill, ZeroFill
from tests.forkserver import wave_lsp_argv

KINDS = ("uninitialised_register", "uninitialised_local", "uninitialised_device")


def uninitialised(report) -> list:
    return [w for w in report.warnings if w.kind in KINDS]


def kernel(body: str, registers: int = 8, workgroup: str = "4, 1, 1") -> str:
    return f".kernel k\n.registers {registers}\n.workgroup_size {workgroup}\n{body}    halt\n.end\n"


def line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines()) if line.strip() == text)


# ---- registers -----------------------------------------------------------------------------
REGISTER = kernel("""    mov_sr r0, sr_lane_id
    mov_imm r1, 2
    icmp_lt p1, r0, r1
    if p1
        mov_imm r2, 7
    endif
    iadd r3, r2, r0
    iadd r4, r5, r0
""")


def test_a_register_read_before_any_write_names_its_line_and_lanes():
    report = run(REGISTER, Launch())
    found = {w.line: w for w in uninitialised(report)}
    partial, never = line_of(REGISTER, "iadd r3, r2, r0"), line_of(REGISTER, "iadd r4, r5, r0")
    assert set(found) == {partial, never}
    assert found[partial].kind == "uninitialised_register"
    assert found[partial].lanes == (2, 3) and found[partial].count == 2     # lanes 0, 1 wrote r2
    assert found[partial].message.startswith("r2 is read before anything wrote it "
                                             "(thread 2: workgroup (0, 0, 0), wave 0, lane 2)")
    assert found[never].lanes == (0, 1, 2, 3) and "r5" in found[never].message
    assert report.read_u32(0, 1) == [0]          # the emulator still reads 0


def test_set_reg_initialises_a_register_for_every_thread():
    report = run(REGISTER, Launch(set_regs={2: 1, 5: 9}))
    assert uninitialised(report) == []
    assert run(REGISTER, Launch(set_regs={5: 9})).warnings[0].lanes == (2, 3)


def test_f64_pairs_and_wave_sources_are_registers_read():
    source = kernel("""    mov_imm r0, 1
    cvt_f64_f32 r2, r0
    dadd r4, r2, r6
    wave_reduce_add r1, r7
""")
    found = {w.line: w.message.split()[0] for w in uninitialised(run(source, Launch()))}
    assert found == {line_of(source, "dadd r4, r2, r6"): "r6",
                     line_of(source, "wave_reduce_add r1, r7"): "r7"}


def test_a_guarded_write_initialises_only_the_lanes_that_pass():
    source = kernel("""    mov_sr r0, sr_lane_id
    mov_imm r1, 1
    icmp_eq p2, r0, r1
    @p2 mov_imm r3, 5
    iadd r4, r3, r1
""")
    (warning,) = uninitialised(run(source, Launch()))
    assert warning.lanes == (0, 2, 3) and warning.line == line_of(source, "iadd r4, r3, r1")


# ---- local memory --------------------------------------------------------------------------
LOCAL = kernel("""    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    mov_imm r3, 1
    icmp_lt p1, r0, r3
    @p1 local_store_u32 r2, r0
    barrier
    local_load_u32 r4, r2
    mov_imm r5, 0
    local_load_u8 r6, r5
    local_load_u16 r7, r2
""")


def test_a_local_read_no_thread_of_the_workgroup_wrote_names_line_and_lanes():
    report = run(LOCAL, Launch(grid=(2, 1, 1)))
    found = {w.line: w for w in uninitialised(report)}
    load = line_of(LOCAL, "local_load_u32 r4, r2")
    assert set(found) == {load, line_of(LOCAL, "local_load_u16 r7, r2")}
    # thread 0 of each workgroup stored its word: lanes 1-3 of each read unwritten words
    assert found[load].kind == "uninitialised_local"
    assert found[load].lanes == (1, 2, 3) and found[load].count == 6
    assert found[load].message.startswith("local memory at 0x4 is read but no thread of the "
                                          "workgroup wrote it in this launch")
    assert "(thread 1: workgroup (0, 0, 0), wave 0, lane 1;" in found[load].message


def test_local_memory_of_one_workgroup_does_not_initialise_the_next():
    source = kernel("""    mov_sr r0, sr_workgroup_id_x
    mov_imm r1, 0
    icmp_eq p1, r0, r1
    mov_imm r2, 0
    @p1 local_store_u32 r2, r0
    local_load_u32 r3, r2
""", workgroup="1, 1, 1")
    (warning,) = uninitialised(run(source, Launch(grid=(3, 1, 1))))
    assert warning.workgroup == (1, 0, 0) and warning.count == 2


def test_a_byte_store_initialises_one_byte():
    source = kernel("""    mov_imm r0, 0
    mov_imm r1, 255
    local_store_u8 r0, r1
    local_load_u8 r2, r0
    local_load_u32 r3, r0
""", workgroup="1, 1, 1")
    (warning,) = uninitialised(run(source, Launch()))
    assert warning.line == line_of(source, "local_load_u32 r3, r0")


# ---- device memory -------------------------------------------------------------------------
DEVICE = kernel("""    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    device_load_u32 r3, r2
    mov_imm r4, 64
    iadd r5, r2, r4
    device_store_u32 r5, r3
    device_load_u32 r6, r5
    mov_imm r7, 1
    atomic_add r6, r4, r7, .device
""")


@pytest.mark.parametrize("init, lanes", [
    ((), (0, 1, 2, 3)),
    ((IotaFill(0, 4),), ()),
    ((ZeroFill(0, 2),), (2, 3)),
    ((DataFill(4, b"\x01\x00\x00\x00"),), (0, 2, 3)),
    ((DataFill(0, b"\x01\x02\x03"),), (0, 1, 2, 3)),       # three bytes are not a word
])
def test_device_reads_are_initialised_by_args_fills_and_stores(init, lanes):
    report = run(DEVICE, Launch(memory_init=init, device_memory=256))
    found = [w for w in uninitialised(report)]
    load = line_of(DEVICE, "device_load_u32 r3, r2")
    assert [(w.line, w.lanes) for w in found] == ([(load, lanes)] if lanes else [])
    if lanes:
        assert found[0].kind == "uninitialised_device"
        assert found[0].message.startswith(f"device memory at 0x{4 * lanes[0]:x} is read but "
                                           "no --arg, fill, store or atomic initialised it")


def test_an_atomic_on_uninitialised_device_memory_is_a_read():
    source = kernel("""    mov_imm r0, 8
    mov_imm r1, 1
    atomic_add r2, r0, r1, .device
""", workgroup="2, 1, 1")
    (warning,) = uninitialised(run(source, Launch()))
    assert warning.lanes == (0,) and warning.kind == "uninitialised_device"  # lane 0 wrote it
    assert uninitialised(run(source, Launch(memory_init=(ZeroFill(8, 1),)))) == []


@pytest.mark.parametrize("access", ["device_load_u32 r1, r20", "local_store_u32 r20, r1",
                                    "mma_load_a r0, r20, r1", "mma_store_c r1, r20, r0"])
def test_an_access_through_a_register_beyond_the_file_is_its_fault_not_a_crash(access):
    """The check leaves an access naming a register past `.registers` to the access, which
    reports register_out_of_range (it indexed the missing register: a traceback)."""
    report = run(kernel(f"    mov_imm r1, 0\n    {access}\n", registers=8), Launch())
    assert [e.kind for e in report.errors] == ["register_out_of_range"]
    assert "r20" in report.errors[0].message


def test_the_check_can_be_turned_off():
    assert uninitialised(run(DEVICE, Launch(), initcheck=False)) == []


# ---- clean kernels and the shared ones that are not ----------------------------------------
# line (1-based) -> kind of the shared kernels' uninitialised reads with their documented
# launches: histogram counts into device memory nothing cleared (an atomic_add reads it),
# barrier_in_loop's first iteration reads local word 0 before lane 0 stored it, and sample's
# first kernel reads device memory nothing filled and r4, which nothing writes.
SHARED_FINDINGS = {
    "histogram": {18: "uninitialised_device"},
    "barrier_in_loop": {22: "uninitialised_local"},
    "sample": {12: "uninitialised_device", 13: "uninitialised_register",
               14: "uninitialised_device", 18: "uninitialised_register"},
}


@pytest.mark.parametrize("name", diff.EXAMPLE_NAMES + ["sample"])
def test_shared_kernels(name, tmp_path):
    flags = ["--workgroup", "4,1,1", "--wave-width", "4"] if name == "sample" \
        else diff.example_flags(name, tmp_path)
    source = (diff.EXAMPLES / f"{name}.wave").read_text()
    report = run(source, launch_of(flags, tmp_path))
    found = {w.line + 1: w.kind for w in uninitialised(report)}
    assert found == SHARED_FINDINGS.get(name, {})
    if name == "barrier_in_loop":        # one lane, in the first iteration only
        (warning,) = uninitialised(report)
        assert (warning.wave, warning.lanes, warning.count) == (0, (0,), 1)


@pytest.mark.parametrize("path", PROJECT_EXAMPLES, ids=[p.name for p in PROJECT_EXAMPLES])
def test_project_examples_read_nothing_uninitialised(path):
    args, _ = header(path)
    done = subprocess.run(wave_lsp_argv(*args, "--json"), cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    kinds = [w["kind"] for w in json.loads(done.stdout)["warnings"]]
    assert not [k for k in kinds if k in KINDS]


# ---- the command line and the editor ---------------------------------------------------------
def command(path: Path, *flags: str, native: bool = True):
    env = dict(os.environ, WAVE_LSP_NATIVE="1" if native else "0", WAVE_LSP_SHOW_ENGINE="1")
    return subprocess.run(wave_lsp_argv("run", str(path), *flags),
                          capture_output=True, text=True, timeout=120, env=env)


def test_the_command_prints_the_same_warnings_with_either_engine(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(REGISTER)
    fast, slow = command(path, "--dump-u32", "0:1"), command(path, "--dump-u32", "0:1",
                                                                  native=False)
    assert fast.returncode == slow.returncode == 0
    assert fast.stdout == slow.stdout == "0\n"
    warnings = fast.stderr.split("\n", 1)[1]
    assert warnings == slow.stderr.split("\n", 1)[1]
    line = line_of(REGISTER, "iadd r3, r2, r0") + 1
    assert f"Warning: r2 is read before anything wrote it (thread 2: workgroup (0, 0, 0), " \
           f"wave 0, lane 2); a GPU's registers are undefined at thread start (the emulator " \
           f"reads 0) [line {line}] (2 times)" in warnings.splitlines()
    clean = command(path, "--set-reg", "2:0", "--set-reg", "5:0")
    assert clean.stderr == "engine: native\n"


def test_no_initcheck_turns_it_off_and_leaves_the_native_core_running(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(REGISTER)
    done = command(path, "--no-initcheck", "--dump-u32", "0:1")
    assert (done.returncode, done.stdout, done.stderr) == (0, "0\n", "engine: native\n")


def test_json_carries_the_warnings(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(LOCAL)
    done = command(path, "--json")
    warnings = [w for w in json.loads(done.stdout)["warnings"] if w["kind"] in KINDS]
    assert [(w["kind"], w["line"], w["lanes"]) for w in warnings] == [
        ("uninitialised_local", line_of(LOCAL, "local_load_u32 r4, r2"), [1, 2, 3]),
        ("uninitialised_local", line_of(LOCAL, "local_load_u16 r7, r2"), [1, 2, 3])]


def test_the_editor_shows_them_as_r003_at_the_reading_line():
    result = run_kernel(REGISTER)
    found = {d.range.start_line: d.message for d in result.diagnostics if d.code == "R003"}
    assert set(found) == {line_of(REGISTER, "iadd r3, r2, r0"), line_of(REGISTER,
                                                                       "iadd r4, r5, r0")}
    assert "(uninitialised register; workgroup (0,0,0), wave 0, lanes 2-3, 2 times)" in \
        found[line_of(REGISTER, "iadd r3, r2, r0")]
    assert [w["kind"] for w in result.warnings] == ["uninitialised_register"] * 2
