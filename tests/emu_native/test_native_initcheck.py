"""Property tests of the uninitialised-read check across the engines: on random programs (the
generators of the native differential tests, with the check on), the native core reports
exactly the numpy engine's warnings (the `uninitialised_*` ones among them: kind, text, place,
lanes, count, order), errors, memory and statistics; it leaves a launch to the numpy engine
only for what it lacks (an instruction, NaN semantics, ...), never for an uninitialised read."""

from __future__ import annotations

from hypothesis import event, given, strategies as st

import test_emu_differential as upstream_generated
import test_emu_hypothesis as structured
from .native_support import assert_same_report, both_engines, need_core
from .test_native_differential import (MAX_INSTRUCTIONS, NATIVE_PROLOGUE, SETTINGS,
                                       native_epilogue, native_statement)

from wave_lsp.emu import Launch, RunOptions
from wave_lsp.emu.initcheck import KINDS
from wave_lsp.emu.kernel_launch import IotaFill


def assert_same_verdict(source: str, launch: Launch, options: RunOptions | None = None) -> None:
    report, native = both_engines(source, launch, options)
    event("native" if native.reason is None else "bailed: " + native.reason.split(" (")[0])
    found = [w for w in report.warnings if w.kind in KINDS]
    if found:
        event("uninitialised read reported")
    if native.reason is None:
        assert_same_report(report, native)
    else:
        assert "uninitialised" not in native.reason, native.reason


@SETTINGS
@given(body=structured.block(0), width=st.sampled_from([1, 4, 8, 32]),
       threads=st.integers(1, 70), grid=st.integers(1, 3))
def test_structured_programs(body, width, threads, grid):
    need_core()
    assert_same_verdict(structured.program(body), Launch(
        grid=(grid, 1, 1), workgroup=(threads, 1, 1), wave_width=width, device_memory=4096),
        RunOptions(max_instructions=MAX_INSTRUCTIONS))


@SETTINGS
@given(st.lists(upstream_generated.statement(), min_size=1, max_size=10),
       st.sampled_from([4, 8, 16]), st.booleans())
def test_float_programs_with_barriers(lines, width, filled):
    need_core()
    source = (upstream_generated.PROLOGUE + "".join(f"    {text}\n" for text in lines)
              + upstream_generated.store_all() + upstream_generated.EPILOGUE)
    init = (IotaFill(0, 512),) if filled else ()
    assert_same_verdict(source, Launch(workgroup=(16, 1, 1), wave_width=width,
                                       device_memory=2048, memory_init=init))


@SETTINGS
@given(st.lists(native_statement(), min_size=1, max_size=12), st.sampled_from([1, 4, 8, 32]),
       st.integers(1, 40), st.integers(1, 3), st.sets(st.integers(0, 11), max_size=12))
def test_every_native_instruction(lines, width, threads, grid, preset):
    need_core()
    source = NATIVE_PROLOGUE + "".join(f"    {text}\n" for text in lines) + native_epilogue()
    assert_same_verdict(source, Launch(grid=(grid, 1, 1), workgroup=(threads, 1, 1),
                                       wave_width=width, device_memory=16384,
                                       local_memory=4096, set_regs={r: r for r in preset}),
                        RunOptions(max_instructions=MAX_INSTRUCTIONS))


def test_an_error_while_another_workgroup_of_the_batch_loops_is_the_numpy_engines():
    """Found by the property above: thread 0 leaves the loop and faults, thread 3 (another
    workgroup of the same numpy batch) loops on. The numpy engine runs the batch in lock-step,
    so the fault waited behind the loop and the batch passed the instruction limit first,
    where the core, one workgroup at a time, met the fault. A batch of several that passes the
    limit is run again one workgroup at a time, as for every error: both report the fault."""
    need_core()
    lines = ["iadd r3, r0, r0",
             "mov_imm r8, 0\n    loop\n    @!p2 isub r8, r0, r3\n    iadd r8, r8, r7\n"
             "    icmp_gt p0, r8, r6\n    break p0\n    endloop",
             "mov_imm r2, 65536\n    iadd r2, r2, r1\n    device_load_u8 r3, r2"]
    source = NATIVE_PROLOGUE + "".join(f"    {text}\n" for text in lines) + native_epilogue()
    launch = Launch(grid=(2, 1, 1), workgroup=(2, 1, 1), wave_width=1, device_memory=16384,
                    local_memory=4096)
    report, native = both_engines(source, launch, RunOptions(max_instructions=MAX_INSTRUCTIONS))
    assert native.reason is None, native.reason
    assert [e.kind for e in report.errors] == ["out_of_bounds"]
    assert_same_report(report, native)
