"""NaN operands of the f32, f16, bf16 and f64 instructions on the native core and the numpy
engine, without upstream (tests/test_emu_nan_differential.py compares with it): random programs
over quiet and signalling NaNs with payloads of both signs, infinities, zeros and numbers, on
lane counts that take numpy's loops through their vector bodies and tails, run on the core with
the numpy engine's exact report; every NaN pair of every family (tests/nan_kernels.py) gives
both engines the rule's bits (the first NaN operand in the instruction's order made quiet, the
default NaN of an invalid operation; fmin/fmax: the other operand, as upstream's Rust min/max;
fclamp/fsat: a NaN x as it is), at every place of numpy's arrays."""

from __future__ import annotations

import random
import struct

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

import nan_kernels as nk
from .native_support import assert_native_equal, both_engines, need_core
from .test_native_command import command
from .test_native_mma import SETTINGS

from wave_lsp.emu import Launch, RunOptions
from wave_lsp.emu.alu import FUNCTIONS
from wave_lsp.emu.kernel_launch import DataFill

QUIET = 0x00400000
NANS = [0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFD00001, 0x7F800001, 0xFF800ABC, 0x7FBFFFFF,
        0x7F817FC1, 0x3F80FFA0,          # bf16 NaNs in the low half (and the high half)
        0x7FF80000, 0xFFF00001, 0x7FF40000,   # high words of f64 NaNs (f32 NaNs too)
        0x7C017E03, 0x3C00FE04]               # f16 NaNs in the low half (and the high half)
OTHERS = [0x3F800000, 0xBF800000, 0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x40490FDB,
          0x00000001, 0x3F000000, 0xC0200000]
TWO = ["fadd", "fsub", "fmul", "fdiv", "fmin", "fmax", "badd", "bsub", "bmul", "badd2",
       "bmul2", "hadd", "hsub", "hmul", "hadd2", "hmul2"]
ONE = ["fsqrt", "frsqrt", "frcp", "ffloor", "fceil", "fround", "ftrunc", "ffract", "fsat",
       "fneg", "fabs", "cvt_f16_f32", "cvt_f32_f16", "cvt_bf16_f32", "cvt_f32_bf16"]
THREE = ["fma", "fclamp", "bma", "bma2", "hma", "hma2"]
VALUES = 8                       # words per thread: r2..r9 loaded, then stored

PROLOGUE = f""".kernel nan_ops
.registers 16
    mov_sr r0, sr_thread_id_x
    mov_imm r1, {4 * VALUES}
    imul r1, r0, r1
""" + "".join(f"    device_load_u32 r{2 + i}, r1\n    mov_imm r15, 4\n    iadd r1, r1, r15\n"
              for i in range(VALUES))
# thread t's results go after every thread's inputs: (threads + t) * 4 * VALUES
EPILOGUE = f"""    mov_sr r10, sr_workgroup_size_x
    iadd r10, r10, r0
    mov_imm r11, {4 * VALUES}
    imul r1, r10, r11
""" + "".join(f"    device_store_u32 r1, r{2 + i}\n    iadd r1, r1, r15\n"
                   for i in range(VALUES)) + "    halt\n.end\n"

reg = st.sampled_from([f"r{2 + i}" for i in range(VALUES)])


pair = st.sampled_from(["r2", "r4", "r6", "r8"])        # f64: r2:r3, ...
F64 = {"dadd": 2, "dsub": 2, "dmul": 2, "ddiv": 2, "dma": 3, "dsqrt": 1}


