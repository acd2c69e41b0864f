"""The native core reports what the numpy engine reports, itself: each warning kind (an
uninitialised register, local or device read, an unaligned access, a shuffle from an inactive or
out-of-range lane) and each run-time error (out of bounds, divergent barrier, deadlock, stack
overflows, a register beyond the kernel's, an unmatched control instruction, the instruction
limit) with the numpy engine's text, place, lanes, counts, order, caps, memory and statistics;
the time limit and a cancel stop the core where they are met; races between the waves of a
workgroup are its own too (test_native_races.py has their property tests).
Unaligned atomics run lane after lane on both engines, as aligned ones do."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from .native_support import assert_same_report, both_engines, need_core

from wave_lsp.asm import assemble
from wave_lsp.asm.wbin import write_wbin
from wave_lsp.emu import Launch, RunOptions, run
from wave_lsp.emu.kernel_launch import IotaFill
from wave_lsp.emu.native.findings import ERRORS, WARNINGS
from wave_lsp.emu.report import ERROR_KINDS, WARNING_KINDS


def kernel(body: str, registers: int = 16, local: int = 0) -> str:
    return (f".kernel k\n.registers {registers}\n"
            + (f".local_memory {local}\n" if local else "") + body.strip() + "\nhalt\n.end\n")


# r0: the global thread, r15 its word (no two threads store to one word: no race)
LANE = ("mov_sr r0, sr_thread_id_x\nmov_sr r13, sr_workgroup_id_x\nmov_sr r12, "
        "sr_workgroup_size_x\nimad r0, r13, r12, r0\nmov_imm r14, 4\nimul r15, r0, r14\n")
STORE = "\ndevice_store_u32 r15, r3"
SPIN = "mov_imm r1, 1\nloop\niadd r1, r1, r1\nendloop"



def bad_call() -> bytes:
    """A `.wbin` whose call names the middle of an instruction (the assembler never writes one)."""
    data = write_wbin(assemble(kernel("call f\nhalt\nf:\nreturn")).kernels)
    call = bytes.fromhex("7000003f0c000000")         # call 0xc
    assert data.count(call) == 1
    return data.replace(call, bytes.fromhex("7000003f0e000000"))


# name: (kernel, launch, the warning or error kinds the numpy engine reports)
CASES = {
    "uninitialised register": (kernel(LANE + "iadd r3, r5, r6" + STORE), Launch(
        grid=(3, 1, 1), workgroup=(8, 1, 1), wave_width=4), {"uninitialised_register"}),
    "uninitialised register, some lanes": (kernel(LANE + """
        mov_imm r1, 2
        ucmp_lt p1, r0, r1
        @p1 mov_imm r5, 7
        iadd r3, r5, r5""" + STORE), Launch(workgroup=(8, 1, 1), wave_width=4),
        {"uninitialised_register"}),
    "uninitialised local": (kernel(LANE + """
        mov_imm r1, 2
        ucmp_lt p1, r0, r1
        @p1 local_store_u32 r15, r0
        local_load_u32 r3, r15""" + STORE, local=256),
        Launch(grid=(2, 1, 1), workgroup=(8, 1, 1), wave_width=4), {"uninitialised_local"}),
    "uninitialised device and an atomic": (kernel(LANE + """
        mov_imm r1, 64
        iadd r2, r15, r1
        device_load_u32 r3, r2
        mov_imm r4, 128
        atomic_add r5, r4, r0, .device
        device_load_u16 r6, r1""" + STORE), Launch(
        workgroup=(8, 1, 1), wave_width=4, device_memory=1024, memory_init=(IotaFill(64, 4),)),
        {"uninitialised_device"}),
    "unaligned accesses": (kernel(LANE + """
        mov_imm r1, 2
        iadd r2, r15, r1
        device_store_u32 r2, r0
        device_load_u32 r3, r2
        local_store_u16 r0, r0
        local_load_u64 r6, r2""", local=256), Launch(workgroup=(4, 1, 1), wave_width=4,
                                                    device_memory=1024),
        {"unaligned_access", "uninitialised_local"}),
    "inactive and out-of-range shuffles": (kernel(LANE + """
        mov_imm r1, 2
        ucmp_lt p1, r0, r1
        mov_imm r2, 3
        if p1
            wave_shuffle r3, r0, r2
        endif
        mov_imm r2, 9
        wave_shuffle_down r4, r0, r2
        wave_broadcast r5, r0, r2
        iadd r3, r3, r4""" + STORE), Launch(grid=(2, 1, 1), workgroup=(8, 1, 1), wave_width=4),
        {"inactive_shuffle_source", "out_of_range_shuffle_source", "uninitialised_register"}),
    "warnings of workgroups that diverge": (kernel("""
        mov_sr r0, sr_workgroup_id_x
        mov_imm r1, 1
        icmp_ge p1, r0, r1
        if p1
            iadd r3, r5, r5
        else
            iadd r4, r6, r6
        endif
        mov_imm r8, 1
        loop
            iadd r7, r7, r8
            iadd r10, r11, r7
            icmp_ge p2, r7, r0
            break p2
        endloop"""), Launch(grid=(3, 1, 1), workgroup=(4, 1, 1)), {"uninitialised_register"}),
    "out of bounds": (kernel(LANE + "mov_imm r1, 60\niadd r2, r15, r1\ndevice_store_u32 r2, r0"),
                      Launch(workgroup=(8, 1, 1), wave_width=4, device_memory=64),
                      {"out_of_bounds"}),
    "local out of bounds after a warning": (kernel(LANE + "iadd r3, r9, r15\n"
                                                   "local_atomic_add r4, r3, r0", local=16),
                                            Launch(workgroup=(8, 1, 1), wave_width=8),
                                            {"uninitialised_register", "uninitialised_local",
                                             "out_of_bounds"}),
    "divergent barrier": (kernel(LANE + "mov_imm r1, 2\nucmp_lt p1, r0, r1\nif p1\nbarrier\n"
                                 "endif"), Launch(workgroup=(8, 1, 1), wave_width=4),
                          {"divergent_barrier"}),
    "deadlock": (kernel("mov_sr r0, sr_wave_id\nmov_imm r1, 1\nicmp_eq p1, r0, r1\n@p1 halt\n"
                        "barrier"), Launch(workgroup=(12, 1, 1), wave_width=4), {"deadlock"}),
    "control stack overflow": (kernel("mov_imm r1, 1\nicmp_eq p1, r1, r1\n" + "if p1\n" * 33
                                      + "endif\n" * 33), Launch(workgroup=(2, 1, 1)),
                               {"control_stack_overflow"}),
    "call stack overflow": (kernel("call f\nhalt\nf:\ncall f\nreturn"), Launch(
        workgroup=(4, 1, 1)), {"call_stack_overflow"}),
    "register beyond the kernel's": (kernel(LANE + "mov_imm r1, 1\nucmp_lt p1, r0, r1\n"
                                            "@p1 iadd r3, r20, r0", registers=16),
                                     Launch(workgroup=(4, 1, 1)), {"register_out_of_range"}),
    "break outside of a loop": (kernel("mov_imm r1, 1\nicmp_eq p1, r1, r1\nbreak p1"),
                                Launch(workgroup=(4, 1, 1)), {"invalid_instruction"}),
    "continue outside of a loop": (kernel("mov_imm r1, 1\nicmp_eq p1, r1, r1\ncontinue p1"),
                                   Launch(workgroup=(4, 1, 1)), {"invalid_instruction"}),
    "else without its if": (kernel("mov_sr r0, sr_lane_id\nelse\nendif"),
                            Launch(workgroup=(6, 1, 1), wave_width=4), {"invalid_instruction"}),
    "endif without its if": (kernel("endif"), Launch(workgroup=(4, 1, 1)),
                             {"invalid_instruction"}),
    "endloop without its loop": (kernel("endloop"), Launch(workgroup=(4, 1, 1)),
                                 {"invalid_instruction"}),
    "a call into an instruction": (bad_call(), Launch(workgroup=(4, 1, 1)),
                                   {"invalid_instruction"}),
    "instruction limit": (kernel(SPIN), Launch(workgroup=(4, 1, 1)), {"instruction_limit"}),
    "instruction limit between workgroups": (
        kernel("mov_imm r1, 0\nmov_imm r2, 1\nmov_imm r3, 40\nloop\niadd r1, r1, r2\n"
               "icmp_ge p1, r1, r3\nbreak p1\nendloop"),
        Launch(grid=(8, 1, 1), workgroup=(4, 1, 1)), {"instruction_limit"}),
    # unaligned atomics: lanes over neighbouring and shared words, lane after lane
    "unaligned device atomics": (kernel(LANE + """
        mov_imm r1, 3
        and r2, r0, r1
        mov_imm r1, 6
        imul r2, r2, r1
        mov_imm r1, 1026
        iadd r2, r2, r1
        atomic_add r3, r2, r0, .device
        atomic_max r4, r2, r15, .device
        iadd r3, r3, r4""" + STORE), Launch(grid=(3, 1, 1), workgroup=(8, 1, 1), wave_width=4,
                                             device_memory=2048), {"unaligned_access", "uninitialised_device"}),
    "unaligned local atomics": (kernel(LANE + """
        mov_imm r1, 2
        iadd r2, r15, r1
        local_store_u32 r15, r0
        barrier
        local_atomic_add r3, r2, r0
        local_atomic_cas r4, r2, r3, r0
        iadd r3, r3, r4""" + STORE, local=128), Launch(grid=(2, 1, 1), workgroup=(8, 1, 1),
                                                      wave_width=4),
                                {"unaligned_access", "uninitialised_local"}),
    # races between workgroups (one wave each: no race between waves), reported by the core
    "race: workgroups write one word": (kernel(LANE + """
        mov_imm r6, 0
        device_store_u32 r6, r13
        device_load_u32 r7, r6""" + STORE), Launch(grid=(3, 1, 1), workgroup=(4, 1, 1)),
        {"data_race", "uninitialised_register"}),
    "race: read after write between workgroups": (kernel(LANE + """
        mov_imm r1, 16
        iadd r2, r15, r1
        device_store_u32 r2, r0
        device_load_u32 r3, r15""" + STORE), Launch(grid=(4, 1, 1), workgroup=(4, 1, 1),
                                                   memory_init=[IotaFill(0, 64, 1.0)]),
        {"data_race"}),
    "race: atomics then a plain read": (kernel(LANE + """
        mov_imm r6, 512
        mov_imm r5, 1
        atomic_add r7, r6, r5, .device
        device_load_u32 r3, r6""" + STORE), Launch(grid=(3, 1, 1), workgroup=(4, 1, 1),
                                                  memory_init=[IotaFill(512, 1, 1.0)]),
        {"data_race"}),
    "race: unaligned stores over a neighbour's word": (kernel(LANE + """
        mov_imm r1, 2
        iadd r2, r15, r1
        device_store_u32 r2, r0""" + STORE), Launch(grid=(3, 1, 1), workgroup=(4, 1, 1)),
        {"data_race", "unaligned_access", "uninitialised_register"}),
}


def options_of(name: str) -> RunOptions:
    if name == "instruction limit":
        return RunOptions(max_instructions=1000)
    if name == "instruction limit between workgroups":
        return RunOptions(max_instructions=700, max_batch_lanes=4)    # one workgroup a batch
    return RunOptions()


@pytest.mark.parametrize("name", CASES)
def test_the_core_reports_what_the_numpy_engine_reports(name):
    source, launch, kinds = CASES[name]
    launch = replace(launch, register_threads=(0, 5, 9))   # where they stopped, or at the end
    report, native = both_engines(source, launch, options_of(name))
    assert native.reason is None, native.reason
    assert {f.kind for f in report.warnings + report.errors} == kinds
    assert_same_report(report, native)


def test_the_numpy_engine_reports_as_one_workgroup_at_a_time():
    """Whatever its batches, the numpy engine places and orders warnings as running the
    workgroups one at a time does (the second workgroup meets the first line first)."""
    source, launch, _ = CASES["warnings of workgroups that diverge"]
    batched = run(source, launch, RunOptions(engine="numpy"))
    alone = run(source, launch, RunOptions(engine="numpy", max_batch_lanes=32))
    assert batched.warnings == alone.warnings
    assert [(w.line, w.workgroup) for w in batched.warnings] == [
        (8, (0, 0, 0)), (12, (0, 0, 0)), (13, (0, 0, 0)), (6, (1, 0, 0))]


def test_the_kinds_are_the_report_kinds():
    assert set(WARNINGS) <= set(WARNING_KINDS) and set(ERRORS) <= set(ERROR_KINDS)


def test_warnings_past_the_cap_are_dropped_alike():
    body = LANE + "\n".join(f"iadd r1, r{16 + i % 200}, r15" for i in range(230))
    source = kernel(body, registers=256)
    report, native = both_engines(source, Launch(grid=(2, 1, 1), workgroup=(4, 1, 1)))
    assert native.reason is None and len(report.warnings) == 200 > 0
    assert_same_report(report, native)


def test_an_error_is_reported_as_running_workgroups_one_at_a_time():
    """The numpy engine runs a batch that met an error again one workgroup at a time, so its
    error, memory and statistics do not depend on its batches, and are the core's: workgroup
    0's store at line 14, not the first store of workgroup 16 (which the batch meets first)."""
    need_core()
    source = kernel(LANE + "device_store_u32 r15, r0\nmov_sr r1, sr_workgroup_id_x\n"
                    "mov_imm r2, 10\nucmp_lt p1, r2, r1\n@p1 halt\n"
                    "mov_imm r3, 300\ndevice_store_u32 r3, r0")
    launch = Launch(grid=(40, 1, 1), workgroup=(4, 1, 1), device_memory=256)
    batched = run(source, launch, RunOptions(engine="numpy"))
    alone = run(source, launch, RunOptions(engine="numpy", max_batch_lanes=32))
    assert [e.kind for e in batched.errors] == ["out_of_bounds"]
    assert batched.errors[0].workgroup == (0, 0, 0) and batched.errors[0].line == 14
    assert batched.errors == alone.errors and batched.stats == alone.stats
    assert bytes(batched.device_memory) == bytes(alone.device_memory)
    report, native = both_engines(source, launch)
    assert native.reason is None
    assert_same_report(report, native)


