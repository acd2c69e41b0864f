"""The PTX that `wave-lsp emit` writes where upstream's `wave-ptx` is wrong in ways a template
swap cannot fix (`isa/backends.py` UPSTREAM_DEFECTS; `--compat upstream` keeps upstream's text):

- P812, guarded wave operations: written with the other wave operations (`ptx_waves.py`).
- P818, `mma_*`: upstream emits 16x16x16 `wmma` fragments; WAVE's fragments are per-lane 4x4
  f32 tiles in local memory (`.shared` in PTX), numbered by their register field. Each fragment
  becomes 16 `.f32` registers (zeroed at entry: missing fragments are zero), loads and stores
  are 16 `ld/st.shared.f32` at `addr + row * stride + col * 4`, and `mma_compute` is
  `C[i][j] += A[i][k] * B[k][j]` for k = 0..3 in order, each product and sum rounded in f32
  (`mul.rn` / `add.rn`, which PTX does not contract to a fused multiply-add), as the emulator
  computes it. `sr_mma_supported` still reads 0 (and `sr_mma_m/n/k` 0) as upstream's: a kernel
  that tests it takes its fallback path, which is correct code too.
"""

from __future__ import annotations

from ...isa import InstructionClass as IC
from ..ir import DecodedInstruction, KernelCode

# ---- P818: 4x4x4 f32 tiles --------------------------------------------------------------------
_KINDS = {"mma_load_a": (("A", "rd"),), "mma_load_b": (("B", "rd"),),
          "mma_store_c": (("C", "rs2"),), "mma_compute": (("A", "rd"), ("B", "rs1"), ("C", "rs2"))}


def _fragments(kernel: KernelCode) -> list[tuple[str, int]]:
    used = set()
    for ins in kernel.instructions:
        for kind, field in _KINDS.get(ins.spec.mnemonic, ()):
            used.add((kind, getattr(ins, field)))
    return sorted(used)


def _reg(kind: str, number: int, i: int, j: int) -> str:
    return f"%mma{kind}{number}_{i * 4 + j}"


def fragment_declarations(kernel: KernelCode) -> list[str]:
    """The registers of the fragments the kernel uses: 16 `.f32` each."""
    return [f".reg .f32 %mma{kind}{n}_<16>;" for kind, n in _fragments(kernel)]


def fragment_zeroing(kernel: KernelCode) -> list[str]:
    """The entry's zeroing of those registers (a fragment never loaded reads zero)."""
    return [f"mov.f32 {_reg(kind, n, i, j)}, 0f00000000;"
            for kind, n in _fragments(kernel) for i in range(4) for j in range(4)]


def mma_lines(ins: DecodedInstruction) -> list[str]:
    """One `mma_*` instruction on the emulator's per-lane 4x4 fragments."""
    m = ins.spec.mnemonic
    if m == "mma_compute":
        out = []
        for k in range(4):
            for i in range(4):
                for j in range(4):
                    out += [f"mul.rn.f32 %ft0, {_reg('A', ins.rd, i, k)}, "
                            f"{_reg('B', ins.rs1, k, j)};",
                            f"add.rn.f32 {_reg('C', ins.rs2, i, j)}, "
                            f"{_reg('C', ins.rs2, i, j)}, %ft0;"]
        return out
    if m == "mma_store_c":
        kind, number, address, stride = "C", ins.rs2, ins.rd, ins.rs1
    else:
        kind, number, address, stride = _KINDS[m][0][0], ins.rd, ins.rs1, ins.rs2
    out = ["mov.u32 %t0, _shared_mem;", f"add.u32 %t0, %t0, %r{address};"]
    for i in range(4):
        for j in range(4):
            at = f"[%t0+{4 * j}]" if j else "[%t0]"
            reg = _reg(kind, number, i, j)
            out.append(f"st.shared.f32 {at}, {reg};" if m == "mma_store_c"
                       else f"ld.shared.f32 {reg}, {at};")
        if i < 3:
            out.append(f"add.u32 %t0, %t0, %r{stride};")
    return out


def is_mma(ins: DecodedInstruction) -> bool:
    return ins.spec.iclass is IC.MMA
