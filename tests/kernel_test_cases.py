"""Kernels with tests written in them, shared by the kernel-test tests (ide and CLI)."""

from __future__ import annotations

# out[lane] = lane * 10; 8 lanes in one wave
STORE = """\
.kernel store
.registers 8
; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4
{expect}
    mov_sr  r0, sr_lane_id
    mov_imm r1, 10
    imul    r2, r0, r1
    mov_imm r3, 4
    imul    r4, r0, r3
    device_store_u32 r4, r2
    halt
.end
"""


def store(*values: str) -> str:
    return STORE.format(expect="\n".join(f"; wave-lsp expect: {v}" if v else
                                         "; wave-lsp expect:" for v in values))


# The wrong value comes through a loop and a divergent if/else: threads 0-1 store the loop
# counter (line 20), the others counter + thread (line 23), every iteration; two waves of 4.
LOOP_BRANCH = """\
.kernel loop_branch
.registers 12
; wave-lsp run: --workgroup 8,1,1 --wave-width 4 --dump-u32 0:8
{expect}
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 4
    imul    r2, r0, r1
    mov_imm r3, 0
    mov_imm r4, 3
    mov_imm r5, 2
    mov_imm r6, 1
    loop
        icmp_ge p1, r3, r4
        break p1
        iadd    r3, r3, r6
        icmp_lt p2, r0, r5
        if p2
            device_store_u32 r2, r3
        else
            iadd    r8, r3, r0
            device_store_u32 r2, r8
        endif
    endloop
    halt
.end
"""
LOOP_BRANCH_OUTPUT = ["3", "3", "5", "6", "7", "8", "9", "10"]
IF_STORE = "device_store_u32 r2, r3"       # the store in the `if` side
ELSE_STORE = "device_store_u32 r2, r8"     # ... in the `else` side


def line_of(text: str, code: str) -> int:
    """The 0-based line holding `code` (once)."""
    [line] = [n for n, t in enumerate(text.splitlines()) if code in t]
    return line


def loop_branch(values) -> str:
    return LOOP_BRANCH.format(expect="\n".join(f"; wave-lsp expect: {v}" for v in values))


# Reads past device memory: `wave-lsp run` prints an error and exits 1.
OUT_OF_BOUNDS = """\
.kernel oob
.registers 4
; wave-lsp run: --workgroup 1,1,1 --device-memory 64 --dump-u32 0:1
{expect}
    mov_imm r0, 4096
    device_load_u32 r1, r0
    mov_imm r2, 0
    device_store_u32 r2, r1
    halt
.end
"""

# f32 values 1/3, 2/3, 1 (thread + 1) / 3
THIRDS = """\
.kernel thirds
.registers 8
; wave-lsp run: --workgroup 3,1,1 --wave-width 4 --dump-f32 0:3 {tolerance}
{expect}
    mov_sr  r0, sr_lane_id
    mov_imm r1, 1
    iadd    r0, r0, r1
    cvt_f32_u32 r2, r0
    mov_imm r3, 3.0
    fdiv    r4, r2, r3
    mov_imm r5, 4
    isub    r6, r0, r1
    imul    r6, r6, r5
    device_store_u32 r6, r4
    halt
.end
"""


def thirds(values, tolerance: str = "") -> str:
    return THIRDS.format(tolerance=tolerance,
                         expect="\n".join(f"; wave-lsp expect: {v}" for v in values))
