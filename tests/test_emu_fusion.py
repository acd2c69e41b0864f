"""Fused fma runs (wave_lsp/emu/fusion.py) give upstream's registers, bit for bit.

A kernel loads 24 registers per lane from device memory (random f32 values, with lanes set up so
that a product-then-sum in f64 lands on a double-rounding tie), runs fma runs of every shape the
fusion handles (rows in progression, one row for all, gathered rows, a run cut by a register
written earlier in it, a run cut by a repeated destination) and stores the results; upstream
`wave-emu` runs the same `.wbin` and the dumps must be equal. The runs found are checked too, so
the comparison covers the fused path.
"""

from __future__ import annotations

import numpy as np
from test_emu_differential import assert_same, both, upstream_wbin, work  # noqa: F401

LANES = 64
LOADED = range(8, 32)          # r8..r31 loaded from memory
STORED = range(8, 48)

RUNS = "".join(f"    fma r{32 + i}, r{8 + i}, r16, r{24 + i}\n" for i in range(8)) + """
    mov_imm r2, 0
    fma r24, r24, r8, r24
    fma r26, r24, r9, r17
    fma r25, r31, r30, r18
    mov_imm r2, 0
    fma r40, r17, r18, r19
    fma r41, r40, r18, r19
    fma r42, r20, r21, r22
    fma r42, r21, r22, r23
    fma r43, r8, r8, r8
    fma r44, r9, r9, r9
    fma r46, r10, r11, r12
    fma r45, r12, r11, r10
    fma r47, r8, r9, r10
"""


def kernel() -> str:
    lines = [".kernel fmas", ".registers 48", "    mov_sr r0, sr_thread_id_x",
             "    mov_imm r1, 4", "    imul r0, r0, r1", f"    mov_imm r1, {4 * LANES}"]
    for r in LOADED:
        lines += [f"    device_load_u32 r{r}, r0", "    iadd r0, r0, r1"]
    lines.append(RUNS)
    lines += ["    mov_sr r0, sr_thread_id_x", "    mov_imm r1, 4", "    imul r0, r0, r1",
              f"    mov_imm r2, {4 * LANES * len(LOADED)}", "    iadd r0, r0, r2",
              f"    mov_imm r1, {4 * LANES}"]
    for r in STORED:
        lines += [f"    device_store_u32 r0, r{r}", "    iadd r0, r0, r1"]
    lines += ["    halt", ".end", ""]
    return "\n".join(lines)


def inputs() -> np.ndarray:
    rng = np.random.default_rng(14)
    values = rng.standard_normal((len(LOADED), LANES)).astype(np.float32)
    row = {r: i for i, r in enumerate(LOADED)}
    # ties: a*a + c with a = 1 + 2**-12 and a tiny c; x*y - (x*y rounded) + noise cancellations
    tie = np.float32(1 + 2 ** -12)
    for lane in range(0, LANES, 4):
        values[row[8]:row[16], lane] = tie
        values[row[16], lane] = tie
        values[row[24]:row[31] + 1, lane] = np.float32(2.0 ** -80) * (1 if lane % 8 else -1)
    x, y = values[row[8]], values[row[16]]
    values[row[24], 1::4] = -(x[1::4].astype(np.float64) * y[1::4]).astype(np.float32)
    return values


def test_fusion_finds_the_runs():
    from wave_lsp.emu import load_kernels
    from wave_lsp.emu.fusion import fuse

    code = load_kernels(kernel())[0]
    fused = fuse(code.instructions, 48)
    spans = sorted(run[1] for run in fused if run is not None)
    # 8 in progression (r16 for all); r24 written then read: cut after 1, then r26, r25; r40
    # written then read: cut after 1, then r41, r42; r42 again: cut, then r42 .. r47 (gathered)
    assert spans == [2, 2, 6, 8], spans


def test_fused_fma_runs_match_upstream(work):  # noqa: F811
    (work / "fma_in.bin").write_bytes(inputs().astype("<f4").tobytes())
    wbin = upstream_wbin(work, "fmas", kernel())
    out = 4 * LANES * len(LOADED)
    flags = ["--workgroup", f"{LANES},1,1", "--device-memory", str(out + 4 * LANES * len(STORED)),
             "--arg", "0:fma_in.bin", "--dump-u32", f"{out}:{LANES * len(STORED)}"]
    up, ours = both(wbin, flags, work)
    assert up.returncode == 0, up.stderr
    assert_same(up, ours)
    # the tie lanes did produce values a product-then-sum would get wrong
    got = np.array(ours.stdout.split(), dtype=np.uint32).view(np.float32).reshape(len(STORED), -1)
    naive = (inputs()[0].astype(np.float64) * inputs()[8] + inputs()[16]).astype(np.float32)
    assert (got[32 - 8] != naive).any()


def test_instruction_limit_stops_at_the_same_instruction_inside_a_fused_run():
    """The limit is polled as if the run's instructions ran one by one: with one wave, a limit
    of N stops at instruction N (0-based), fused run or not."""
    from numpy_engine import run
    from wave_lsp.emu import Launch

    body = "".join(f"    fma r{8 + i}, r1, r2, r{8 + i}\n" for i in range(8))
    source = (".kernel k\n.registers 16\n    mov_imm r1, 0x3F800000\n    mov_imm r2, 0x40000000\n"
              + body + "    halt\n.end\n")
    for limit in range(1, 11):
        report = run(source, Launch(workgroup=(4, 1, 1), wave_width=4, device_memory=16),
                     max_instructions=limit)
        assert report.errors and report.errors[0].kind == "instruction_limit", limit
        assert report.errors[0].pc == 8 * limit, (limit, report.errors[0].pc)
    done = run(source, Launch(workgroup=(4, 1, 1), wave_width=4, device_memory=16),
               max_instructions=11)
    assert not done.errors
    assert done.stats.float == 8
