"""Property tests: the native core gives exactly the numpy engine's report on random programs
(warnings, errors, memory and statistics, field by field; or it leaves the launch to the numpy
engine and says why), over the generators of
the emulator's own property tests and one of its own that reaches every instruction it
implements (floats with NaN, infinities and signed zeros, every memory width, local memory,
atomics, wave operations, barriers, several workgroups). The uninitialised-read check is off
here (random programs read registers nothing wrote, so the core would bail on most of them);
test_native_initcheck.py runs these generators with it on."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings, strategies as st

import test_emu_differential as upstream_generated
import test_emu_hypothesis as structured
from .native_support import assert_native_equal, need_core

from wave_lsp.emu import Launch, RunOptions

EXAMPLES = int(os.environ.get("WAVE_NATIVE_EXAMPLES", "30"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=list(HealthCheck))
# Generated loops may never end (their bound is a register the body can overwrite); a bounded
# launch stops them after this many wave-instructions instead of the 10-million default, on both
# engines alike (a run that hits it is compared as any other).
MAX_INSTRUCTIONS = 100_000


@SETTINGS
@given(body=structured.block(0), width=st.sampled_from([1, 4, 8, 32]),
       threads=st.integers(1, 70), grid=st.integers(1, 3))
def test_structured_programs(body, width, threads, grid):
    need_core()
    source = structured.program(body)
    assert_native_equal(source, Launch(grid=(grid, 1, 1), workgroup=(threads, 1, 1),
                                       wave_width=width, device_memory=4096),
                        RunOptions(initcheck=False, max_instructions=MAX_INSTRUCTIONS),
                        must_run=False)


@SETTINGS
@given(st.lists(upstream_generated.statement(), min_size=1, max_size=10),
       st.sampled_from([4, 8, 16]))
def test_float_programs_with_barriers(lines, width):
    need_core()
    source = (upstream_generated.PROLOGUE + "".join(f"    {text}\n" for text in lines)
              + upstream_generated.store_all() + upstream_generated.EPILOGUE)
    assert_native_equal(source, Launch(workgroup=(16, 1, 1), wave_width=width,
                                       device_memory=2048), RunOptions(initcheck=False),
                        must_run=False)


# ---- a generator of its own --------------------------------------------------------------
BINARY = ["iadd", "isub", "imul", "imul_hi", "idiv", "imod", "imin", "imax", "and", "or", "xor",
          "shl", "shr", "sar", "fadd", "fsub", "fmul", "fdiv", "fmin", "fmax", "hadd", "hsub",
          "hmul", "hadd2", "hmul2", "badd", "bsub", "bmul", "badd2", "bmul2"]
TERNARY = ["imad", "iclamp", "fma", "fclamp", "bfe", "hma", "hma2", "bma", "bma2"]
UNARY = ["ineg", "iabs", "not", "mov", "bitcount", "bitfind", "bitrev", "fneg", "fabs", "fsqrt",
         "frsqrt", "frcp", "ffloor", "fceil", "fround", "ftrunc", "ffract", "fsat",
         "cvt_f32_i32", "cvt_f32_u32", "cvt_i32_f32", "cvt_u32_f32", "cvt_f32_bf16",
         "cvt_bf16_f32", "cvt_f32_f16", "cvt_f16_f32"]
COMPARE = ["icmp_eq", "icmp_ne", "icmp_lt", "icmp_le", "icmp_gt", "icmp_ge", "ucmp_lt",
           "ucmp_le", "fcmp_eq", "fcmp_ne", "fcmp_lt", "fcmp_le", "fcmp_gt", "fcmp_ord",
           "fcmp_unord"]
WAVE = ["wave_reduce_add", "wave_reduce_min", "wave_reduce_max", "wave_prefix_sum"]
SHUFFLE = ["wave_shuffle", "wave_shuffle_up", "wave_shuffle_down", "wave_shuffle_xor",
           "wave_broadcast"]
ATOMIC = ["add", "sub", "min", "max", "and", "or", "xor", "exchange", "cas"]
FLOATS = [0x3F800000, 0xBF800000, 0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
          0x00000001, 0x007FFFFF, 0x3EFFFFFF, 0x3F000000, 0x4B000001, 0x4F800000, 0xCF000001,
          0x40490FDB, 0x3DCCCCCD, 0x7C00, 0x7E00, 0x3C00, 0x3C003C00, 0x7BFF0001, 0x80013800,
          0x477FF000, 0x33000000, 0x38800000, 0x387FE000, 0x3F80BC00]

reg = st.sampled_from([f"r{i}" for i in range(3, 9)])
src = st.sampled_from([f"r{i}" for i in range(0, 9)])
pred = st.sampled_from(["p1", "p2", "p3"])
guard = st.sampled_from(["", "", "", "@p1 ", "@!p2 ", "@p3 "])


@st.composite
def native_line(draw) -> str:
    kind = draw(st.sampled_from(["bin"] * 3 + ["tern", "un", "un", "cmp", "sel", "imm", "imm",
                                               "wave", "shuffle", "ballot", "anyall", "mem",
                                               "local", "atomic", "bfi", "sr", "f64"]))
    g = draw(guard)
    if kind == "bin":
        return f"{g}{draw(st.sampled_from(BINARY))} {draw(reg)}, {draw(src)}, {draw(src)}"
    if kind == "tern":
        return (f"{g}{draw(st.sampled_from(TERNARY))} {draw(reg)}, {draw(src)}, {draw(src)}, "
                f"{draw(src)}")
    if kind == "bfi":
        return f"{g}bfi {draw(reg)}, {draw(src)}, {draw(src)}, {draw(src)}, {draw(src)}"
    if kind == "un":
        return f"{g}{draw(st.sampled_from(UNARY))} {draw(reg)}, {draw(src)}"
    if kind == "cmp":
        return f"{g}{draw(st.sampled_from(COMPARE))} {draw(pred)}, {draw(src)}, {draw(src)}"
    if kind == "sel":
        return f"{g}select {draw(reg)}, {draw(pred)}, {draw(src)}, {draw(src)}"
    if kind == "imm":
        value = draw(st.one_of(st.sampled_from(FLOATS), st.integers(0, 40),
                               st.integers(0, 0xFFFFFFFF)))
        return f"{g}mov_imm {draw(reg)}, {value}"
    if kind == "f64":
        pairs = st.sampled_from(["r3", "r5", "r7"])
        op = draw(st.sampled_from(["dadd", "dsub", "dmul", "dma", "ddiv", "dsqrt", "cvt_f32_f64",
                                   "cvt_f64_f32"]))
        count = {"dma": 3, "dsqrt": 1, "cvt_f32_f64": 1, "cvt_f64_f32": 1}.get(op, 2)
        dest = draw(reg) if op == "cvt_f32_f64" else draw(pairs)
        sources = [draw(src) if op == "cvt_f64_f32" else draw(pairs) for _ in range(count)]
        return f"{g}{op} {dest}, {', '.join(sources)}"
    if kind == "sr":
        name = draw(st.sampled_from(["sr_thread_id_x", "sr_lane_id", "sr_wave_id",
                                     "sr_workgroup_id_x", "sr_wave_width", "sr_grid_size_x"]))
        return f"{g}mov_sr {draw(reg)}, {name}"
    if kind == "wave":
        return f"{g}{draw(st.sampled_from(WAVE))} {draw(reg)}, {draw(src)}"
    if kind == "shuffle":
        return f"{g}{draw(st.sampled_from(SHUFFLE))} {draw(reg)}, {draw(src)}, {draw(src)}"
    if kind == "ballot":
        return f"{g}wave_ballot {draw(reg)}, {draw(pred)}"
    if kind == "anyall":
        return f"{g}{draw(st.sampled_from(['wave_any', 'wave_all']))} {draw(pred)}, {draw(pred)}"
    if kind in ("mem", "local"):
        space = "device" if kind == "mem" else "local"
        widths = ["u8", "u16", "u32", "u64"] + (["u128"] if kind == "mem" else [])
        width = draw(st.sampled_from(widths))
        # unaligned ones warn; past the end of memory, the run stops with an error
        offset = draw(st.sampled_from([0, 0, 1, 2, 4, 8, 0x10000]))
        data = draw(st.sampled_from(["r3", "r4", "r5", "r6"]))
        lines = [f"mov_imm r2, {offset}", "iadd r2, r2, r1"]
        if draw(st.booleans()):
            lines.append(f"{g}{space}_store_{width} r2, {data}")
        else:
            lines.append(f"{g}{space}_load_{width} {data}, r2")
        return "\n    ".join(lines)
    operation = draw(st.sampled_from(ATOMIC))
    prefix = draw(st.sampled_from(["", "local_"]))
    shared = draw(st.booleans())          # one word for every thread, or one word each
    address = "mov_imm r2, 0" if shared else "iadd r2, r1, r0"
    scope = "" if prefix else ", device"
    cas = f", {draw(src)}" if operation == "cas" else ""
    return f"{address}\n    {g}{prefix}atomic_{operation} {draw(reg)}, r2, {draw(src)}{cas}{scope}"


@st.composite
def native_statement(draw) -> str:
    kind = draw(st.sampled_from(["line"] * 8 + ["barrier", "if", "loop"]))
    if kind == "line":
        return draw(native_line())
    if kind == "barrier":
        return "barrier"
    body = "\n    ".join(draw(st.lists(native_line(), min_size=1, max_size=3)))
    if kind == "if":
        return f"if {draw(pred)}\n    {body}\n    endif"
    return ("mov_imm r8, 0\n    loop\n    " + body + "\n    iadd r8, r8, r7\n"
            "    icmp_gt p0, r8, r6\n    break p0\n    endloop")


NATIVE_PROLOGUE = """.kernel native
.registers 12
    mov_sr r0, sr_thread_id_x
    mov_sr r9, sr_workgroup_id_x
    mov_sr r10, sr_workgroup_size_x
    imul r9, r9, r10
    iadd r9, r9, r0
    mov_imm r10, 32
    imul r1, r9, r10
    mov_imm r3, 0x40400000
    mov_imm r4, 7
    mov_imm r5, 0xBF000001
    mov_imm r6, 3
    and r6, r0, r6
    mov_imm r7, 1
    icmp_lt p1, r0, r4
    mov_sr r10, sr_workgroup_id_x
    ucmp_lt p2, r10, r6
    fcmp_lt p3, r5, r3
