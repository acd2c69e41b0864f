"""Small kernels whose inline runs several tests look at: through the server, in the real
Neovim and in process."""

# an out-of-bounds store (R001) with instruction lines after it that never run (R006)
OUT_OF_BOUNDS = """.kernel oob
.registers 8
.workgroup_size 4, 1, 1
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 1048574
    iadd    r2, r1, r0
    device_store_u32 r2, r0
    iadd    r3, r2, r0
    halt
.end
"""
STORE, AFTER = 6, 7

# 64 lanes of thirds: values whose full list is longer than an inline label may be
THIRDS = """; wave-lsp run: --workgroup 64,1,1 --wave-width 64
.kernel k
.registers 8
    mov_sr  r0, sr_thread_id_x
    cvt_f32_u32 r1, r0
    mov_imm r2, 3.0
    fdiv    r3, r1, r2
    fmul    r4, r3, r3
    halt
.end
"""