def test_the_memory_trace_of_a_run_that_stops_at_an_error_is_the_numpy_engines():
    need_core()
    source = kernel(LANE + "device_load_u32 r3, r15\nmov_imm r1, 60\niadd r2, r15, r1\n"
                    "device_store_u32 r2, r3")
    launch = Launch(workgroup=(8, 1, 1), wave_width=4, device_memory=64)
    numpy = run(source, launch, RunOptions(engine="numpy", mem_trace="record"))
    native = run(source, launch, RunOptions(engine="native", mem_trace="record"))
    assert [e.kind for e in native.errors] == ["out_of_bounds"] and native.mem_trace
    assert (native.errors, native.mem_trace) == (numpy.errors, numpy.mem_trace)


def test_the_instruction_limit_in_a_batch_of_several_is_the_cores_and_the_numpy_engines():
    """The numpy engine runs a batch of several that passes the limit again one workgroup at a
    time (as for every error): it stops where the core stops, which keeps the launch."""
    need_core()
    source, launch, _ = CASES["instruction limit between workgroups"]
    options = RunOptions(max_instructions=700)
    report, native = both_engines(source, launch, options)
    assert native.reason is None, native.reason
    assert [e.kind for e in report.errors] == ["instruction_limit"]
    assert_same_report(report, native)
    assert run(source, launch, options).engine == "native"