"""


def native_epilogue() -> str:
    """Store r3..r8 of every thread after its 32-byte scratch slots."""
    out = ["    mov_imm r10, 4", "    imul r2, r9, r10", "    mov_imm r10, 4096", "    iadd r2, r2, r10",
           "    mov_imm r10, 1024"]
    for k in range(3, 9):
        out += [f"    device_store_u32 r2, r{k}", "    iadd r2, r2, r10"]
    return "\n".join(out) + "\n    halt\n.end\n"


@SETTINGS
@given(st.lists(native_statement(), min_size=1, max_size=12), st.sampled_from([1, 4, 8, 32]),
       st.integers(1, 40), st.integers(1, 3))
def test_every_native_instruction(lines, width, threads, grid):
    need_core()
    source = NATIVE_PROLOGUE + "".join(f"    {text}\n" for text in lines) + native_epilogue()
    assert_native_equal(source, Launch(grid=(grid, 1, 1), workgroup=(threads, 1, 1),
                                       wave_width=width, device_memory=16384,
                                       local_memory=4096, register_threads=(0, threads + 1)),
                        RunOptions(initcheck=False, max_instructions=MAX_INSTRUCTIONS),
                        must_run=False)


# ---- racy programs: workgroups meeting on device words -------------------------------------
RACY_PROLOGUE = (".kernel racy\n.registers 16\n    mov_sr r2, sr_thread_id_x\n"
                 "    mov_sr r1, sr_workgroup_id_x\n    mov_sr r3, sr_workgroup_size_x\n"
                 "    imad r0, r1, r3, r2\n    mov_imm r14, 4\n")
# where an access goes: one word for all, each thread's own word, or the same word of every
# workgroup (r0 the global thread, r2 the thread in its workgroup), at a byte offset
RACY_ADDRESS = {"one": "    mov_imm r9, {c}\n",
                "own": "    imul r9, r0, r14\n    mov_imm r10, {c}\n    iadd r9, r9, r10\n",
                "same": "    imul r9, r2, r14\n    mov_imm r10, {c}\n    iadd r9, r9, r10\n"}
RACY_ACCESS = ["device_load_u32 r11, r9", "device_store_u32 r9, r0", "device_store_u8 r9, r1",
               "device_load_u16 r11, r9", "device_store_u64 r9, r0",
               "atomic_add r11, r9, r0, .device", "atomic_max r11, r9, r1, .device"]


@st.composite
def racy_access(draw) -> str:
    where = RACY_ADDRESS[draw(st.sampled_from(sorted(RACY_ADDRESS)))]
    return where.format(c=draw(st.sampled_from([0, 2, 4, 8, 64]))) \
        + f"    {draw(st.sampled_from(RACY_ACCESS))}\n"


@SETTINGS
@given(st.lists(racy_access(), min_size=1, max_size=6), st.sampled_from([4, 8]),
       st.integers(1, 8), st.integers(2, 4), st.sampled_from([1, 1 << 20]))
def test_racy_programs(accesses, width, threads, grid, batch):
    """Workgroups of one wave meeting on device words (plain, unaligned, wide and atomic
    accesses): the core runs each (a race between workgroups, an unaligned atomic are its
    own) and reports as the numpy engine, whatever the numpy engine's batches."""
    need_core()
    source = RACY_PROLOGUE + "".join(accesses) + "    halt\n.end\n"
    launch = Launch(grid=(grid, 1, 1), workgroup=(min(threads, width), 1, 1), wave_width=width,
                    device_memory=1024)
    assert_native_equal(source, launch, RunOptions(initcheck=False, max_batch_lanes=batch))