@st.composite
def statement(draw) -> str:
    if draw(st.integers(0, 3)) == 0:                       # f64 and its conversions
        name = draw(st.sampled_from(sorted(F64) + ["cvt_f32_f64", "cvt_f64_f32"]))
        if name == "cvt_f32_f64":
            return f"    cvt_f32_f64 {draw(reg)}, {draw(pair)}\n"
        if name == "cvt_f64_f32":
            return f"    cvt_f64_f32 {draw(pair)}, {draw(reg)}\n"
        return f"    {name} {draw(pair)}, " + ", ".join(draw(pair) for _ in range(F64[name])) \
            + "\n"
    arity = draw(st.sampled_from([1, 2, 2, 3]))
    name = draw(st.sampled_from({1: ONE, 2: TWO, 3: THREE}[arity]))
    return f"    {name} {draw(reg)}, " + ", ".join(draw(reg) for _ in range(arity)) + "\n"


def launch(values: list[int], threads: int, width: int) -> Launch:
    data = struct.pack(f"<{len(values)}I", *values)
    return Launch(workgroup=(threads, 1, 1), wave_width=width,
                  device_memory=2 * 4 * VALUES * threads, memory_init=(DataFill(0, data),))


@SETTINGS
@given(st.data(), st.lists(statement(), min_size=1, max_size=8),
       st.sampled_from([1, 3, 16, 17, 33, 64, 70]), st.sampled_from([4, 16, 32]),
       st.sampled_from([1, 2, 4]))
def test_nan_operands(data, lines, threads, width, numbers):
    """Random float operations over NaN-rich values (`numbers` times as many numbers as NaNs in
    the mix): the core runs them all, with the numpy engine's report, exactly."""
    need_core()
    mix = random.Random(data.draw(st.integers(0, 1 << 32), label="seed"))
    values = mix.choices(OTHERS * numbers + NANS, k=VALUES * threads)
    assert_native_equal(PROLOGUE + "".join(lines) + EPILOGUE, launch(values, threads, width),
                        RunOptions(initcheck=False))


def run_one(text: str, a: int, b: int = 0x3F800000, c: int = 0x3F800000):
    """(the numpy engine's r2 after `text` on r2=a, r3=b, r4=c, and the core's attempt: None
    where it ran, with the same memory)."""
    values = [a, b, c] + [0x3F800000] * (VALUES - 3)
    report, native = both_engines(PROLOGUE + f"    {text}\n" + EPILOGUE,
                                  launch(values, 1, 4), RunOptions(initcheck=False))
    out = struct.unpack("<I", report.device_memory.tobytes()[4 * VALUES:4 * VALUES + 4])[0]
    if native.reason is None:
        assert bytes(native.device) == report.device_memory.tobytes()
    return out, native.reason


def numpy_one(text: str, a: int, b: int, lanes: int) -> list[int]:
    """The numpy engine's function of `text`'s instruction on `lanes` lanes of r2=a, r3=b."""
    mnemonic, operands = text.split(None, 1)
    values = {"r2": a, "r3": b, "r4": 0x3F800000}
    args = [np.full(lanes, values[r.strip()], dtype=np.uint32) for r in operands.split(",")[1:]]
    with np.errstate(all="ignore"):
        return [int(v) for v in FUNCTIONS[mnemonic](*args)]