@pytest.mark.parametrize("name", [name for name in CASES if name.startswith("race:")])
@pytest.mark.parametrize("threads", ["1", "2"])
def test_races_between_workgroups_alike_on_threads(name, threads, monkeypatch):
    """The core reports the race on one thread and on two (the run meets it on threads, runs
    again one at a time, and again to find the race) as the numpy engine does, whatever its
    batches."""
    monkeypatch.setenv("WAVE_LSP_THREADS", threads)
    source, launch, _ = CASES[name]
    report, native = both_engines(source, launch)
    assert native.reason is None, native.reason
    assert_same_report(report, native)
    alone = run(source, launch, RunOptions(engine="numpy", max_batch_lanes=1))
    assert alone.warnings == report.warnings


def test_a_race_between_waves_is_reported_by_the_core():
    source = kernel("mov_sr r0, sr_thread_id_x\nmov_imm r1, 0\nlocal_store_u32 r1, r0\n"
                    "local_load_u32 r2, r1", local=16)
    report, native = both_engines(source, Launch(workgroup=(8, 1, 1), wave_width=4))
    assert native.reason is None, native.reason
    assert [w.kind for w in native.warnings] == ["data_race"]
    assert_same_report(report, native)


# ---- the time limit and cancelling ---------------------------------------------------------
def test_the_time_limit_stops_the_core():
    need_core()
    started = time.monotonic()
    report = run(kernel(SPIN), Launch(workgroup=(64, 1, 1)),
                 RunOptions(engine="native", time_limit=0.3, max_instructions=0))
    took = time.monotonic() - started
    assert report.engine == "native" and [e.kind for e in report.errors] == ["time_limit"]
    error = report.errors[0]
    assert error.message == "time limit exceeded" and error.workgroup == (0, 0, 0)
    assert error.lanes == tuple(range(32)) and error.details["mnemonic"] in ("iadd", "loop",
                                                                            "endloop")
    assert 0.3 <= took < 5, took


