"""Emulator semantics: each deviation from upstream listed in DESIGN.md §1, and edge cases of
every instruction group."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from numpy_engine import run
from wave_lsp.emu import DataFill, Launch

OPTION_FIELDS = ("max_instructions", "record_threads")


def kernel(body: str, registers: int = 16, local: int = 0) -> str:
    lines = [".kernel t", f".registers {registers}"]
    if local:
        lines.append(f".local_memory {local}")
    lines += ["    " + line.strip() for line in body.strip().splitlines()]
    return "\n".join(lines + ["    halt", ".end", ""])


def go(body, threads=4, width=4, registers=16, **kw):
    kw.setdefault("device_memory", 4096)
    options = {k: kw.pop(k) for k in OPTION_FIELDS if k in kw}
    return run(kernel(body, registers, kw.pop("local", 0)),
               Launch(workgroup=(threads, 1, 1), wave_width=width,
                      register_threads=range(threads), **kw), **options)


def regs(report, reg, threads=4):
    return [report.registers[t][reg] for t in range(threads)]


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def as_f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


LANE = "mov r0, sr_lane_id\nmov_imm r15, 1\n"


# ---- deviations from upstream (DESIGN.md §1) --------------------------------------------------
@pytest.mark.parametrize("limit_reg, expected", [("r14", [0, 0, 0, 0]), ("r0", [0, 1, 2, 3])])
def test_continue_taken_by_all_and_by_some_lanes(limit_reg, expected):
    # 4 iterations; lanes continue while the iteration number <= limit (r14 = 99: all lanes,
    # every time; r0 = lane id: lane L continues in its first L iterations). r2 counts the
    # iterations that reached the end of the body.
    body = LANE + f"""
        mov_imm r14, 99
        mov_imm r13, 4
        loop
            icmp_ge p0, r1, r13
            break p0
            iadd r1, r1, r15
            icmp_le p2, r1, {limit_reg}
            continue p2
            iadd r2, r2, r15
        endloop"""
    report = go(body)
    assert not report.errors
    assert regs(report, "r1") == [4, 4, 4, 4]
    assert regs(report, "r2") == [4 - e if limit_reg == "r0" else e for e in expected]


@pytest.mark.parametrize("guarded", [False, True])
def test_halt_in_divergent_if_ends_only_executing_lanes(guarded):
    body = LANE + f"""
        mov_imm r1, 2
        icmp_lt p1, r0, r1
        mov_imm r3, 1
        icmp_eq p2, r0, r3
        if p1
            {'@p2 ' if guarded else ''}halt
        endif
        mov_imm r5, 7
        mov_imm r6, 4
        imul r7, r0, r6
        device_store_u32 r7, r5"""
    report = go(body)
    assert not report.errors
    expected = [7, 0, 7, 7] if guarded else [0, 0, 7, 7]
    assert report.read_u32(0, 4) == expected


def test_barrier_in_divergent_flow_is_an_error_with_its_line():
    body = LANE + """
        mov_imm r1, 2
        icmp_lt p1, r0, r1
        if p1
            barrier
        endif"""
    report = go(body)
    (error,) = report.errors
    assert error.kind == "divergent_barrier"
    assert error.line == 8          # 0-based line of `barrier`
    assert error.workgroup == (0, 0, 0) and error.wave == 0
    assert error.details["active"] == 0b0011 and error.details["expected"] == 0b1111


def test_halted_wave_before_barrier_is_a_deadlock():
    body = """
        mov r0, sr_wave_id
        mov_imm r1, 0
        icmp_eq p1, r0, r1
        @p1 halt
        barrier"""
    report = go(body, threads=8)
    assert report.errors[0].kind == "deadlock"


def test_shuffle_from_inactive_lane_reads_zero_and_warns():
    body = LANE + """
        mov_imm r1, 100
        iadd r2, r0, r1
        mov_imm r3, 2
        icmp_lt p1, r0, r3
        mov_imm r4, 3
        if p1
            wave_shuffle r5, r2, r4
        endif"""
    report = go(body)
    assert not report.errors
    assert regs(report, "r5") == [0, 0, 0, 0]
    assert report.warnings[0].kind == "inactive_shuffle_source"
    assert report.warnings[0].line is not None


def test_f32_division_by_signed_zero_is_ieee():
    body = f"""
        mov_imm r1, {f32(1.0)}
        mov_imm r2, {f32(-0.0)}
        mov_imm r3, 0
        fdiv r4, r1, r2
        fdiv r5, r3, r3
        fdiv r6, r1, r3"""
    report = go(body, threads=1, width=1)
    r = report.registers[0]
    assert as_f32(r["r4"]) == float("-inf")
    assert np.isnan(as_f32(r["r5"]))
    assert as_f32(r["r6"]) == float("inf")


def test_out_of_bounds_error_details():
    body = LANE + """
        mov_imm r1, 1020
        iadd r2, r0, r1
        device_load_u32 r3, r2"""
    report = go(body, device_memory=1024)
    (error,) = report.errors
    assert error.kind == "out_of_bounds"
    assert error.lanes == (1, 2, 3) and error.wave == 0 and error.line == 7
    assert error.details["address"] == 1021
    assert "0x00000000000003fd" in error.message


def test_register_beyond_declared_count_is_an_error():
    report = go("mov_imm r9, 1", registers=8)
    assert report.errors[0].kind == "register_out_of_range"
    assert "r9" in report.errors[0].message


def test_unaligned_access_works_and_warns():
    init = [DataFill(0, bytes(range(16)))]
    report = go("mov_imm r1, 1\ndevice_load_u32 r2, r1", threads=1, width=1, memory_init=init)
    assert report.registers[0]["r2"] == 0x04030201
    assert report.warnings[0].kind == "unaligned_access"


def test_kernel_without_halt_ends_at_its_code_end():
    source = ".kernel a\n    mov_imm r1, 5\n.end\n.kernel b\n    mov_imm r1, 9\n    halt\n.end\n"
    report = run(source, Launch(workgroup=(1, 1, 1), register_threads=[0]))
    assert not report.errors and report.registers[0]["r1"] == 5


# ---- integer, bitwise ----------------------------------------------------------------------------
@pytest.mark.parametrize("op, a, b, expected", [
    ("iadd", 0xFFFFFFFF, 1, 0), ("isub", 0, 1, 0xFFFFFFFF), ("imul", 0x10000, 0x10000, 0),
    ("imul_hi", 0xFFFFFFFF, 0xFFFFFFFF, 0), ("imul_hi", 0x40000000, 4, 1),
    ("idiv", 0x80000000, 0xFFFFFFFF, 0x80000000), ("imod", 0x80000000, 0xFFFFFFFF, 0),
    ("idiv", 7, 0, 0), ("imod", 7, 0, 0), ("idiv", 0xFFFFFFF9, 2, 0xFFFFFFFD),
    ("imod", 0xFFFFFFF9, 2, 0xFFFFFFFF), ("shl", 1, 32, 1), ("shl", 1, 33, 2),
    ("shr", 0x80000000, 63, 1), ("sar", 0x80000000, 31, 0xFFFFFFFF),
    ("imin", 0xFFFFFFFF, 1, 0xFFFFFFFF), ("imax", 0x80000000, 0, 0),
])
def test_integer_edges(op, a, b, expected):
    report = go(f"mov_imm r1, {a}\nmov_imm r2, {b}\n{op} r3, r1, r2", threads=1, width=1)
    assert report.registers[0]["r3"] == expected


@pytest.mark.parametrize("op, a, expected", [
    ("iabs", 0x80000000, 0x80000000), ("ineg", 0x80000000, 0x80000000),
    ("bitcount", 0xF0F0F0F0, 16), ("bitfind", 0, 0xFFFFFFFF), ("bitfind", 1, 31),
    ("bitfind", 0x80000000, 0), ("bitrev", 1, 0x80000000), ("not", 0, 0xFFFFFFFF),
])
def test_unary_bit_edges(op, a, expected):
    report = go(f"mov_imm r1, {a}\n{op} r3, r1", threads=1, width=1)
    assert report.registers[0]["r3"] == expected


def test_bfe_and_bfi():
    body = """
        mov_imm r1, 0xABCD1234
        mov_imm r2, 8
        mov_imm r3, 12
        bfe r4, r1, r2, r3
        mov_imm r5, 0
        bfe r6, r1, r2, r5
        mov_imm r7, 0xF
        bfi r8, r1, r7, r2, r3
        bfi r9, r1, r7, r2, r5"""
    r = go(body, threads=1, width=1).registers[0]
    assert r["r4"] == 0xD12 and r["r6"] == 0
    assert r["r8"] == 0xABC00F34 and r["r9"] == 0xABCD1234


# ---- floats ------------------------------------------------------------------------------------
NAN = 0x7FC00000


@pytest.mark.parametrize("op, a, b, expected", [
    ("fmin", NAN, f32(1.0), f32(1.0)), ("fmax", f32(2.0), NAN, f32(2.0)),
    ("fmin", f32(float("-inf")), f32(1.0), f32(float("-inf"))),
    ("fadd", f32(float("inf")), f32(float("-inf")), None),
])
def test_float_nan_and_infinities(op, a, b, expected):
    r = go(f"mov_imm r1, {a}\nmov_imm r2, {b}\n{op} r3, r1, r2", threads=1, width=1)
    value = r.registers[0]["r3"]
    if expected is None:
        assert np.isnan(as_f32(value))
    else:
        assert value == expected


@pytest.mark.parametrize("op, expected", [("fcmp_eq", 0), ("fcmp_ne", 1), ("fcmp_lt", 0),
                                          ("fcmp_gt", 0), ("fcmp_ord", 0), ("fcmp_unord", 1)])
def test_compares_with_nan(op, expected):
    body = f"mov_imm r1, {NAN}\nmov_imm r2, {f32(1.0)}\n{op} p1, r1, r2\nselect r3, p1, r15, r14"
    report = go("mov_imm r15, 1\nmov_imm r14, 0\n" + body, threads=1, width=1)
    assert report.registers[0]["r3"] == expected


def test_f16_and_bf16_rounding():
    body = f"""
        mov_imm r1, {f32(1.0 + 2 ** -11)}
        cvt_f16_f32 r2, r1
        mov_imm r3, {f32(1.0 + 3 * 2 ** -11)}
        cvt_f16_f32 r4, r3
        mov_imm r5, {f32(1.0 + 2 ** -7 + 2 ** -8)}
        cvt_bf16_f32 r6, r5
        mov_imm r7, 0x3C00
        hadd r8, r7, r7
        mov_imm r9, 0x3C003C00
        hadd2 r10, r9, r9
        mov_imm r11, 0x3F80
        badd r12, r11, r11"""
    r = go(body, threads=1, width=1).registers[0]
    assert r["r2"] == 0x3C00            # tie rounds to even
    assert r["r4"] == 0x3C02            # tie rounds to even (up)
    assert r["r6"] == 0x3F81            # bf16 truncates
    assert r["r8"] == 0x4000 and r["r10"] == 0x40004000 and r["r12"] == 0x4000


def test_f64_register_pairs():
    lo, hi = struct.unpack("<II", struct.pack("<d", 1.5))
    body = f"""
        mov_imm r2, {lo}
        mov_imm r3, {hi}
        dadd r4, r2, r2
        dmul r6, r4, r4
        cvt_f32_f64 r8, r6
        cvt_f64_f32 r10, r8
        ddiv r12, r2, r4"""
    r = go(body, threads=1, width=1).registers[0]
    assert struct.unpack("<d", struct.pack("<II", r["r4"], r["r5"]))[0] == 3.0
    assert as_f32(r["r8"]) == 9.0
    assert struct.unpack("<d", struct.pack("<II", r["r10"], r["r11"]))[0] == 9.0
    assert struct.unpack("<d", struct.pack("<II", r["r12"], r["r13"]))[0] == 0.5


def test_conversions_saturate():
    body = f"""
        mov_imm r1, {f32(3e9)}
        cvt_i32_f32 r2, r1
        cvt_u32_f32 r3, r1
        mov_imm r4, {NAN}
        cvt_i32_f32 r5, r4
        mov_imm r6, {f32(-2.7)}
        cvt_i32_f32 r7, r6
        cvt_u32_f32 r8, r6
        mov_imm r9, 0xFFFFFFFF
        cvt_f32_i32 r10, r9"""
    r = go(body, threads=1, width=1).registers[0]
    assert r["r2"] == 0x7FFFFFFF and r["r3"] == 3000000000 and r["r5"] == 0
    assert r["r7"] == 0xFFFFFFFE and r["r8"] == 0 and as_f32(r["r10"]) == -1.0


# ---- memory --------------------------------------------------------------------------------------
def test_u64_and_u128_memory():
    body = """
        mov_imm r1, 16
        mov_imm r4, 0x11111111
        mov_imm r5, 0x22222222
        mov_imm r6, 0x33333333
        mov_imm r7, 0x44444444
        device_store_u128 r1, r4
        device_load_u64 r8, r1
        mov_imm r2, 64
        device_store_u64 r2, r6
        device_load_u128 r10, r1"""
    report = go(body, threads=1, width=1)
    r = report.registers[0]
    assert (r["r8"], r["r9"]) == (0x11111111, 0x22222222)
    assert [r[f"r{i}"] for i in range(10, 14)] == [0x11111111, 0x22222222, 0x33333333,
                                                   0x44444444]
    assert report.read_u32(64, 2) == [0x33333333, 0x44444444]


@pytest.mark.parametrize("op, expected_final, expected_old", [
    ("atomic_add", 10 + 0 + 1 + 2 + 3, [10, 10, 11, 13]),
    ("atomic_sub", (10 - 6) & 0xFFFFFFFF, [10, 10, 9, 7]),
    ("atomic_max", 10, [10, 10, 10, 10]),
    ("atomic_exchange", 3, [10, 0, 1, 2]),
    ("atomic_or", 11, [10, 10, 11, 11]),
])
def test_colliding_atomics_in_thread_order(op, expected_final, expected_old):
    body = LANE + f"mov_imm r1, 0\n{op} r2, r1, r0, .device"
    report = go(body, memory_init=[DataFill(0, struct.pack("<I", 10))])
    assert report.read_u32(0, 1) == [expected_final]
    assert regs(report, "r2") == expected_old


def test_local_memory_is_per_workgroup():
    body = """
        mov r0, sr_workgroup_id_x
        mov_imm r1, 0
        local_atomic_add r2, r1, r0
        local_load_u32 r3, r1
        mov_imm r4, 4
        imul r5, r0, r4
        device_store_u32 r5, r3"""
    report = run(kernel(body, local=64), Launch(grid=(3, 1, 1), workgroup=(4, 1, 1),
                                                 wave_width=4, device_memory=64))
    assert report.read_u32(0, 3) == [0, 4, 8]


# ---- wave operations under partial masks ---------------------------------------------------
@pytest.mark.parametrize("width", [4, 16, 32, 64])
def test_wave_ops_under_partial_masks(width):
    body = LANE + """
        mov_imm r1, 3
        and r2, r0, r1
        mov_imm r3, 0
        icmp_ne p1, r2, r3
        if p1
            wave_reduce_add r4, r0
            wave_prefix_sum r5, r15
            wave_ballot r6, p1
            wave_reduce_max r7, r0
            wave_reduce_min r8, r0
            wave_broadcast r9, r0, r3
        endif"""
    report = go(body, threads=width, width=width)
    assert not report.errors
    active = [lane for lane in range(width) if lane & 3]
    for lane in range(width):
        r = report.registers[lane]
        if lane in active:
            assert r["r4"] == sum(active)
            assert r["r5"] == active.index(lane)
            assert r["r6"] == sum(1 << l for l in active) & 0xFFFFFFFF
            assert r["r7"] == max(active) and r["r8"] == min(active)
            assert r["r9"] == 0          # lane 0 is inactive: 0 (and a warning)
        else:
            assert r["r4"] == r["r5"] == r["r6"] == 0


# ---- control flow and barriers ---------------------------------------------------------------
def test_multi_wave_barriers_in_loops_across_workgroups():
    body = """
        mov r0, sr_thread_id_x
        mov r1, sr_workgroup_id_x
        mov_imm r15, 1
        mov_imm r14, 4
        imul r2, r0, r14
        iadd r3, r1, r15
        loop
            icmp_ge p0, r4, r3
            break p0
            local_load_u32 r5, r2
            iadd r5, r5, r15
            barrier
            local_store_u32 r2, r5
            barrier
            iadd r4, r4, r15
        endloop
        mov_imm r6, 8
        imul r7, r1, r6
        imul r8, r7, r14
        iadd r8, r8, r2
        local_load_u32 r9, r2
        device_store_u32 r8, r9"""
    report = run(kernel(body, local=64), Launch(grid=(3, 1, 1), workgroup=(8, 1, 1),
                                                 wave_width=4, device_memory=256))
    assert not report.errors
    assert report.read_u32(0, 24) == [1] * 8 + [2] * 8 + [3] * 8


def test_32_deep_nesting_works_and_33_overflows():
    deep = "mov_imm r1, 1\nicmp_eq p1, r1, r1\n" + "if p1\n" * 32 + "mov_imm r2, 7\n" \
        + "endif\n" * 32
    report = go(deep, threads=1, width=1)
    assert not report.errors and report.registers[0]["r2"] == 7
    too_deep = "mov_imm r1, 1\nicmp_eq p1, r1, r1\n" + "if p1\n" * 33 + "endif\n" * 33
    assert go(too_deep, threads=1, width=1).errors[0].kind == "control_stack_overflow"


def test_instruction_limit_and_cancel():
    body = "loop\nnop\nendloop"
    report = go(body, threads=1, width=1, max_instructions=1000)
    assert report.errors[0].kind == "instruction_limit"
    cancelled = run(kernel(body), Launch(workgroup=(1, 1, 1)), max_instructions=0,
                    cancel=lambda: True)
    assert cancelled.errors[0].kind == "cancelled"


def test_line_records_for_the_first_wave():
    body = LANE + "mov_imm r1, 2\nicmp_lt p1, r0, r1\nif p1\niadd r2, r0, r0\nendif"
    report = go(body, record_threads="first_wave")
    records = report.line_records
    iadd = next(r for r in records.values() if r.mnemonic == "iadd")
    assert iadd.count == 1 and iadd.first_active == (True, True, False, False)
    assert iadd.writes[0][0].target == "r2" and iadd.writes[0][0].values == {0: 0, 1: 2}


# ---- fma rounds once ---------------------------------------------------------------------------
def _nearest_f32(exact):
    """The f32 nearest to a Fraction (ties to even), by looking at the neighbours."""
    import numpy as np
    from fractions import Fraction

    guess = np.float32(float(exact))
    best = None
    for v in (np.nextafter(guess, np.float32(-np.inf)), guess,
              np.nextafter(guess, np.float32(np.inf))):
        if np.isfinite(v):
            key = (abs(Fraction(float(v)) - exact), int(np.array(v).view(np.uint32)) & 1)
            best = min(best, (key, v)) if best else (key, v)
    return best[1]


def test_fma_is_fused_with_a_single_rounding():
    import numpy as np
    from fractions import Fraction

    from wave_lsp.emu.alu import fma_f32

    # a*a is exactly halfway between two f32 values and c tips it up: a product-then-sum in f64
    # rounds to the tie and then to the even (lower) neighbour; a fused fma rounds up.
    a = np.array([1 + 2 ** -12], dtype=np.float32)
    c = np.array([2.0 ** -80], dtype=np.float32)
    assert fma_f32(a, a, c)[0] == np.float32(1 + 2 ** -11 + 2 ** -23)
    assert fma_f32(a, a, -c)[0] == np.float32(1 + 2 ** -11)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(3000).astype(np.float32)
    y = rng.standard_normal(3000).astype(np.float32)
    z = (-(x.astype(np.float64) * y) + rng.standard_normal(3000) * 1e-6).astype(np.float32)
    got = fma_f32(x, y, z)
    for i in range(3000):
        exact = Fraction(float(x[i])) * Fraction(float(y[i])) + Fraction(float(z[i]))
        assert got[i] == _nearest_f32(exact), (x[i], y[i], z[i])


def test_fma_instruction_uses_the_fused_rounding():
    source = (".kernel k\n    mov_imm r1, 0x3F800800\n    mov_imm r2, 0x15800000\n"
              "    fma r3, r1, r1, r2\n    mov_imm r4, 0\n    device_store_u32 r4, r3\n    halt\n.end\n")
    report = run(source, Launch(workgroup=(4, 1, 1), wave_width=4, device_memory=64))
    assert not report.errors
    assert int(report.device_memory[:4].view("<u4")[0]) == 0x3F801001