def test_one_nan_runs_on_the_core_with_its_payload_made_quiet():
    """One NaN operand: itself made quiet (ffloor/fceil/ftrunc: as it is), on the core."""
    need_core()
    snan, qnan = 0xFF800ABC, 0x7FC12345
    cases = [("fadd r2, r2, r3", snan, 0x3F800000, snan | QUIET),
             ("fsub r2, r3, r2", snan, 0x7F800000, snan | QUIET),
             ("fmul r2, r3, r2", qnan, 0x00000000, qnan),
             ("fdiv r2, r3, r2", snan, 0x3F800000, snan | QUIET),
             ("fsqrt r2, r2", snan, 0, snan | QUIET),
             ("frcp r2, r2", snan, 0, snan | QUIET),
             ("fround r2, r2", snan, 0, snan | QUIET),
             ("ffract r2, r2", qnan, 0, qnan),
             ("fma r2, r3, r4, r2", snan, 0x3F800000, snan | QUIET),     # c the NaN
             ("fma r2, r2, r3, r4", snan, 0x00000000, snan | QUIET),     # NaN * 0
             ("fmin r2, r2, r3", qnan, 0xC0200000, 0xC0200000),
             ("fmax r2, r3, r2", qnan, 0xC0200000, 0xC0200000),
             ("fsat r2, r2", qnan, 0, qnan),
             ("badd r2, r2, r3", 0x7F81, 0x3F80, 0x7FC1),                 # bf16 sNaN + 1
             ("bmul2 r2, r3, r2", 0xFFA07F81, 0x3F803F80, 0xFFE07FC1),
             # the f64 sNaN 0xFFF00001_00000001: quiet, its payload's high bits
             ("cvt_f32_f64 r2, r2", 0x00000001, 0xFFF00001, 0xFFC00008),
             # f32 sNaN -> f64 0xFFF80157_80000000 (quiet, payload widened): its low word
             ("cvt_f64_f32 r2, r2", snan, 0, 0x80000000),
             ("dadd r2, r2, r4", 0x00000001, 0xFFF00001, 0x00000001)]     # (lo word kept)
    for text, a, b, want in cases:
        got, reason = run_one(text, a, b)
        assert (hex(got), reason) == (hex(want), None), text


def test_two_nans_run_on_the_core_with_the_first_in_the_instructions_order():
    """Two different NaNs: the first in the instruction's order of precedence (b before a in
    fma, hadd and hmul), made quiet; an invalid operation gives the negative default NaN."""
    need_core()
    q1, s2, n3 = 0x7FC00001, 0x7F800002, 0xFFC00003
    cases = [("fadd r2, r2, r3", q1, s2, q1), ("fadd r2, r3, r2", q1, s2, s2 | QUIET),
             ("fsub r2, r2, r3", s2, n3, s2 | QUIET), ("fmul r2, r2, r3", n3, q1, n3),
             ("fdiv r2, r3, r2", q1, n3, n3),
             ("fma r2, r2, r3, r4", q1, s2, s2 | QUIET),        # b before a
             ("fma r2, r4, r2, r3", q1, s2, q1),                # a (r4 = 1) no NaN, b before c
             ("fma r2, r3, r4, r2", q1, s2, s2 | QUIET),        # a before c
             ("fsub r2, r3, r3", q1, 0x7F800000, 0xFFC00000),  # inf - inf
             ("hadd r2, r2, r3", 0x7C01, 0xFE04, 0xFE04),       # b before a, made quiet
             ("hsub r2, r2, r3", 0x7C01, 0xFE04, 0x7E01),
             ("hmul2 r2, r2, r3", 0x7C017E03, 0xFC023C00, 0xFE027E03),
             ("cvt_f16_f32 r2, r2", 0x7F802000, 0, 0x7E01),
             ("cvt_f32_f16 r2, r2", 0xFC01, 0, 0xFFC02000),
             ("bmul r2, r2, r3", 0x7F81, 0xFF82, 0x7FC1),
             ("bma r2, r2, r3, r4", 0x7F81, 0xFF82, 0xFFC2)]
    for text, a, b, want in cases:
        got, reason = run_one(text, a, b)
        assert (hex(got), reason) == (hex(want), None), text
        for lanes in (1, 5, 16, 37, 100):   # the numpy engine, through vector body and tail
            if "r4" not in text:
                assert numpy_one(text, a, b, lanes) == [want] * lanes, (text, lanes)


