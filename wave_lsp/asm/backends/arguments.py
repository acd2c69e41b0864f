"""The one decision on how a kernel's arguments reach the generated code, for every backend.

A kernel's arguments are its live-ins (`analysis/live_ins.py`): the registers some path reads
before writing, which a WAVE dispatch sets (`wave-lsp run --set-reg`). Each becomes a 32-bit
kernel parameter named `arg_rN`, **after the device-memory pointer, in ascending register
number**; register rN starts with its value, every other register starts at zero as before:

- PTX: `.param .u32 arg_rN` after `.param .u64 _device_mem_ptr`, loaded with
  `ld.param.u32 %rN, [arg_rN];`
- HIP: `__global__ void K(uint8_t* device_mem, uint32_t arg_rN, ...)`
- Metal: `constant uint32_t& arg_rN [[buffer(i)]]`, i = 1, 2, ... after
  `device_mem [[buffer(0)]]` (at most 30: `isa/kernel_abi.py`)
- SYCL: `void K_launch(queue& q, uint8_t* device_mem_usm, uint32_t arg_rN, ..., grid and
  workgroup sizes)`, captured by the kernel lambda

`--compat upstream` keeps upstream's signature (the device-memory pointer only, every register
zero). `run --device cuda` passes the `--set-reg` values in this order (`emu/cuda.py`).
"""

from __future__ import annotations

from ...analysis.live_ins import live_ins
from ..ir import KernelCode


def kernel_arguments(kernel: KernelCode, compat: bool = False) -> tuple[int, ...]:
    """The registers that are `kernel`'s parameters, in parameter order (none under
    `compat`); registers beyond `.registers` are left out (the backends declare none)."""
    if compat:
        return ()
    found = live_ins(kernel.instructions)
    limit = kernel.register_count
    return tuple(r for r in found if not limit or r < limit)


def argument_name(register: int) -> str:
    """The parameter that carries register `register`'s starting value."""
    return f"arg_r{register}"


def argument_values(arguments: tuple[int, ...], values: dict[int, int]) -> list[int]:
    """The parameters' values, in order, from register values (`--set-reg`); a register
    without one starts at 0, as in the emulator."""
    return [values.get(r, 0) & 0xFFFFFFFF for r in arguments]
