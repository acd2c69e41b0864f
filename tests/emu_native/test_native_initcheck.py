"""Property tests of the uninitialised-read check across the engines: on random programs (the
generators of the native differential tests, with the check on), the native core bails with
"possible uninitialised read" exactly when the numpy engine reports an uninitialised read it
would otherwise have run cleanly, so the command prints the same warnings with either engine."""

from __future__ import annotations

from dataclasses import asdict

from hypothesis import event, given, strategies as st

import test_emu_differential as upstream_generated
import test_emu_hypothesis as structured
from .native_support import both_engines, need_core
from .test_native_differential import (MAX_INSTRUCTIONS, NATIVE_PROLOGUE, SETTINGS,
                                       native_epilogue, native_statement)

from wave_lsp.emu import Launch, RunOptions
from wave_lsp.emu.initcheck import KINDS
from wave_lsp.emu.kernel_launch import IotaFill

BAIL = "possible uninitialised read"


def assert_same_verdict(source: str, launch: Launch, options: RunOptions | None = None) -> None:
    report, native = both_engines(source, launch, options)
    event("native" if native.reason is None else "bailed: " + native.reason.split(" (")[0])
    found = [w for w in report.warnings if w.kind in KINDS]
    others = [w for w in report.warnings if w.kind not in KINDS] + report.errors
    if native.reason is None:
        assert not found and not others
        assert bytes(native.device) == report.device_memory.tobytes()
        assert asdict(native.stats) == asdict(report.stats)
    elif native.reason.startswith(BAIL):
        assert found, native.reason              # the numpy engine reports what it saw
    if found and not others:
        assert native.reason is not None and native.reason.startswith(BAIL), native.reason


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
