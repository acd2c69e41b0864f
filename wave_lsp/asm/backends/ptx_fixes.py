"""The PTX that `wave-lsp emit` writes where upstream's `wave-ptx` is wrong in ways a template
swap cannot fix (`isa/backends.py` UPSTREAM_DEFECTS; `--compat upstream` keeps upstream's text):

- P812, guarded wave operations: upstream drops the guard, and guarding a `shfl.sync` or
  `vote.sync` with a full member mask is undefined. The operation runs unguarded in every lane
  on a copy of its source in which the lanes whose guard fails contribute the operation's
  identity (0 for shuffles, ballots, `any`, sums; all ones / the type's extreme for `min`/`max`;
  true for `all`), into a temporary; the guard then applies to the write of the destination
  only, so those lanes keep their register. This is the emulator's semantics (a guard narrows
  the active lanes, and inactive lanes neither contribute nor are written).
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

import re

from ...isa import InstructionClass as IC
from ..ir import DecodedInstruction, KernelCode
from .templates import fill

FULL = "0xFFFFFFFF"
_SOURCE, _RESULT, _LANE, _PRED = "%t5", "%t6", "%t7", "%pt1"

# ---- P812: guarded wave operations -----------------------------------------------------------
_VOTE_IDENTITY = {"wave_ballot": 0, "wave_any": 0, "wave_all": 1}
_EXTREMES = {("min", "s32"): "0x7FFFFFFF", ("min", "u32"): FULL,
             ("max", "s32"): "0x80000000", ("max", "u32"): "0"}
_MIN_MAX = re.compile(r"\b(min|max)\.([su]32)\b")


def _identity(mnemonic: str, templates: tuple[str, ...]) -> str:
    """What a lane whose guard fails contributes: the identity of the template's operation."""
    for line in templates:
        found = _MIN_MAX.search(line)
        if found:
            return _EXTREMES[found.group(1), found.group(2)]
    return "0"      # sums, prefix sums, shuffles (an inactive source lane reads 0)


def guarded_wave(ins: DecodedInstruction, templates: tuple[str, ...]) -> list[str]:
    """A guarded wave operation, run unguarded on the guard-masked source, then a guarded
    write of the destination."""
    g = f"@{'!' if ins.pred_neg else ''}%p{ins.pred_reg}"
    m = ins.spec.mnemonic
    if m in _VOTE_IDENTITY:
        out = [f"mov.b32 {_SOURCE}, {_VOTE_IDENTITY[m]};",
               f"{g} selp.b32 {_SOURCE}, 1, 0, %$ps;",
               f"setp.ne.u32 {_PRED}, {_SOURCE}, 0;"]
        body = [t.replace("%$ps", _PRED).replace("%$pd", _PRED).replace("%r$rd", _RESULT)
                for t in templates]
        write = (f"{g} mov.pred %$pd, {_PRED};" if m != "wave_ballot"
                 else f"{g} mov.b32 %r$rd, {_RESULT};")
        return [fill(t, ins) for t in out + body + [write]]
    out = [f"mov.b32 {_SOURCE}, {_identity(m, templates)};", f"{g} mov.b32 {_SOURCE}, %r$rs1;"]
    if m == "wave_broadcast":
        # the lane index comes from the first lane whose guard holds
        negated = "!" if ins.pred_neg else ""
        out += [f"vote.sync.ballot.b32 {_LANE}, {negated}%p{ins.pred_reg}, {FULL};",
                f"neg.s32 {_RESULT}, {_LANE};", f"and.b32 {_LANE}, {_LANE}, {_RESULT};",
                f"bfind.u32 {_LANE}, {_LANE};",
                f"shfl.sync.idx.b32 {_LANE}, %r$rs2, {_LANE}, 31, {FULL};",
                f"shfl.sync.idx.b32 {_RESULT}, {_SOURCE}, {_LANE}, 31, {FULL};"]
    else:
        out += [t.replace("%r$rd", _RESULT).replace("%r$rs1", _SOURCE) for t in templates]
    out.append(f"{g} mov.b32 %r$rd, {_RESULT};")
    return [fill(t, ins) for t in out]


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
