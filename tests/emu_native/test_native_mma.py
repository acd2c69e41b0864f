"""The matrix instructions on the native core (mma.c): random programs of tile loads, computes
and stores over random floats (negative, huge, subnormal, infinite, NaN with payloads, signalling
NaN, signed zeros), guarded, out of bounds, unaligned, over several workgroups and wave widths,
give the numpy engine's exact report (memory, statistics, warnings with the check on and off,
errors, registers); NaN results are upstream's (the product's first NaN factor, then the sum's
first NaN of the product and C, made quiet, else the default NaN) and the core runs them all;
the memory trace and `WAVE_LSP_SHOW_ENGINE=1` of the command."""

from __future__ import annotations

import os
import struct
import subprocess

from hypothesis import HealthCheck, given, settings, strategies as st

from .native_support import assert_native_equal, both_engines, need_core

from wave_lsp.asm import assemble
from wave_lsp.emu import Launch, RunOptions, run
from wave_lsp.emu.kernel_launch import DataFill
from tests.forkserver import wave_lsp_argv

EXAMPLES = int(os.environ.get("WAVE_NATIVE_EXAMPLES", "30"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=list(HealthCheck))

LOCAL = 512                     # bytes of local memory; device: the input, then each
OUT = LOCAL                     # workgroup's local memory copied out at OUT + wg * LOCAL

FLOATS = [0x3F800000, 0xBF800000, 0x00000000, 0x80000000, 0x7F800000, 0xFF800000,  # 1 -1 0 -0 inf
          0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFD00001, 0x7F800001, 0xFF800ABC,  # NaNs, sNaNs
          0x00000001, 0x807FFFFF, 0x00400000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7E800000,  # subnormal, max
          0x1F800000, 0x40490FDB, 0xC2F6E979, 0x3DCCCCCD, 0x4B000001, 0x33800001]  # tiny, misc
word = st.one_of(st.sampled_from(FLOATS), st.integers(0, 0xFFFFFFFF),
                 st.floats(-1e4, 1e4, width=32).map(lambda x: struct.unpack("<I",
                                                                           struct.pack("<f", x))[0]))

PROLOGUE = """.kernel mma_gen
.registers 16
.local_memory {local}
    mov_sr r0, sr_thread_id_x
    mov_sr r1, sr_lane_id
    mov_sr r2, sr_workgroup_size_x
    mov_imm r15, 4
    mov_imm r10, 2
    icmp_lt p1, r1, r10
    mov_imm r10, 1
    and r10, r1, r10
    icmp_eq p2, r10, r15
    mov_imm r4, {words}
    mov r3, r0
loop
    icmp_ge p0, r3, r4
    break p0
    imul r5, r3, r15
    device_load_u32 r6, r5
    local_store_u32 r5, r6
    iadd r3, r3, r2
endloop
    barrier
"""
# every thread copies words of local memory out to its workgroup's slice of device memory
EPILOGUE = """    barrier
    mov_sr r7, sr_workgroup_id_x
    mov_imm r8, {local}
    imul r7, r7, r8
    iadd r7, r7, r8
    mov_imm r4, {all_words}
    mov r3, r0
loop
    icmp_ge p0, r3, r4
    break p0
    imul r5, r3, r15
    local_load_u32 r6, r5
    iadd r9, r5, r7
    device_store_u32 r9, r6
    iadd r3, r3, r2
endloop
    halt
.end
"""

fragment = st.sampled_from(["r0", "r1", "r3", "r7", "r15", "r200"])
guard = st.sampled_from(["", "", "", "@p1 ", "@!p1 ", "@p2 "])
# a tile at r8 + lane * r9 (bytes), rows r11 apart; some past the end, some unaligned
base = st.sampled_from([0, 0, 64, 128, 2, LOCAL - 64, LOCAL - 60, LOCAL - 63, LOCAL])
per_lane = st.sampled_from([0, 0, 4, 16, 64, 1])
stride = st.sampled_from([16, 16, 0, 4, 20, 64, 1, 0xFFFFFFFC, 128])


@st.composite
def tile_setup(draw) -> str:
    return (f"    mov_imm r8, {draw(base)}\n    mov_imm r9, {draw(per_lane)}\n"
            f"    imad r8, r1, r9, r8\n    mov_imm r11, {draw(stride)}\n")


@st.composite
def mma_statement(draw) -> str:
    kind = draw(st.sampled_from(["load_a", "load_b", "load_a", "load_b", "compute", "compute",
                                 "compute", "store_c", "store_c", "barrier", "if"]))
    if kind == "barrier":
        return "    barrier\n"
    g = draw(guard)
    if kind == "compute":
        return f"    {g}mma_compute {draw(fragment)}, {draw(fragment)}, {draw(fragment)}\n"
    if kind == "if":                  # a divergent region of tile work
        inner = draw(st.lists(mma_statement().filter(lambda s: "barrier" not in s),
                              min_size=1, max_size=3))
        return "if p1\n" + "".join(inner) + "endif\n"
    address = draw(st.sampled_from(["r8", "r8", "r8", "r20"]))   # r20: out of range
    setup = draw(tile_setup())
    if kind == "store_c":
        return f"{setup}    {g}mma_store_c {address}, r11, {draw(fragment)}\n"
    return f"{setup}    {g}mma_{kind} {draw(fragment)}, {address}, r11\n"


# first a product that lands in memory: A at 0 and B at 64 (rows 16 bytes apart), C at 128
MULTIPLY = """    mov_imm r8, 0
    mov_imm r9, 64
    mov_imm r10, 128
    mov_imm r11, 16
    mma_load_a r0, r8, r11
    mma_load_b r0, r9, r11
    mma_compute r0, r0, r0
    mma_compute r0, r0, r0
    mma_store_c r10, r11, r0
"""


def program(statements: list[str], words: int) -> str:
    return (PROLOGUE.format(local=LOCAL, words=words) + MULTIPLY + "".join(statements)
            + EPILOGUE.format(local=LOCAL, all_words=LOCAL // 4))


@SETTINGS
@given(st.lists(mma_statement(), min_size=1, max_size=10), st.lists(word, min_size=LOCAL // 4,
                                                                    max_size=LOCAL // 4),
       st.sampled_from([1, 4, 8, 32]), st.integers(1, 70), st.integers(1, 3),
       st.sampled_from([LOCAL // 4, LOCAL // 4, 40]), st.booleans(),
       st.sampled_from([1, 1 << 20]), st.sampled_from(["every", "none", "one"]))
def test_mma_programs(statements, values, width, threads, grid, copied, initcheck, batch,
                      nan_words):
    """Random tile work: the numpy engine's report; the core runs every one, NaNs included."""
    need_core()
    source = program(statements, copied)
    nan_at = [i for i, v in enumerate(values) if (v & 0x7FFFFFFF) > 0x7F800000]
    keep = {"every": nan_at, "none": [], "one": nan_at[:1]}[nan_words]
    values = [v if i in keep or i not in nan_at else 0x3F800000 for i, v in enumerate(values)]
    data = struct.pack(f"<{len(values)}I", *values)
    launch = Launch(grid=(grid, 1, 1), workgroup=(threads, 1, 1), wave_width=width,
                    device_memory=OUT + 3 * LOCAL, memory_init=(DataFill(0, data),),
                    register_threads=(0, threads + 1))
    assert_native_equal(source, launch, RunOptions(initcheck=initcheck, max_batch_lanes=batch))


# ---- NaN results, bit for bit ------------------------------------------------------------
QUIET = 0x00400000


def reference(a: list[int], b: list[int]) -> list[int]:
    """C = A x B from zero, by upstream's rules, with numpy scalars: each product and sum rounded
    to f32, a NaN result the first NaN operand (of a * b, then of the product + C) made quiet,
    else the default NaN 0xFFC00000."""
    import numpy as np

    def nan(u: int) -> bool:
        return (u & 0x7FFFFFFF) > 0x7F800000

    def op(x: int, y: int, f) -> int:
        if nan(x) or nan(y):
            return (x if nan(x) else y) | QUIET
        with np.errstate(all="ignore"):
            r = f(np.uint32(x).view(np.float32), np.uint32(y).view(np.float32))
        r = int(np.float32(r).view(np.uint32))
        return 0xFFC00000 if nan(r) else r
    c = [0] * 16
    for k in range(4):
        for i in range(4):
            for j in range(4):
                c[i * 4 + j] = op(op(a[i * 4 + k], b[k * 4 + j], lambda x, y: x * y),
                                  c[i * 4 + j], lambda x, y: x + y)
    return c


NAN_KERNEL = """.kernel nans
.registers 8
.local_memory 256
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    device_load_u32 r3, r2
    local_store_u32 r2, r3
    mov_imm r4, 64
    iadd r2, r2, r4
    device_load_u32 r3, r2
    local_store_u32 r2, r3
    mov_imm r5, 16
    mov_imm r6, 0
    mma_load_a r0, r6, r5
    mma_load_b r0, r4, r5
    mma_compute r0, r0, r0
    mov_imm r6, 128
    mma_store_c r6, r5, r0
    iadd r2, r2, r4
    local_load_u32 r3, r2
    device_store_u32 r2, r3
    halt
.end
"""


def nan_launch(a: list[int], b: list[int]) -> Launch:
    return Launch(workgroup=(16, 1, 1), wave_width=16, device_memory=256,
                  memory_init=(DataFill(0, struct.pack("<32I", *a, *b)),))


def c_of(report) -> list[int]:
    return list(struct.unpack("<16I", report.device_memory.tobytes()[128:192]))


ONE, TWO, INF, NINF = 0x3F800000, 0x40000000, 0x7F800000, 0xFF800000


def test_nan_results_are_the_nan_made_quiet_or_the_default_nan():
    """A signalling NaN times numbers, 0 * inf, inf - inf, and a NaN meeting its own quiet
    form: the core runs them and gives the numpy engine's C, which is the reference's (the
    NaN operand made quiet, else the default NaN)."""
    need_core()
    a = [0x7F800001, 0, 0, ONE,       # row 0: a signalling NaN, later its quiet form
         INF, 0, ONE, ONE,            # row 1: inf * 0 in column 0
         ONE, ONE, ONE, ONE,
         INF, ONE, ONE, NINF]         # row 3: inf then -inf: inf - inf
    b = [0, ONE, INF, TWO,
         ONE, 0x7FC00001, ONE, ONE,   # the quiet form of row 0's NaN, in column 1
         ONE, ONE, ONE, ONE,
         ONE, ONE, ONE, ONE]
    launch = nan_launch(a, b)
    assert_native_equal(NAN_KERNEL, launch, RunOptions(initcheck=False))
    report = run(NAN_KERNEL, launch, RunOptions(engine="numpy", initcheck=False))
    c = c_of(report)
    assert c == reference(a, b), [hex(x) for x in c]
    assert {x for x in c if (x & 0x7FFFFFFF) > 0x7F800000} == {0x7FC00001, 0xFFC00000}


def test_two_different_nans_meeting_run_on_the_core_as_upstream():
    """C's NaN meeting a NaN product: the product's, as upstream's wave-emu gives it (the
    numpy engine chooses it too, whatever order its loops pass the operands in)."""
    need_core()
    a = [0x7FC00001, ONE, 0, 0] + [ONE] * 12
    b = [ONE] * 4 + [0xFFC00002] + [ONE] * 11
    report = assert_native_equal(NAN_KERNEL, nan_launch(a, b), RunOptions(initcheck=False))
    assert report.reason is None
    numpy_report = run(NAN_KERNEL, nan_launch(a, b), RunOptions(engine="numpy", initcheck=False))
    assert c_of(numpy_report)[0] == 0xFFC00002 == reference(a, b)[0]


def test_tile_faults_and_uninitialised_reads_are_the_numpy_engines():
    """A tile past the end of local memory (its message names the tile) and a tile load of
    memory nothing wrote: the core's error and warning, word for word."""
    need_core()
    source = """.kernel edges
.registers 8
.local_memory 128
    mov_sr r0, sr_lane_id
    mov_imm r1, 16
    mov_imm r3, 32
    imul r2, r0, r3
    mma_load_a r0, r2, r1
    mma_compute r0, r0, r0
    mma_store_c r2, r1, r0
    halt
.end
"""
    launch = Launch(workgroup=(4, 1, 1), wave_width=4, device_memory=64)
    report, native = both_engines(source, launch)
    assert native.reason is None
    assert [w.kind for w in report.warnings] == ["uninitialised_local"]
    assert [e.kind for e in report.errors] == ["out_of_bounds"]
    assert "mma tile in local memory of 128 bytes" in report.errors[0].message
    assert_native_equal(source, launch)


def test_the_memory_trace_of_tiles_is_the_numpy_engines():
    need_core()
    data = struct.pack("<32I", *range(0x3F800000, 0x3F800000 + 32 * 4096, 4096))
    launch = Launch(workgroup=(16, 1, 1), wave_width=8, device_memory=256,
                    memory_init=(DataFill(0, data),))
    native = run(NAN_KERNEL, launch, RunOptions(engine="native", initcheck=False,
                                                mem_trace="record"))
    numpy = run(NAN_KERNEL, launch, RunOptions(engine="numpy", initcheck=False,
                                               mem_trace="record"))
    assert native.engine == "native" and numpy.engine == "numpy"
    assert len(numpy.mem_trace) == 16 * (3 * 16 + 6)    # three tiles and six accesses a lane
    assert native.mem_trace == numpy.mem_trace


def test_the_command_runs_mma_on_the_native_core(tmp_path):
    """`WAVE_LSP_SHOW_ENGINE=1 wave-lsp run` of a kernel of tile work names the native core and
    prints what the numpy engine prints."""
    need_core()
    wbin = tmp_path / "nans.wbin"
    wbin.write_bytes(assemble(NAN_KERNEL).wbin())
    data = tmp_path / "in.bin"
    data.write_bytes(struct.pack("<32f", *[i * 0.25 - 3 for i in range(32)]))
    argv = [str(wbin), "--workgroup", "16,1,1", "--wave-width", "16", "--device-memory", "256",
            "--arg", f"0:{data}", "--dump-f32", "128:16", "--stats"]

    def command(native: bool):
        env = dict(os.environ, WAVE_LSP_SHOW_ENGINE="1", WAVE_LSP_NATIVE="1" if native else "0")
        return subprocess.run(wave_lsp_argv("run", *argv, env=env),
                              capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=120)
    fast, slow = command(True), command(False)
    assert fast.returncode == slow.returncode == 0, fast.stderr + slow.stderr
    assert fast.stderr.splitlines()[0] == "engine: native", fast.stderr
    assert slow.stderr.startswith("engine: numpy"), slow.stderr
    assert fast.stdout == slow.stdout and "128" in fast.stdout


def test_the_write_log_of_tile_work_is_the_numpy_engines():
    """Who wrote what (`write_log`): a kernel of tile work logs the same rows, masks and values
    on both engines (the tiles move no register, as on the numpy engine)."""
    need_core()
    data = struct.pack("<32I", *range(0x3F800000, 0x3F800000 + 32 * 4096, 4096))
    launch = Launch(grid=(2, 1, 1), workgroup=(16, 1, 1), wave_width=8, device_memory=256,
                    memory_init=(DataFill(0, data),))
    logs = []
    for engine in ("native", "numpy"):
        report = run(NAN_KERNEL, launch, RunOptions(engine=engine, write_log=True,
                                                    initcheck=False))
        assert report.engine == engine
        logs.append([bytes(x) for x in (report.write_log.rows, report.write_log.masks,
                                        report.write_log.values)])
    assert logs[0][0] and logs[0] == logs[1]
