"""A kernel's arguments (wave_lsp.analysis.live_ins): the registers it may read before writing.

Hand-written cases for each rule of the analysis (straight code, pairs and quads, guards, if/else
joins, loops and breaks, code after a halt), the shared kernels' arguments as their comments
list them, and a property test: on random structured programs, every register the emulator's
uninitialised-read check sees a lane read before its thread wrote it is a live-in (the analysis
is conservative)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from wave_lsp.analysis.live_ins import live_ins
from wave_lsp.asm import assemble
from wave_lsp.emu import Launch

from conftest import shared_examples_dir
from numpy_engine import run
from test_emit import program


def ins_of(body: str, registers: int = 16) -> tuple[int, ...]:
    source = f".kernel k\n.registers {registers}\n{body}\n    halt\n.end\n"
    return live_ins(assemble(source).kernels[0].instructions)


@pytest.mark.parametrize("body,expected", [
    ("    mov_imm r1, 3\n    iadd r2, r1, r1", ()),
    ("    iadd r2, r0, r1\n    iadd r3, r2, r4", (0, 1, 4)),
    ("    iadd r1, r1, r1", (1,)),                                   # read, then written
    ("    mov_sr r3, sr_thread_id_x\n    device_store_u32 r3, r5", (5,)),
    # pairs and quads count every register they cover
    ("    dadd r2, r4, r6", (4, 5, 6, 7)),
    ("    mov_imm r1, 0\n    device_store_u128 r1, r8", (8, 9, 10, 11)),
    ("    mov_imm r1, 0\n    device_load_u64 r2, r1\n    dadd r4, r2, r2", ()),
    ("    mov_imm r1, 0\n    device_load_u64 r2, r1\n    dadd r4, r2, r6", (6, 7)),
    # a guarded write is certain only under its own guard, until the predicate changes
    ("    @p1 mov_imm r1, 0\n    iadd r2, r1, r1", (1,)),
    ("    @p1 mov_imm r1, 0\n    @p1 iadd r2, r1, r1", ()),
    ("    @p1 mov_imm r1, 0\n    @!p1 iadd r2, r1, r1", (1,)),
    ("    @p1 mov_imm r1, 0\n    icmp_eq p1, r3, r3\n    @p1 iadd r2, r1, r1", (1, 3)),
    # if/else: what both sides wrote
    ("    if p1\n    mov_imm r1, 0\n    endif\n    iadd r2, r1, r1", (1,)),
    ("    if p1\n    mov_imm r1, 0\n    else\n    mov_imm r1, 1\n    endif\n"
     "    iadd r2, r1, r1", ()),
    ("    if p1\n    mov_imm r1, 0\n    else\n    mov_imm r3, 1\n    endif\n"
     "    iadd r2, r1, r3", (1, 3)),
    ("    mov_imm r1, 0\n    if p1\n    iadd r1, r1, r1\n    endif\n    iadd r2, r1, r1", ()),
    # loops: the body from what the loop starts with, after it what every break had
    ("    loop\n    iadd r1, r1, r2\n    mov_imm r2, 1\n    break p1\n    endloop", (1, 2)),
    ("    loop\n    mov_imm r1, 1\n    break p1\n    endloop\n    iadd r2, r1, r1", ()),
    ("    loop\n    break p1\n    mov_imm r1, 1\n    endloop\n    iadd r2, r1, r1", (1,)),
    # code after a top-level halt (reached only by call) starts afresh
    ("    mov_imm r1, 1\n    halt\n    iadd r2, r1, r1", (1,)),
])
def test_live_ins(body, expected):
    assert ins_of(body) == expected


SHARED = {"gemm_blocked.wave": (0, 1, 2, 4, 5), "vector_add_f16.wave": (1, 2, 3),
          "relu.wave": (0, 1, 2), "reduction.wave": (), "atomic_cas.wave": ()}


@pytest.mark.parametrize("name,expected", SHARED.items())
def test_shared_kernels_arguments(name, expected):
    """gemm_blocked's comment lists r0-r5 as its arguments, of which it never reads r3 (M);
    atomic_cas writes and reads its registers under one guard."""
    path = shared_examples_dir() / name
    if not path.is_file():
        pytest.skip(f"{path} not found (../shared/wave-examples)")
    assert live_ins(assemble(path.read_text()).kernels[0].instructions) == expected


_UNINITIALISED = re.compile(r"^r(\d+) is read before anything wrote it")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=program())
def test_every_register_a_run_reads_uninitialised_is_a_live_in(source):
    kernel = assemble(source).kernels[0]
    report = run(source, Launch(workgroup=(8, 1, 1), kernel=kernel.name),
                 max_instructions=4000)
    read = {int(m.group(1)) for w in report.warnings if w.kind == "uninitialised_register"
            for m in [_UNINITIALISED.match(w.message)] if m}
    assert read <= set(live_ins(kernel.instructions)), source
