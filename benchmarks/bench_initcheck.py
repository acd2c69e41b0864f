"""What the uninitialised-read check costs (emu/initcheck.py, native/initcheck.c): each launch
run with the check and without it (`RunOptions(initcheck=False)`, `--no-initcheck`), paired and
interleaved, on two kernels written for this benchmark: a vector add (one element per thread,
device loads and a store) and a blocked GEMM (16x16 tiles staged through local memory, two
barriers per tile, an inner loop of local loads and fma).

Engines: the numpy engine in-process (warm; batched workgroups), the numpy engine recording
the first wave as every editor run does (the inline results), and the native core (which the
command line uses). Usage: python benchmarks/bench_initcheck.py [--repeat N]. One line per
measurement: the fastest of N interleaved runs without and with the check (on a shared machine
the fastest is the stable figure; the medians follow in brackets), and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wave_lsp.emu import DataFill, IotaFill, Launch, RunOptions, prepare, run  # noqa: E402

VECTOR_ADD = """.kernel vadd
.registers 12
.workgroup_size 256, 1, 1
    mov_sr  r0, sr_workgroup_id_x
    mov_sr  r1, sr_workgroup_size_x
    mov_sr  r2, sr_thread_id_x
    imad    r3, r0, r1, r2
    mov_imm r4, 4
    imul    r3, r3, r4
    device_load_u32 r5, r3
    mov_imm r6, {b}
    iadd    r7, r3, r6
    device_load_u32 r8, r7
    fadd    r9, r5, r8
    mov_imm r6, {c}
    iadd    r7, r3, r6
    device_store_u32 r7, r9
    halt
.end
"""

GEMM = """.kernel gemm_tiles
.registers 24
.workgroup_size 16, 16, 1
.local_memory 2048
    mov_sr  r0, sr_thread_id_x
    mov_sr  r1, sr_thread_id_y
    mov_sr  r2, sr_workgroup_id_x
    mov_sr  r3, sr_workgroup_id_y
    mov_imm r4, 16
    imad    r5, r3, r4, r1          ; row
    imad    r6, r2, r4, r0          ; column
    mov_imm r7, {n}
    mov_imm r8, 0                   ; accumulator (0.0)
    mov_imm r9, 0                   ; first k of the tile
    mov_imm r10, 4
    mov_imm r11, {b}
    mov_imm r12, {c}
    mov_imm r16, 1024               ; local B tile
    mov_imm r23, 1
    imad    r15, r1, r4, r0
    imul    r15, r15, r10           ; this thread's word of a tile
    iadd    r17, r15, r16
    loop
        imad    r13, r5, r7, r9
        iadd    r13, r13, r0
        imul    r13, r13, r10
        device_load_u32 r14, r13
        local_store_u32 r15, r14
        iadd    r13, r9, r1
        imad    r13, r13, r7, r6
        imul    r13, r13, r10
        iadd    r13, r13, r11
        device_load_u32 r14, r13
        local_store_u32 r17, r14
        barrier
        mov_imm r18, 0
        loop
            imad    r19, r1, r4, r18
            imul    r19, r19, r10
            local_load_u32 r20, r19
            imad    r21, r18, r4, r0
            imul    r21, r21, r10
            iadd    r21, r21, r16
            local_load_u32 r22, r21
            fma     r8, r20, r22, r8
            iadd    r18, r18, r23
            icmp_ge p1, r18, r4
            break   p1
        endloop
        barrier
        iadd    r9, r9, r4
        icmp_ge p2, r9, r7
        break   p2
    endloop
    imad    r13, r5, r7, r6
    imul    r13, r13, r10
    iadd    r13, r13, r12
    device_store_u32 r13, r8
    halt
.end
"""


def vector_add(threads: int):
    source = VECTOR_ADD.format(b=4 * threads, c=8 * threads)
    launch = Launch(grid=(threads // 256, 1, 1), device_memory=12 * threads,
                    memory_init=(IotaFill(0, threads), IotaFill(4 * threads, threads, 2.0)))
    return source, launch


def gemm(n: int):
    rng = np.random.default_rng(5)
    a, b = (rng.uniform(-1, 1, n * n).astype("<f4").tobytes() for _ in range(2))
    source = GEMM.format(n=n, b=4 * n * n, c=8 * n * n)
    launch = Launch(grid=(n // 16, n // 16, 1), device_memory=12 * n * n,
                    memory_init=(DataFill(0, a), DataFill(4 * n * n, b)))
    return source, launch


def numpy_engine(source, launch, options):
    prepared = prepare(source, launch)
    options = replace(options, engine="numpy")

    def once():
        report = run(prepared, options=options)
        assert report.ok and not report.warnings, (report.errors, report.warnings[:1])
    return once


def native_engine(source, launch, options):
    prepared = prepare(source, launch)
    options = replace(options, engine="native")

    def once():
        assert run(prepared, options=options).engine == "native"
    return once


def paired(make, source, launch, options, repeat: int) -> tuple[list[float], list[float]]:
    """Seconds of each run (without the check, with it), the two runs interleaved."""
    without, with_ = (make(source, launch, replace(options, initcheck=False)),
                      make(source, launch, options))
    without(), with_()                                   # warm
    off, on = [], []
    for _ in range(repeat):
        for fn, times in ((without, off), (with_, on)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return off, on


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    repeat = parser.parse_args().repeat
    editor = dict(record_threads="first_wave")
    cases = [
        ("numpy    vector add 65,536 threads", numpy_engine, vector_add(1 << 16), {}),
        ("numpy    gemm tiles N=64", numpy_engine, gemm(64), {}),
        ("editor   vector add 1,024 threads (first wave recorded)", numpy_engine,
         vector_add(1024), editor),
        ("editor   gemm tiles N=32 (first wave recorded)", numpy_engine, gemm(32), editor),
        ("native   vector add 1,048,576 threads", native_engine, vector_add(1 << 20), {}),
        ("native   gemm tiles N=128", native_engine, gemm(128), {}),
    ]
    for name, make, (source, launch), extra in cases:
        off, on = paired(make, source, launch, RunOptions(**extra), repeat)
        print(f"{name:56s} without {min(off) * 1e3:8.2f} ms  with {min(on) * 1e3:8.2f} ms  "
              f"x{min(on) / min(off):.2f}  (medians {statistics.median(off) * 1e3:.2f} / "
              f"{statistics.median(on) * 1e3:.2f} ms)", flush=True)


if __name__ == "__main__":
    main()
