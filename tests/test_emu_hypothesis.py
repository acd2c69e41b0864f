"""Property test: the vectorised emulator agrees with the scalar reference interpreter
(tests/scalar_reference.py) on random straight-line and structured programs."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scalar_reference import run_reference  # noqa: E402

from wave_lsp.asm import assemble  # noqa: E402
from numpy_engine import run  # noqa: E402
from wave_lsp.emu import Launch  # noqa: E402

BINARY = ["iadd", "isub", "imul", "imul_hi", "idiv", "imod", "imin", "imax", "and", "or", "xor",
          "shl", "shr", "sar"]
UNARY = ["ineg", "not", "mov", "iabs", "bitcount"]
COMPARE = ["icmp_eq", "icmp_ne", "icmp_lt", "icmp_le", "icmp_gt", "icmp_ge", "ucmp_lt",
           "ucmp_le"]
WAVE = ["wave_reduce_add", "wave_prefix_sum", "wave_ballot", "wave_shuffle_xor"]

dest = st.sampled_from([f"r{i}" for i in range(2, 8)])
source = st.sampled_from(["r0", "r1"] + [f"r{i}" for i in range(2, 8)])
pred = st.sampled_from(["p0", "p1", "p2", "p3"])
guard = st.sampled_from(["", "", "", "@p1 ", "@!p2 ", "@p3 ", "@!p0 "])
imm = st.one_of(st.integers(0, 16), st.integers(0, 0xFFFFFFFF),
                st.sampled_from([0x80000000, 0xFFFFFFFF, 31, 32, 33]))


@st.composite
def simple(draw) -> list[str]:
    kind = draw(st.sampled_from(["bin", "bin", "un", "cmp", "sel", "imm", "imm", "wave",
                                 "store"]))
    g = draw(guard)
    if kind == "bin":
        return [f"{g}{draw(st.sampled_from(BINARY))} {draw(dest)}, {draw(source)}, "
                f"{draw(source)}"]
    if kind == "un":
        return [f"{g}{draw(st.sampled_from(UNARY))} {draw(dest)}, {draw(source)}"]
    if kind == "cmp":
        return [f"{g}{draw(st.sampled_from(COMPARE))} {draw(pred)}, {draw(source)}, "
                f"{draw(source)}"]
    if kind == "sel":
        return [f"{g}select {draw(dest)}, {draw(pred)}, {draw(source)}, {draw(source)}"]
    if kind == "imm":
        return [f"{g}mov_imm {draw(dest)}, {draw(imm)}"]
    if kind == "store":
        return [f"{g}device_store_u32 r1, {draw(source)}"]
    op = draw(st.sampled_from(WAVE))
    if op == "wave_ballot":
        return [f"{g}wave_ballot {draw(dest)}, {draw(pred)}"]
    if op == "wave_shuffle_xor":
        return [f"{g}wave_shuffle_xor {draw(dest)}, {draw(source)}, {draw(source)}"]
    return [f"{g}{op} {draw(dest)}, {draw(source)}"]


def block(depth: int, in_loop: bool = False, leaf=simple):
    """Random structured code; `leaf` draws one straight-line statement (default `simple`)."""
    return st.lists(statement(depth, in_loop, leaf), min_size=1, max_size=5).map(
        lambda parts: [line for part in parts for line in part])


@st.composite
def statement(draw, depth: int, in_loop: bool, leaf=simple) -> list[str]:
    choices = ["simple"] * 4 + (["if", "loop", "halt"] if depth < 2 else [])
    if in_loop:
        choices += ["continue", "break"]
    kind = draw(st.sampled_from(choices))
    if kind == "simple":
        return draw(leaf())
    if kind == "halt":
        return [f"{draw(guard)}halt"]
    if kind in ("continue", "break"):
        return [f"{draw(guard)}{kind} {draw(pred)}"]
    if kind == "if":
        lines = [f"if {draw(pred)}"] + draw(block(depth + 1, in_loop, leaf))
        if draw(st.booleans()):
            lines += ["else"] + draw(block(depth + 1, in_loop, leaf))
        return lines + ["endif"]
    counter = f"r{10 + depth}"
    inner = draw(block(depth + 1, True, leaf)) if depth + 1 < 2 else draw(
        st.lists(leaf(), min_size=1, max_size=4).map(lambda p: [x for y in p for x in y]))
    return [f"mov_imm {counter}, 0", "loop", f"iadd {counter}, {counter}, r8",
            f"icmp_gt p0, {counter}, r9", "break p0"] + inner + ["endloop"]


def program(body: list[str], registers: int = 12, setup: tuple[str, ...] = ()) -> str:
    """The kernel around `body`: r0 = thread id, r1 = 4 * r0 (its own word), r8 = 1, r9 =
    (r0 & 3) + 1 (loop trip counts), then the `setup` lines."""
    head = [".kernel random", f".registers {registers}", "    mov_sr r0, sr_thread_id_x",
            "    mov_imm r9, 4", "    imul r1, r0, r9", "    mov_imm r8, 1",
            "    mov_imm r9, 3", "    and r9, r0, r9", "    iadd r9, r9, r8"]
    return "\n".join(head + ["    " + line for line in (*setup, *body)]
                     + ["    halt", ".end", ""])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=block(0), width=st.sampled_from([1, 4, 8, 32]), threads=st.integers(1, 70))
def test_vectorised_matches_scalar_reference(body, width, threads):
    source = program(body)
    kernel = assemble(source).kernels[0]
    memory, registers = run_reference(kernel, width, threads, 4096)
    report = run(source, Launch(workgroup=(threads, 1, 1), wave_width=width,
                                device_memory=4096, register_threads=range(threads)))
    assert not report.errors, (report.errors, source)
    for tid, expected in registers.items():
        got = [report.registers[tid][f"r{i}"] for i in range(12)]
        assert got == expected, (tid, source)
    assert report.device_memory.tobytes() == memory, source
