"""A launch whose waves race in every workgroup (a tree reduction in local memory missing the
barrier inside its loop, the common bug a user runs the emulator to find), as whole `wave-lsp
run` commands beside upstream `wave-emu` on the same `.wbin`, and, with `--before PATH`, another
checkout of this project (there the race between waves left the native core for the numpy
engine). Runs are interleaved (ours, upstream, before, ...) so that load on the machine hits all
alike; stdout must equal upstream's; wall time and CPU time (user + system of the child),
medians; the engine as WAVE_LSP_SHOW_ENGINE=1 says, and whether the race was reported.
Usage: python benchmarks/bench_wave_races.py [--repeat N] [--before PATH] [--sizes 65536,1048576]
Needs ../shared/upstream/bin (wave-asm, wave-emu).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_races import compare_with_upstream  # noqa: E402

# in[gid] into local memory, then s = 128, 64, ..., 1: local[t] += local[t + s] for t < s, with
# no barrier between the steps (the waves race); thread 0 writes local[0] to out[workgroup] (r15)
REDUCE_RACY = """.kernel reduce_racy
.registers 16
.local_memory 1024
.workgroup_size 256, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_sr r1, sr_workgroup_id_x
    mov_sr r2, sr_workgroup_size_x
    imul r3, r1, r2
    iadd r3, r3, r0
    mov_imm r4, 4
    imul r5, r3, r4
    device_load_u32 r6, r5
    imul r7, r0, r4
    local_store_u32 r7, r6
    barrier
    mov_imm r8, 128
    mov_imm r13, 1
    mov_imm r14, 0
    loop
        ucmp_lt p1, r0, r8
        if p1
            iadd r9, r0, r8
            imul r9, r9, r4
            local_load_u32 r10, r9
            local_load_u32 r11, r7
            fadd r11, r11, r10
            local_store_u32 r7, r11
        endif
        shr r8, r8, r13
        icmp_eq p2, r8, r14
        break p2
    endloop
    icmp_eq p3, r0, r14
    if p3
        local_load_u32 r12, r14
        imul r9, r1, r4
        iadd r9, r9, r15
        device_store_u32 r9, r12
    endif
    halt
.end
"""


def flags(n: int) -> list[str]:
    groups = n // 256
    return ["--grid", f"{groups},1,1", "--device-memory", str(4 * (n + groups)),
            "--fill-iota", f"0:f32:{n}:1", "--set-reg", f"15:{4 * n}",
            "--dump-f32", f"{4 * n}:{groups}"]


def main() -> None:
    compare_with_upstream(lambda n: f"racy tree reduction, {n:,} threads ({n // 256:,} "
                          "workgroups of 8 waves)", "reduce_racy", REDUCE_RACY, flags, __doc__)


if __name__ == "__main__":
    main()
