"""`--mem-trace`: the memory access log against the scalar reference interpreter on random
structured programs (tests/scalar_reference.py logs every lane's access), its steps against
`--trace-lines`, and its text and JSON forms."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from numpy_engine import run  # noqa: E402
from scalar_reference import Access, run_reference  # noqa: E402
from test_emu_hypothesis import block, dest, guard, program, simple, source  # noqa: E402

from wave_lsp.asm import assemble  # noqa: E402
from wave_lsp.cli.main import main  # noqa: E402
from wave_lsp.emu import Launch  # noqa: E402

ATOMICS = ["add", "sub", "min", "max", "and", "or", "xor", "exchange", "cas"]
SHARED = "r12"            # a device word every lane may use (byte 2048), single-wave runs only


@st.composite
def memory_op(draw, shared: bool) -> list[str]:
    """One load, store or atomic of a lane's own word (r1 = 4 * thread id), device or local,
    or with `shared` an atomic on one word all lanes share."""
    g = draw(guard)
    space = draw(st.sampled_from(["device", "local"]))
    kind = draw(st.sampled_from(["load", "load", "store", "store", "atomic"]))
    if kind in ("load", "store"):
        size = draw(st.sampled_from(["u8", "u16", "u32", "u32"]))
        offset_free = "r1"
        if kind == "load":
            return [f"{g}{space}_load_{size} {draw(dest)}, {offset_free}"]
        return [f"{g}{space}_store_{size} {offset_free}, {draw(source)}"]
    operation = draw(st.sampled_from(ATOMICS))
    name = f"atomic_{operation}" if space == "device" else f"local_atomic_{operation}"
    address = SHARED if shared and space == "device" and draw(st.booleans()) else "r1"
    target = draw(st.sampled_from(["r0"] + [f"r{i}" for i in range(2, 8)]))
    if target == "r0":
        target = "r0"         # r0 as the destination: the old value is dropped
    third = f", {draw(source)}" if operation == "cas" else ""
    scope = ", .device" if space == "device" else ""
    return [f"{g}{name} {target}, {address}, {draw(source)}{third}{scope}"]


def leaf(shared: bool):
    def draw_leaf():
        return st.one_of(simple(), memory_op(shared), memory_op(shared))
    return draw_leaf


def mem_program(body: list[str]) -> str:
    return program(body, registers=13, setup=(f"mov_imm {SHARED}, 2048",))


def engine_log(source_text: str, width: int, threads: int, **fields):
    report = run(source_text, Launch(workgroup=(threads, 1, 1), wave_width=width,
                                     device_memory=4096), mem_trace="record", **fields)
    assert not report.errors, (report.errors, source_text)
    return report


def _per_wave(records) -> dict[int, list]:
    out: dict[int, list] = {}
    for r in records:
        out.setdefault(r.wave, []).append(r)
    return out


def check_against_reference(text: str, width: int, threads: int) -> int:
    """The engine's log equals the reference's; returns how many accesses there were."""
    kernel = assemble(text).kernels[0]
    log: list[Access] = []
    memory, _ = run_reference(kernel, width, threads, 4096, log=log)
    report = engine_log(text, width, threads)
    assert report.device_memory.tobytes() == memory, text
    got = [Access(r.wave, r.lane, r.pc, r.line, r.space, r.kind, r.size, r.address, r.value,
                  r.operand, r.swap) for r in report.mem_trace]
    # The reference runs one wave after another, the engine its waves in lock-step: each
    # wave's own accesses come in the same order, lane by lane within an instruction.
    assert _per_wave(got) == _per_wave(log), text
    steps = [r.step for r in report.mem_trace]
    assert steps == sorted(steps)
    for first, second in zip(report.mem_trace, report.mem_trace[1:]):
        if first.step == second.step:          # one wave-instruction: one wave, one pc
            assert (first.wave, first.pc) == (second.wave, second.pc)
            assert first.lane < second.lane
    return len(log)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), width=st.sampled_from([1, 4, 8, 32]),
       threads=st.one_of(st.integers(1, 8), st.integers(1, 70)))
def test_mem_trace_matches_the_reference_log(data, width, threads):
    body = data.draw(block(0, leaf=leaf(threads <= width)))
    check_against_reference(mem_program(body), width, threads)


SIZES = ["u8", "u16", "u32"]


@pytest.mark.parametrize("line", [
    *[f"{space}_{kind}_{size} {'r5, r1' if kind == 'load' else 'r1, r0'}"
      for space in ("device", "local") for kind in ("load", "store") for size in SIZES],
    *[f"atomic_{op} r5, {address}, r9{', r0' if op == 'cas' else ''}, .device"
      for op in ATOMICS for address in ("r1", SHARED)],
    *[f"local_atomic_{op} r0, r1, r9{', r8' if op == 'cas' else ''}" for op in ATOMICS],
])
def test_every_access_kind_matches_the_reference(line):
    # stores first so that loads and atomics find values; lanes collide on the shared word
    body = ["device_store_u32 r1, r9", "local_store_u32 r1, r0", "@p1 mov_imm r5, 7",
            "icmp_lt p1, r0, r9", f"@p1 {line}", line]
    assert check_against_reference(mem_program(body), 8, 8) >= 8 + 8 + 8


KERNEL = """\
.kernel k
.registers 8
    mov r0, sr_lane_id
    mov_sr r7, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r7, r1
    mov_imm r3, 2
    icmp_lt p0, r0, r3
    if p0
        device_store_u32 r2, r7
    else
        local_store_u16 r2, r7
        local_load_u16 r5, r2
    endif
    device_load_u32 r4, r2
    mov_imm r6, 1024
    atomic_cas r5, r6, r4, r7, .device
    atomic_add r0, r6, r1, .device
    halt