def test_a_time_limit_not_met_changes_nothing():
    need_core()
    source = kernel(LANE + "iadd r3, r0, r0" + STORE)
    launch = Launch(grid=(4, 1, 1), workgroup=(8, 1, 1))
    limited = run(source, launch, RunOptions(engine="native", time_limit=60.0))
    plain = run(source, launch, RunOptions(engine="native"))
    assert not limited.errors and bytes(limited.device) == bytes(plain.device)


def test_a_cancel_stops_the_core_between_workgroups_and_inside_one():
    need_core()
    calls = []

    def cancel() -> bool:
        calls.append(time.monotonic())
        return len(calls) >= 3
    report = run(kernel(SPIN), Launch(workgroup=(4, 1, 1)),
                 RunOptions(engine="native", cancel=cancel, max_instructions=0))
    assert [e.kind for e in report.errors] == ["cancelled"] and len(calls) == 3
    assert report.errors[0].message == "run cancelled" and report.engine == "native"
    many = run(kernel(LANE + "iadd r3, r0, r0" + STORE), Launch(grid=(500, 1, 1)),
               RunOptions(engine="native", cancel=lambda: True))
    assert [e.kind for e in many.errors] == ["cancelled"]


def test_a_cancel_before_the_run_stops_it_at_once():
    need_core()
    report = run(kernel(SPIN), Launch(), RunOptions(engine="native", cancel=lambda: True))
    numpy = run(kernel(SPIN), Launch(), RunOptions(engine="numpy", cancel=lambda: True))
    assert report.engine == "native" and report.errors == numpy.errors
    assert report.stats == numpy.stats


def test_a_cancel_callback_that_raises_raises_as_on_the_numpy_engine():
    need_core()

    for engine in ("native", "numpy"):
        calls = []

        def cancel() -> bool:          # the first call is before the run, the next inside it
            calls.append(1)
            if len(calls) > 1:
                raise RuntimeError("the editor went away")
            return False
        with pytest.raises(RuntimeError, match="the editor went away"):
            run(kernel(SPIN), Launch(), RunOptions(engine=engine, cancel=cancel,
                                                   max_instructions=0))