@pytest.mark.parametrize("group", nk.LANE_COUNTS)
@pytest.mark.parametrize("family", sorted(nk.FAMILIES))
def test_every_nan_pair_follows_the_rule_on_both_engines(family, group):
    """Every pair of NaN and other patterns of a family (nan_kernels.rows) in workgroups of
    `group` lanes: the core runs the launch, both engines' memory is the same, and the results
    follow nan_kernels.expected."""
    need_core()
    triples = nk.rows(family)
    words = nk.lane_words(family, triples)
    total = -(-len(triples) // group) * group
    report, native = both_engines(nk.kernel(family, total),
                                  nk.make_launch(family, words, group, 32),
                                  RunOptions(initcheck=False))
    assert native.reason is None
    assert bytes(native.device) == report.device_memory.tobytes()
    out = nk.outputs(family, report.device_memory.tobytes(), total)[:len(triples)]
    assert nk.rule_mismatches(family, triples, out) == []


@pytest.mark.parametrize("family", sorted(nk.FAMILIES))
def test_the_command_runs_nans_on_the_core(family, tmp_path):
    """`wave-lsp run` of a family's NaN pairs: `WAVE_LSP_SHOW_ENGINE=1` says the core gave the
    results, and they are the numpy engine's."""
    need_core()
    from wave_lsp.asm import assemble
    triples = nk.rows(family)[:100]
    words = nk.lane_words(family, triples)
    (tmp_path / "nan.wbin").write_bytes(assemble(nk.kernel(family, 100)).wbin())
    (tmp_path / "nan.bin").write_bytes(struct.pack(f"<{len(words)}I", *words))
    argv = ["nan.wbin", "--workgroup", "100,1,1", "--no-initcheck", "--arg", "0:nan.bin",
            "--dump-u32", f"{4 * nk.WORDS_IN * 100}:{nk.words_out(family) * 100}"]
    fast, slow = command(argv, tmp_path), command(argv, tmp_path, native=False)
    assert fast.returncode == slow.returncode == 0, (fast.stderr, slow.stderr)
    assert fast.stderr.startswith("engine: native"), fast.stderr
    assert slow.stderr.startswith("engine: numpy"), slow.stderr
    assert fast.stdout == slow.stdout


def test_mma_nans_follow_upstreams_order_on_both_engines():
    """mma_compute: the product's first NaN factor (A's before B's), then the sum's first NaN of
    the product and C (measured with upstream's wave-emu); the core runs it."""
    need_core()
    n1, n2, one = 0x7FC00001, 0x7F800002, 0x3F800000
    cases = [([(0, n1)], [(0, n2)], n1), ([(0, n2)], [(0, n1)], n2 | QUIET),
             ([(0, n1), (1, n2)], [(0, one), (4, one)], n2 | QUIET),      # C then a NaN product
             ([(0, 0), (1, n2)], [(0, 0x7F800000), (4, one)], n2 | QUIET),
             ([(0, 0x7F800000), (1, 0x7F800000)], [(0, one), (4, 0xBF800000)], 0xFFC00000)]
    for a_words, b_words, want in cases:
        values = [0] * 48
        for i, v in a_words:
            values[i] = v
        for i, v in b_words:
            values[16 + i] = v
        data = struct.pack("<48I", *values)
        report, native = both_engines(MMA, Launch(workgroup=(1, 1, 1),
                                                  memory_init=(DataFill(0, data),)),
                                      RunOptions(initcheck=False))
        assert native.reason is None
        assert bytes(native.device) == report.device_memory.tobytes()
        got = int(np.frombuffer(report.device_memory.tobytes(), dtype="<u4")[32])
        assert hex(got) == hex(want)


# A (device words 0..15) times B (16..31) into C, stored at device words 32..47
MMA = """.kernel mma_nans
.registers 16
    mov_imm r1, 0
    mov_imm r2, 4
    mov_imm r3, 192
loop
    device_load_u32 r4, r1
    local_store_u32 r1, r4
    iadd r1, r1, r2
    icmp_ge p1, r1, r3
    break p1
endloop
    mov_imm r8, 0
    mov_imm r9, 64
    mov_imm r10, 128
    mov_imm r11, 16
    mma_load_a r0, r8, r11
    mma_load_b r0, r9, r11
    mma_compute r0, r0, r0
    mma_store_c r10, r11, r0
    mov_imm r1, 128
loop
    local_load_u32 r4, r1
    device_store_u32 r1, r4
    iadd r1, r1, r2
    icmp_ge p1, r1, r3
    break p1
endloop
    halt
.end
"""


def test_min_max_clamp_and_sat_are_upstreams_on_both_engines():
    """fmin/fmax/fclamp/fsat as upstream's Rust min, max and clamp answer them (measured with
    upstream's wave-emu): a NaN operand of min/max gives the other (two NaNs: the second, its
    bits kept), of +0 and -0 the first; clamp and sat keep x unless it is below or above (a
    NaN x as it is). The core runs them all; the numpy engine answers alike at every place
    of its arrays (np.fmin's vector loop and scalar tail differ on these)."""
    need_core()
    snan, q1, q2 = 0x7F800001, 0x7FC00001, 0x7FC00002
    cases = [("fmin r2, r2, r3", q1, q2, q2), ("fmax r2, r2, r3", q1, q2, q2),
             ("fmin r2, r2, r3", snan, 0x3F800000, 0x3F800000),
             ("fmin r2, r2, r3", 0x3F800000, snan, 0x3F800000),
             ("fmin r2, r2, r3", snan, q2, q2),
             ("fmin r2, r2, r3", 0x80000000, 0, 0x80000000),
             ("fmin r2, r2, r3", 0, 0x80000000, 0),
             ("fmax r2, r2, r3", 0x80000000, 0, 0x80000000),
             ("fmax r2, r2, r3", 0, 0x80000000, 0),
             ("fsat r2, r2", 0x80000000, 0, 0x80000000), ("fsat r2, r2", snan, 0, snan),
             ("fsat r2, r2", q1, 0, q1)]
    for text, a, b, want in cases:
        got, reason = run_one(text, a, b)
        assert (hex(got), reason) == (hex(want), None), text
        for lanes in (1, 5, 16, 37):        # the numpy engine, through vector body and tail
            assert numpy_one(text, a, b, lanes) == [want] * lanes, (text, lanes)
    # the same NaN twice does not depend on the order
    got, reason = run_one("fadd r2, r2, r3", 0x7FC00001, 0x7F800001)
    assert (got, reason) == (0x7FC00001, None)


def test_fused_fma_runs_give_the_rule_too():
    """A run of independent fma (the numpy engine evaluates it at once, fusion.py) over NaN
    pairs: each result as nan_kernels.expected, on both engines."""
    need_core()
    from wave_lsp.emu.fusion import fuse
    from wave_lsp.asm import assemble
    orders = [(2, 3, 4), (3, 2, 4), (4, 2, 3), (2, 4, 3)]
    body = "".join(f"    fma r{10 + i}, r{a}, r{b}, r{c}\n" for i, (a, b, c) in enumerate(orders))
    source = PROLOGUE + body + "".join(f"    mov r{2 + i}, r{10 + i}\n" for i in range(4)) \
        + EPILOGUE
    kernel = assemble(source).kernels[0]
    assert any(f is not None and f[1] == 4 for f in fuse(kernel.instructions, 16))
    triples = nk.rows("f32")[:200]
    values = [w for t in triples for w in list(t) + [0x3F800000] * (VALUES - 3)]
    report, native = both_engines(source, launch(values, len(triples), 32),
                                  RunOptions(initcheck=False))
    assert native.reason is None
    assert bytes(native.device) == report.device_memory.tobytes()
    out = np.frombuffer(report.device_memory.tobytes(), dtype="<u4")[VALUES * len(triples):]
    for lane, t in enumerate(triples):
        regs = {2: t[0], 3: t[1], 4: t[2]}
        for i, (a, b, c) in enumerate(orders):
            want = nk.expected("f32", "fma", (1, 0, 2), (regs[a], regs[b], regs[c]))
            got = int(out[lane * VALUES + i])
            assert want is None or got == want, (t, (a, b, c), hex(got), hex(want))