.end
"""


def test_steps_are_the_lines_of_trace_lines():
    lines: list[str] = []
    report = run(KERNEL, Launch(workgroup=(8, 1, 1), wave_width=4, device_memory=2048),
                 mem_trace="record", trace=lines.append)
    assert report.mem_trace
    for r in report.mem_trace:
        assert lines[r.step].startswith(f"wg(0,0,0) wave[{r.wave}] pc=0x{r.pc:04x}: ")
        assert f"; line {r.line} mask=" in lines[r.step]


def test_atomics_show_old_value_and_operands():
    report = run(KERNEL, Launch(workgroup=(8, 1, 1), wave_width=4, device_memory=2048),
                 mem_trace="record")
    cas = [r for r in report.mem_trace if r.kind == "atomic_cas"]
    adds = [r for r in report.mem_trace if r.kind == "atomic_add"]
    # compare: the word each lane loaded (its thread id where the then side stored it, lanes
    # 0-1 of each wave, else 0); swap: the thread id. Thread 2 is the first whose compare
    # (0) differs from its swap and matches memory (0): memory holds 2 from then on.
    assert [r.operand for r in cas] == [0, 1, 0, 0, 4, 5, 0, 0]
    assert [r.swap for r in cas] == list(range(8))
    assert [r.value for r in cas] == [0, 0, 0, 2, 2, 2, 2, 2]
    # the adds after the cas see every earlier lane's add (4 each), in thread order
    assert [r.value for r in adds] == [2 + 4 * i for i in range(8)]
    assert all(r.operand == 4 and r.swap is None for r in adds)
    local = [r for r in report.mem_trace if r.space == "local"]
    assert {r.kind for r in local} == {"store", "load"} and all(r.size == 2 for r in local)
    assert all(r.lane >= 2 for r in local)              # the else side: lanes 2-3 of each wave


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL)
    return path


MEM_LINE = re.compile(r"mem step=(\d+) wg\((\d+),(\d+),(\d+)\) wave\[(\d+)\] lane\[(\d+)\] "
                      r"pc=0x([0-9a-f]{4}) line (\d+): (device|local) (\w+) (\d+) "
                      r"@0x([0-9a-f]+) value=0x([0-9a-f]+)( operand=0x[0-9a-f]{8}| compare=0x"
                      r"[0-9a-f]{8} swap=0x[0-9a-f]{8})?$")


def test_cli_text_and_json_agree(kernel_file, capsys):
    flags = [str(kernel_file), "--workgroup", "8,1,1", "--wave-width", "4", "--grid", "2,1,1",
             "--mem-trace", "--dump-u32", "1024:1"]
    assert main(["run", *flags]) == 0
    captured = capsys.readouterr()
    text = [line for line in captured.err.splitlines() if line.startswith("mem ")]
    assert text and all(MEM_LINE.match(line) for line in text), text[:3]
    assert {MEM_LINE.match(line).group(2) for line in text} == {"0", "1"}   # both workgroups
    assert main(["run", *flags, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    records = document["mem_trace"]
    assert len(records) == len(text)
    for line, r in zip(text, records):
        m = MEM_LINE.match(line)
        assert (int(m.group(1)), int(m.group(5)), int(m.group(6)), int(m.group(7), 16),
                int(m.group(8)), m.group(9), m.group(10), int(m.group(11)),
                int(m.group(12), 16), int(m.group(13), 16)) == (
            r["step"], r["wave"], r["lane"], r["pc"], r["line"], r["space"], r["kind"],
            r["size"], r["address"], r["value"])
        assert r["workgroup"] == [int(m.group(2)), 0, 0]


def test_breakpoints_and_traces_run_on_numpy(kernel_file, capsys, monkeypatch):
    monkeypatch.setenv("WAVE_LSP_SHOW_ENGINE", "1")
    assert main(["run", str(kernel_file), "--break", "0x0"]) == 0
    assert "engine: numpy (--break)" in capsys.readouterr().err.splitlines()
    assert main(["run", str(kernel_file), "--mem-trace", "--trace"]) == 0
    assert "engine: numpy (--trace)" in capsys.readouterr().err.splitlines()


# ---- the native core's log ------------------------------------------------------------------

def native_log(text: str, launch: Launch, **fields):
    """The native core's records for a launch, or None where it hands the launch to numpy."""
    from wave_lsp.emu import EngineUnavailable, RunOptions
    from wave_lsp.emu import run as pipeline_run
    try:
        report = pipeline_run(text, launch, RunOptions(engine="native", mem_trace="record",
                                                       initcheck=False, **fields))
    except EngineUnavailable:
        return None
    assert report.engine == "native"
    return report.mem_trace


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), width=st.sampled_from([1, 4, 8, 32]),
       threads=st.one_of(st.integers(1, 8), st.integers(1, 70)), grid=st.integers(1, 2),
       wave=st.one_of(st.none(), st.integers(0, 3)), lane=st.one_of(st.none(), st.integers(0, 3)),
       pcs=st.one_of(st.none(), st.tuples(st.integers(0, 200), st.integers(1, 200))))
