"""Kernels with known profiles, for the editor tests of the kernel profile.

STRIDED: 4 workgroups of 64 threads in waves of 32 (8 waves). Its counters follow from the
issue's definitions by hand:
- BANKS (`local_store_u32` at 8-byte steps: stride-2 words): a wave's 32 words fall on the 16
  even banks, two distinct words each: 2 passes where 1 would do: 16 wavefronts, ideal 8;
- SECTORS (`device_load_u32` at 128-byte steps): each lane its own 32-byte sector: 32 per wave,
  ideal 32 x 4 / 32 = 4: 256 sectors, ideal 32 — the hottest line;
- BRANCH (the body of `if p1`, threads 0-7 of each workgroup), lines BRANCH .. BRANCH_END:
  only the first wave of each workgroup has an active lane there (the second branches around
  the body and executes none of it, as on a GPU): 4 wave-instructions, 8 x 4 = 32 active lanes of
  4 x 32 (25% lanes); the `if p1` line splits those 4 waves (4 divergent branches of 8).
"""

STRIDED = """\
; stride-2 local words, strided device loads, a divergent branch
; wave-lsp run: --grid 4,1,1 --wave-width 32 --device-memory 65536
.kernel strided
.registers 16
.workgroup_size 64, 1, 1
.local_memory 1024

    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 8
    imul    r2, r0, r1              ; 8 bytes apart: stride-2 words
    local_store_u32 r2, r0
    barrier
    mov_imm r3, 128
    imul    r4, r0, r3              ; 128 bytes apart: one sector per lane
    device_load_u32 r5, r4
    mov_imm r6, 8
    ucmp_lt p1, r0, r6
    if p1
        iadd r7, r5, r0
        iadd r7, r7, r0
        mov_imm r9, 4
        imul r8, r0, r9
        device_store_u32 r8, r7
    endif
    halt
.end
"""


def line_of(text: str, fragment: str) -> int:
    """The 0-based line of the first line containing `fragment`."""
    return next(i for i, line in enumerate(text.split("\n")) if fragment in line)


LAUNCH = line_of(STRIDED, "wave-lsp run:")
KERNEL = line_of(STRIDED, ".kernel")
BANKS = line_of(STRIDED, "local_store_u32")
SECTORS = line_of(STRIDED, "device_load_u32")
BRANCH = line_of(STRIDED, "iadd r7, r5, r0")
BRANCH_END = line_of(STRIDED, "endif")
STRIDE_WORDS = "mov_imm r1, 8"           # edited to "mov_imm r1, 4": no more conflict
