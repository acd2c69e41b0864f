"""Kernels the time-travel tests and benchmarks share: a local-memory race (every thread
stores its id, then all read word 0 with no barrier between) and a kernel whose values come from
several writers and a `--set-reg` input (who-wrote chains). `kernel()` puts a launch line where
a test needs it, since the line numbers the tests check follow from it."""

from __future__ import annotations

RACE_BODY = """    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    local_store_u32 r2, r0
    mov_imm r3, 0
    local_load_u32 r4, r3
    halt
.end
"""

WRITERS_FLAGS = "--grid 3,1,1 --workgroup 8,1,1 --wave-width 4 --set-reg 6:1000"
WRITERS_BODY = """    mov_sr r1, sr_workgroup_id_x
    mov_imm r2, 8
    imul r3, r1, r2
    mov_sr r0, sr_thread_id_x
    iadd r4, r3, r0
    iadd r5, r4, r6
    mov_imm r2, 2
    shl r7, r4, r2
    device_store_u32 r7, r5
    halt
.end
"""


def kernel(name: str, body: str, flags: str | None = None, launch: str = "first") -> str:
    """`.kernel name` with 8 registers and `body`; the launch line of `flags` (if any) goes
    `first` (above `.kernel`), `after_kernel` or `after_registers`."""
    line = f"; wave-lsp run: {flags}\n" if flags is not None else ""
    return ((line if launch == "first" else "") + f".kernel {name}\n"
            + (line if launch == "after_kernel" else "") + ".registers 8\n"
            + (line if launch == "after_registers" else "") + body)