def test_the_native_core_logs_what_the_numpy_engine_logs(data, width, threads, grid, wave, lane,
                                                         pcs):
    from emu_native.native_support import need_core
    from wave_lsp.emu.trace_filter import TraceFilter
    need_core()
    body = data.draw(block(0, leaf=leaf(threads <= width)))
    text = mem_program(body)
    launch = Launch(grid=(grid, 1, 1), workgroup=(threads, 1, 1), wave_width=width,
                    device_memory=4096)
    lane = None if lane is None or lane >= width else lane
    where = TraceFilter(wave, lane, pcs[0], pcs[0] + pcs[1]) if pcs else TraceFilter(wave, lane)
    native = native_log(text, launch, trace_filter=where)
    whole = run(text, launch, mem_trace="record", initcheck=False).mem_trace
    numpy_kept = run(text, launch, mem_trace="record", initcheck=False,
                     trace_filter=where).mem_trace
    assert numpy_kept == [r for r in whole if where.keeps_wave(r.wave) and where.keeps_pc(r.pc)
                          and (lane is None or r.lane == lane)]
    if native is not None:          # (the core hands races, limits, ... to numpy)
        assert native == numpy_kept, text


def test_the_native_core_serves_mem_trace(kernel_file, capsys, monkeypatch):
    from emu_native.native_support import need_core
    need_core()
    race_free = KERNEL.replace("    atomic_cas r5, r6, r4, r7, .device\n", "")
    kernel_file.write_text(race_free)
    monkeypatch.setenv("WAVE_LSP_SHOW_ENGINE", "1")
    flags = ["run", str(kernel_file), "--workgroup", "8,1,1", "--wave-width", "4",
             "--no-initcheck", "--mem-trace", "--trace-lane", "3"]
    assert main(flags) == 0
    native = capsys.readouterr().err.splitlines()
    assert native[-1] == "engine: native"          # written after the run, as the log
    monkeypatch.setenv("WAVE_LSP_NATIVE", "0")
    assert main(flags) == 0
    numpy_lines = capsys.readouterr().err.splitlines()
    assert numpy_lines[-1].startswith("engine: numpy")
    assert native[:-1] == numpy_lines[:-1] and len(native) > 4


MMA = """\
.kernel m
.registers 8
.local_memory 256
    mov r0, sr_lane_id
    mov_imm r1, 4
    imul r2, r0, r1
    mov_imm r3, 0x3F800000
    iadd r3, r3, r0
    local_store_u32 r2, r3
    mov_imm r4, 0
    mov_imm r5, 16
    mov_imm r6, 128
    mma_load_a r7, r4, r5
    mma_load_b r7, r4, r5
    mma_compute r7, r7, r7
    mma_store_c r6, r5, r7
    halt
.end
"""


def test_mma_tiles_are_logged_word_by_word():
    report = run(MMA, Launch(workgroup=(16, 1, 1), wave_width=16, device_memory=64),
                 mem_trace="record", initcheck=False)
    assert not report.errors, report.errors
    by_pc: dict[int, list] = {}
    for r in report.mem_trace:
        by_pc.setdefault(r.pc, []).append(r)
    stores, load_a, load_b, store_c = by_pc.values()
    assert len(stores) == 16
    stored = {r.address: r.value for r in stores}       # 1.0 + lane's bits at 4 * lane
    row_major = [16 * row + 4 * col for row in range(4) for col in range(4)]
    for loads in (load_a, load_b):
        assert [r.lane for r in loads] == [lane for lane in range(16) for _ in range(16)]
        assert all(r.kind == "load" and r.space == "local" and r.size == 4 for r in loads)
        assert [r.address for r in loads[:16]] == row_major     # lane 0's tile, row by row
        assert [r.value for r in loads] == [stored[r.address] for r in loads]
    # every lane computed the same C and stores it, row by row, at 128
    assert all(r.kind == "store" and r.space == "local" for r in store_c)
    assert [r.address for r in store_c[:16]] == [128 + a for a in row_major]
    tiles = {tuple(r.value for r in store_c[16 * k:16 * k + 16]) for k in range(16)}
    assert len(tiles) == 1
    import numpy as np
    a = np.array([stored[x] for x in row_major], dtype=np.uint32).view(np.float32).reshape(4, 4)
    c = np.zeros((4, 4), dtype=np.float32)
    for k in range(4):                                  # C += A[:, k] B[k, :], in f32
        c += a[:, k, None] * a[None, k, :]
    assert list(tiles.pop()) == c.reshape(-1).view(np.uint32).tolist()
