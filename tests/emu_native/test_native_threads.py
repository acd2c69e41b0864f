"""The native core on several threads (parallel.c, `WAVE_LSP_THREADS`): every report — device
memory, statistics, warnings in order with their counts, errors, the engine and why it fell back
— equals the report of the same launch run one workgroup at a time (`WAVE_LSP_THREADS=1`), on
generated programs whose workgroups share inputs, write each other's words, meet on atomic
counters, read registers nothing wrote and fail in a late workgroup, and on the shared corpus;
a launch whose workgroups never meet runs on the threads asked for, one where they meet runs
again one at a time (`RunReport.threads` says which)."""

from __future__ import annotations

import os
import random
import subprocess
from array import array
from contextlib import contextmanager
from dataclasses import asdict, replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import test_emu_differential as diff
from corpus import vector_add
from shared import example_text
from .native_support import launch_of, need_core
from .test_native_differential import NATIVE_PROLOGUE, native_epilogue, native_statement

from wave_lsp.emu.native import threads as native_threads
from wave_lsp.emu import DataFill, IotaFill, Launch, RunOptions, engine_line, run
from tests.forkserver import wave_lsp_argv

EXAMPLES = int(os.environ.get("WAVE_NATIVE_EXAMPLES", "30"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=list(HealthCheck))
THREADS = 4


@contextmanager
def thread_count(count: int | None):
    """`WAVE_LSP_THREADS` set to `count` (None: unset) for the block."""
    old = os.environ.pop("WAVE_LSP_THREADS", None)
    if count is not None:
        os.environ["WAVE_LSP_THREADS"] = str(count)
    try:
        yield
    finally:
        os.environ.pop("WAVE_LSP_THREADS", None)
        if old is not None:
            os.environ["WAVE_LSP_THREADS"] = old


def serial_and_parallel(program, launch, options: RunOptions | None = None,
                        threads: int | None = THREADS):
    """(one at a time, on `threads` threads) reports of one launch, asserting they are equal
    (`threads` None: the default, every core this process may use)."""
    need_core()
    options = options or RunOptions()
    with thread_count(1):
        serial = run(program, launch, options)
    with thread_count(threads):
        parallel = run(program, launch, options)
    assert (parallel.engine, parallel.fallback) == (serial.engine, serial.fallback)
    assert [asdict(w) for w in parallel.warnings] == [asdict(w) for w in serial.warnings]
    assert [asdict(e) for e in parallel.errors] == [asdict(e) for e in serial.errors]
    assert bytes(parallel.device) == bytes(serial.device)
    assert asdict(parallel.stats) == asdict(serial.stats)
    assert parallel.registers == serial.registers
    assert serial.threads == 1
    asked = threads or native_threads()
    assert parallel.threads in (1, min(asked, launch_workgroups(launch)))
    return serial, parallel


def launch_workgroups(launch: Launch) -> int:
    x, y, z = launch.grid
    return x * y * z


def record(parallel) -> None:
    try:
        from hypothesis import event
        event(f"{parallel.engine} on {parallel.threads} thread(s)"
              + (f" ({parallel.fallback.split(' (')[0]})" if parallel.fallback else ""))
    except Exception:          # not inside a hypothesis test
        pass


# ---- generated programs -------------------------------------------------------------------
# Memory: inputs (0..16K, filled or not), outputs (16K..32K), one counter word at 32K, each
# thread's own atomic words at 36K, the epilogue's stores at 48K. r1 is the global thread id.
SHARING_PROLOGUE = """.kernel sharing
.registers 12
    mov_sr r0, sr_thread_id_x
    mov_sr r9, sr_workgroup_id_x
    mov_sr r10, sr_workgroup_size_x
    imul r1, r9, r10
    iadd r1, r1, r0
    mov_imm r3, 5
    mov_imm r4, 1
    mov_imm r7, 1
"""


def address(base: int, offset: int) -> str:
    """r2 = base + (global thread id + offset) * 4"""
    return (f"    mov_imm r2, {offset}\n    iadd r2, r2, r1\n    mov_imm r10, 4\n"
            f"    imul r2, r2, r10\n    mov_imm r10, {base}\n    iadd r2, r2, r10\n")


@st.composite
def sharing_line(draw, grid: int) -> str:
    kind = draw(st.sampled_from(["own_store", "own_load", "other_store", "other_load",
                                 "input_load", "input_load", "counter", "own_atomic",
                                 "compute", "compute", "uninitialised", "late_error",
                                 "barrier", "loop"]))
    near = draw(st.sampled_from([1, 3, 17, 64, 200]))
    if kind == "own_store":
        return address(16384, 0) + "    device_store_u32 r2, r3\n"
    if kind == "own_load":
        return address(16384, 0) + "    device_load_u32 r3, r2\n"
    if kind == "other_store":              # another thread's word: in another workgroup or not
        return address(16384, near) + "    device_store_u32 r2, r4\n"
    if kind == "other_load":
        return address(16384, near) + "    device_load_u32 r4, r2\n"
    if kind == "input_load":               # read by several workgroups, written by none
        return address(0, near) + "    device_load_u32 r3, r2\n"
    if kind == "counter":                  # one word for every workgroup: order-dependent
        operation = draw(st.sampled_from(["add", "max", "exchange", "cas"]))
        cas = ", r3" if operation == "cas" else ""
        return f"    mov_imm r2, 32768\n    atomic_{operation} r4, r2, r7{cas}, device\n"
    if kind == "own_atomic":
        return address(36864, 0) + "    atomic_add r4, r2, r3, device\n"
    if kind == "compute":
        op = draw(st.sampled_from(["iadd", "imul", "xor", "fadd", "fmul"]))
        return f"    {op} r3, r3, r4\n"
    if kind == "uninitialised":            # r11 is never written: an initcheck warning
        return "    iadd r4, r4, r11\n"
    if kind == "late_error":               # past the end of memory, in one workgroup
        late = draw(st.integers(0, grid - 1))
        return (f"    mov_sr r5, sr_workgroup_id_x\n    mov_imm r6, {late}\n"
                f"    icmp_eq p1, r5, r6\n    mov_imm r2, 0x100000\n"
                f"    @p1 device_load_u32 r3, r2\n")
    if kind == "barrier":
        return "    barrier\n"
    return ("    mov_imm r8, 0\n    loop\n    fadd r3, r3, r4\n    iadd r8, r8, r7\n"
            "    icmp_gt p0, r8, r0\n    break p0\n    endloop\n")


SHARING_EPILOGUE = address(49152, 0) + """    device_store_u32 r2, r3
    mov_imm r10, 4096
    iadd r2, r2, r10
    device_store_u32 r2, r4
    halt
.end
"""


@st.composite
def sharing_launch(draw):
    grid = draw(st.integers(2, 12))
    lines = draw(st.lists(sharing_line(grid), min_size=1, max_size=8))
    source = SHARING_PROLOGUE + "".join(lines) + SHARING_EPILOGUE
    fills = [IotaFill(0, 4096, 0.5)] if draw(st.booleans()) else []
    launch = Launch(grid=(grid, 1, 1), workgroup=(draw(st.sampled_from([1, 8, 32, 64])), 1, 1),
                    wave_width=draw(st.sampled_from([4, 32])), device_memory=65536,
                    memory_init=fills)
    options = RunOptions(initcheck=draw(st.booleans()), max_instructions=200_000,
                         max_batch_lanes=draw(st.sampled_from([1 << 20, 1])))
    return source, launch, options


@SETTINGS
@given(sharing_launch())
def test_workgroups_sharing_memory_report_as_one_at_a_time(case):
    source, launch, options = case
    _, parallel = serial_and_parallel(source, launch, options)
    record(parallel)


@SETTINGS
@given(st.lists(native_statement(), min_size=1, max_size=10), st.sampled_from([1, 4, 32]),
       st.integers(1, 40), st.integers(2, 9), st.booleans())
def test_every_native_instruction_on_threads(lines, width, threads, grid, initcheck):
    source = NATIVE_PROLOGUE + "".join(f"    {text}\n" for text in lines) + native_epilogue()
    launch = Launch(grid=(grid, 1, 1), workgroup=(threads, 1, 1), wave_width=width,
                    device_memory=16384, local_memory=4096)
    _, parallel = serial_and_parallel(source, launch,
                                      RunOptions(initcheck=initcheck, max_instructions=100_000))
    record(parallel)


# ---- the shared corpus ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def work(tmp_path_factory):
    diff._need_upstream()
    return tmp_path_factory.mktemp("native_threads")


@pytest.mark.parametrize("name", diff.EXAMPLE_NAMES)
@pytest.mark.parametrize("threads", [2, THREADS])
@pytest.mark.parametrize("grid", [None, "6,1,1"])
def test_corpus_kernels_report_as_one_at_a_time(name, threads, grid, work):
    """The documented launches (mostly one workgroup), and six workgroups of each (most then
    write the same words: a race between workgroups on both, or an error past the inputs)."""
    source = (diff.EXAMPLES / f"{name}.wave").read_text()
    flags = diff.example_flags(name, work) + (["--grid", grid] if grid else [])
    launch = launch_of(flags, work)
    for options in (RunOptions(), RunOptions(initcheck=False)):
        serial_and_parallel(source, launch, options, threads)


def test_gemm_blocked_runs_on_the_threads():
    """gemm_blocked N=256: four workgroups of eight waves with local tiles and barriers."""
    n, size = 256, 4 * 256 * 256
    rng = random.Random(7)
    a = array("f", (rng.uniform(-1, 1) for _ in range(n * n))).tobytes()
    b = array("f", (rng.uniform(-1, 1) for _ in range(n * n))).tobytes()
    launch = Launch(grid=(n // 128, n // 128, 1), workgroup=(16, 16, 1), device_memory=3 * size,
                    memory_init=[DataFill(0, a), DataFill(size, b)],
                    set_regs={0: 0, 1: size, 2: 2 * size, 3: n, 4: n, 5: n})
    _, parallel = serial_and_parallel(example_text("gemm_blocked"), launch)
    assert parallel.engine == "native" and parallel.threads == THREADS
    c = memoryview(parallel.device)[2 * size:].cast("f")
    expected = sum(array("f", a)[5 * n + k] * array("f", b)[k * n + 9] for k in range(n))
    assert abs(c[5 * n + 9] - expected) < 1e-3


def test_histogram_of_several_workgroups_runs_again_one_at_a_time(work):
    """Atomics of every workgroup on the same bins: one at a time, native."""
    source = example_text("histogram")
    launch = launch_of(diff.example_flags("histogram", work) + ["--grid", "6,1,1"], work)
    _, parallel = serial_and_parallel(source, launch)
    assert parallel.engine == "native" and parallel.threads == 1


# ---- what runs on the threads, what runs again one at a time ----------------------------------

VECTOR_ADD = vector_add(workgroup=64)
N = 64 * 64


def vector_launch(grid: int = 64, filled: bool = True) -> Launch:
    fills = [IotaFill(0, N), IotaFill(4 * N, N, 2.0)] if filled else []
    return Launch(grid=(grid, 1, 1), device_memory=12 * N, memory_init=fills,
                  set_regs={0: 0, 1: 4 * N, 2: 8 * N})


@pytest.mark.parametrize("threads", [None, THREADS])
def test_a_launch_whose_workgroups_never_meet_runs_on_the_threads(threads):
    """On the threads asked for, or by default on every core this process may use."""
    _, parallel = serial_and_parallel(VECTOR_ADD, vector_launch(), threads=threads)
    assert parallel.engine == "native"
    assert parallel.threads == (threads or min(64, len(os.sched_getaffinity(0))))
    assert not parallel.warnings and not parallel.errors
    out = memoryview(parallel.device)[8 * N:12 * N].cast("f")
    assert [out[i] for i in (0, 1, N - 1)] == [0.0, 3.0, 3.0 * (N - 1)]


def test_warnings_of_every_workgroup_merge_as_one_at_a_time():
    """Inputs nothing wrote: every workgroup warns at the same instructions; the report names
    workgroup 0 and counts every lane, as one at a time, on the threads."""
    _, parallel = serial_and_parallel(VECTOR_ADD, vector_launch(filled=False))
    assert parallel.threads == THREADS
    assert [w.kind for w in parallel.warnings] == ["uninitialised_device"] * 2
    assert all("workgroup (0, 0, 0)" in w.message for w in parallel.warnings), \
        [w.message for w in parallel.warnings]


COUNTER = """.kernel counter
.registers 8
.workgroup_size 32, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_sr r1, sr_workgroup_id_x
    mov_sr r2, sr_workgroup_size_x
    imul r1, r1, r2
    iadd r1, r1, r0
    mov_imm r3, 1
    mov_imm r4, 0
    atomic_add r5, r4, r3, device
    mov_imm r6, 4
    imul r1, r1, r6
    mov_imm r6, 64
    iadd r1, r1, r6
    device_store_u32 r1, r5
    halt
.end
"""


def test_an_atomic_counter_of_every_workgroup_runs_again_one_at_a_time():
    """Each lane stores the value its atomic returned: the order of the workgroups decides
    them, so the threads stop and the launch runs again one workgroup at a time."""
    launch = Launch(grid=(16, 1, 1), device_memory=64 + 4 * 16 * 32)
    _, parallel = serial_and_parallel(COUNTER, launch)
    assert parallel.engine == "native" and parallel.threads == 1
    returned = memoryview(parallel.device)[64:].cast("I").tolist()
    assert returned == list(range(16 * 32))          # one at a time, in order


def test_an_error_in_a_late_workgroup_is_reported_as_one_at_a_time():
    source = VECTOR_ADD.replace("    halt", "    mov_imm r14, 60\n    icmp_eq p1, r5, r14\n"
                                "    mov_imm r10, 0x7FFFFFF0\n    @p1 device_load_u32 r11, r10\n"
                                "    halt")
    # batches of one workgroup, so that the numpy engine agrees and the core reports it
    serial, parallel = serial_and_parallel(source, vector_launch(), RunOptions(max_batch_lanes=64))
    assert parallel.engine == "native" and parallel.threads == 1
    assert [e.kind for e in parallel.errors] == ["out_of_bounds"]
    assert parallel.errors[0].details["thread"] == 60 * 64     # workgroup 60's first lane
    assert parallel.stats.workgroups == 60           # the workgroups before it, as in order


def test_workgroups_writing_each_others_words_run_again_one_at_a_time_on_the_core():
    """Their waves' shadows may have met too (once a launch left to the numpy engine): the core
    runs it again one workgroup at a time and reports it as the numpy engine does."""
    source = VECTOR_ADD.replace("iadd r10, r9, r2", "iadd r10, r9, r2\n    iadd r10, r10, r8")
    serial, parallel = serial_and_parallel(source, vector_launch())
    assert (parallel.engine, parallel.fallback, parallel.threads) == ("native", None, 1)
    reference = run(source, vector_launch(), RunOptions(engine="numpy"))
    assert [asdict(w) for w in parallel.warnings] == [asdict(w) for w in reference.warnings]
    assert bytes(parallel.device) == reference.device_memory.tobytes()


def test_the_instruction_limit_over_all_threads_stops_as_one_at_a_time():
    serial, parallel = serial_and_parallel(VECTOR_ADD, vector_launch(),
                                           RunOptions(max_instructions=500))
    assert [e.kind for e in parallel.errors] == ["instruction_limit"]


def test_a_full_warning_table_is_reported_as_one_at_a_time():
    """Over 200 instructions warn in every workgroup: the table holds the first 200 in order."""
    reads = "".join(f"    iadd r{1 + i % 6}, r{1 + i % 6}, r{8 + i % 7}\n" for i in range(230))
    source = f".kernel many\n.registers 16\n.workgroup_size 8, 1, 1\n{reads}    halt\n.end\n"
    _, parallel = serial_and_parallel(source, Launch(grid=(6, 1, 1), device_memory=64))
    assert len(parallel.warnings) == 200


def test_the_engine_line_names_the_threads(tmp_path):
    need_core()
    with thread_count(THREADS):
        report = run(VECTOR_ADD, vector_launch())
    os.environ["WAVE_LSP_SHOW_ENGINE"] = "1"
    try:
        assert engine_line(report) == f"engine: native ({THREADS} threads)"
        with thread_count(1):
            assert engine_line(run(VECTOR_ADD, vector_launch())) == "engine: native"
    finally:
        del os.environ["WAVE_LSP_SHOW_ENGINE"]


@pytest.mark.parametrize("value", ["0", "two", "-3"])
def test_a_bad_thread_count_is_one_clear_line(tmp_path, value):
    need_core()
    (tmp_path / "k.wave").write_text(VECTOR_ADD)
    done = subprocess.run(wave_lsp_argv("run", "k.wave", "--grid", "4,1,1",
                                        "--device-memory", "4096"),
                          capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          env=dict(os.environ, WAVE_LSP_THREADS=value))
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"Error: WAVE_LSP_THREADS must be a positive integer, not {value!r}"], done.stderr


def test_a_cancel_stops_the_threads():
    """A cancel met while the threads run is reported as on one thread (the cancelled error)."""
    need_core()
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 1
    loop = VECTOR_ADD.replace("    halt", "    loop\n    iadd r3, r3, r3\n    endloop\n    halt")
    with thread_count(THREADS):
        report = run(loop, vector_launch(), RunOptions(cancel=cancel, max_instructions=0))
    assert report.engine == "native"
    assert [e.kind for e in report.errors] == ["cancelled"]


def test_the_time_limit_stops_the_threads():
    need_core()
    loop = VECTOR_ADD.replace("    halt", "    loop\n    iadd r3, r3, r3\n    endloop\n    halt")
    with thread_count(THREADS):
        report = run(loop, vector_launch(), RunOptions(time_limit=0.2, max_instructions=0))
    assert report.engine == "native"
    assert [e.kind for e in report.errors] == ["time_limit"]


@pytest.mark.parametrize("late_error", [False, True])
def test_registers_asked_for_are_those_of_one_at_a_time(late_error):
    """`--dump-regs` threads in several workgroups: copied by the thread that ran each; after an
    error (a serial re-run) only those of the workgroups run before it and of the failing one."""
    source = VECTOR_ADD
    if late_error:
        source = VECTOR_ADD.replace("    halt", "    mov_imm r14, 40\n    icmp_eq p1, r5, r14\n"
                                    "    mov_imm r10, 0x7FFFFFF0\n"
                                    "    @p1 device_load_u32 r11, r10\n    halt")
    launch = replace(vector_launch(), register_threads=(0, 70, 40 * 64 + 3, N - 1))
    _, parallel = serial_and_parallel(source, launch, RunOptions(max_batch_lanes=64))
    assert parallel.engine == "native"
    assert parallel.threads == (1 if late_error else THREADS)
    assert sorted(parallel.registers) == ([0, 70, 40 * 64 + 3] if late_error
                                          else [0, 70, 40 * 64 + 3, N - 1])
    assert parallel.registers[70]["r7"] == 70                      # its global id
