"""Syntax from older documents (spec v0.1, instruction reference v0.3, the docs site) that
`wave-asm` rejects today, with the current form (reference §2.10, seeds README rule 4).

These are facts about the ISA's history; the analysis layer turns them into error diagnostics
and quick fixes. Each obsolete spelling is an alias record (LLVM TableGen's `InstAlias`) that
points at the record of the current instruction, never a second row of the table. `operand_order` permutes the written operands when the current form takes them
in another order (for example `fcmp_ge a, b` is `fcmp_le b, a`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .instructions import INSTRUCTIONS, InstructionSpec


@dataclass(frozen=True)
class LegacyMnemonic:
    """An obsolete mnemonic: an alias of the current instruction's record, and what to write."""

    canonical: InstructionSpec | None  # the current instruction, when the mapping is mechanical
    note: str                          # explanation shown in the diagnostic
    operand_order: tuple[int, ...] | None = None
    append_operands: tuple[str, ...] = ()  # operands the current form adds (e.g. a scope)

    @property
    def replacement(self) -> str | None:
        """The current mnemonic to write instead (None: no mechanical replacement)."""
        return self.canonical.mnemonic if self.canonical is not None else None


def _alias(replacement: str | None, note: str, operand_order: tuple[int, ...] | None = None,
           append_operands: tuple[str, ...] = ()) -> LegacyMnemonic:
    """The alias record of an obsolete spelling, pointing at the record of `replacement` (a
    mnemonic of the table: a misspelt one fails on import)."""
    canonical = INSTRUCTIONS[replacement] if replacement is not None else None
    return LegacyMnemonic(canonical, note, operand_order, append_operands)


def _same(repl: str, origin: str) -> LegacyMnemonic:
    return _alias(repl, f"{origin} form")


_V01 = "spec v0.1 (PTX-like)"
_V03 = "instruction reference v0.3"

LEGACY_MNEMONICS: dict[str, LegacyMnemonic] = {
    # spec v0.1, PTX-like type-suffixed mnemonics
    **{k: _same(v, _V01) for k, v in {
        "add.s32": "iadd", "add.u32": "iadd", "sub.s32": "isub", "sub.u32": "isub",
        "mul.lo.s32": "imul", "mul.lo.u32": "imul", "mul.hi.s32": "imul_hi",
        "mad.lo.s32": "imad", "div.s32": "idiv", "rem.s32": "imod", "neg.s32": "ineg",
        "abs.s32": "iabs", "min.s32": "imin", "max.s32": "imax",
        "and.b32": "and", "or.b32": "or", "xor.b32": "xor", "not.b32": "not",
        "shl.b32": "shl", "shr.u32": "shr", "shr.s32": "sar", "popc.b32": "bitcount",
        "clz.b32": "bitfind", "brev.b32": "bitrev", "bfe.u32": "bfe", "bfi.b32": "bfi",
        "add.f32": "fadd", "sub.f32": "fsub", "mul.f32": "fmul", "fma.f32": "fma",
        "div.f32": "fdiv", "rcp.f32": "frcp", "sqrt.f32": "fsqrt", "rsqrt.f32": "frsqrt",
        "neg.f32": "fneg", "abs.f32": "fabs", "min.f32": "fmin", "max.f32": "fmax",
        "sin.f32": "fsin", "cos.f32": "fcos", "exp2.f32": "fexp2", "log2.f32": "flog2",
        "add.f16x2": "hadd2", "mul.f16x2": "hmul2", "fma.f16x2": "hma2",
        "add.f64": "dadd", "mul.f64": "dmul", "fma.f64": "dma", "div.f64": "ddiv",
        "cvt.f32.s32": "cvt_f32_i32", "cvt.f32.u32": "cvt_f32_u32", "cvt.s32.f32": "cvt_i32_f32",
        "cvt.f16.f32": "cvt_f16_f32", "cvt.f32.f16": "cvt_f32_f16", "cvt.f64.f32": "cvt_f64_f32",
        "cvt.f32.f64": "cvt_f32_f64",
        "setp.eq.s32": "icmp_eq", "setp.ne.s32": "icmp_ne", "setp.lt.s32": "icmp_lt",
        "setp.le.s32": "icmp_le", "setp.gt.s32": "icmp_gt", "setp.ge.s32": "icmp_ge",
        "setp.eq.f32": "fcmp_eq", "setp.neu.f32": "fcmp_ne", "setp.lt.f32": "fcmp_lt",
        "setp.le.f32": "fcmp_le", "setp.gt.f32": "fcmp_gt",
        "ld.local.b32": "local_load_u32", "ld.local.b64": "local_load_u64",
        "ld.global.b32": "device_load_u32", "st.local.b32": "local_store_u32",
        "st.global.b32": "device_store_u32", "atom.local.add.u32": "local_atomic_add",
        "wave.reduce.add.u32": "wave_reduce_add", "wave.broadcast.b32": "wave_broadcast",
        "wave.shuffle.b32": "wave_shuffle", "wave.shuffle.xor.b32": "wave_shuffle_xor",
        "wave.shuffle.up.b32": "wave_shuffle_up", "wave.shuffle.down.b32": "wave_shuffle_down",
        "wave.prefix.add.u32": "wave_prefix_sum", "wave.ballot.b32": "wave_ballot",
        "wave.any": "wave_any", "wave.all": "wave_all",
    }.items()},
    "selp.s32": _alias("select", f"{_V01} form; the predicate now comes second",
                               operand_order=(0, 3, 1, 2)),
    "atom.global.add.u32": _alias("atomic_add", f"{_V01} form; device atomics take a scope",
                                          append_operands=(".device",)),
    "atom.global.exch.b32": _alias("atomic_exchange", f"{_V01} form; device atomics take a scope",
                                           append_operands=(".device",)),
    "atom.global.cas.b32": _alias("atomic_cas", f"{_V01} form; device atomics take a scope",
                                          append_operands=(".device",)),
    "wave.reduce.min.s32": _alias("wave_reduce_min", f"{_V01} form; the reduction is unsigned now"),
    "wave.reduce.max.s32": _alias("wave_reduce_max", f"{_V01} form; the reduction is unsigned now"),
    "wave.reduce.and.b32": _alias(None, "there is no AND reduction; use wave_ballot or a shuffle loop"),
    "wave.reduce.or.b32": _alias(None, "there is no OR reduction; use wave_ballot or a shuffle loop"),
    **{f"fence.{s}": _alias("fence_acq_rel", f"{_V01} form (a full fence)",
                                    append_operands=(f".{s}",))
       for s in ("wave", "workgroup", "device", "system")},
    # instruction reference v0.3 (upper-case); matched case-insensitively after lower-casing
    **{k: _same(v, _V03) for k, v in {
        "add": "iadd", "sub": "isub", "mul": "imul", "div": "idiv", "rem": "imod",
        "neg": "ineg", "abs": "iabs", "min": "imin", "max": "imax", "mulhi": "imul_hi",
        "popcnt": "bitcount", "fcvt_i2f": "cvt_f32_i32", "fcvt_f2i": "cvt_i32_f32",
        "exit": "halt", "ret": "return", "local_load": "local_load_u32",
        "local_store": "local_store_u32", "load": "device_load_u32", "store": "device_store_u32",
    }.items()},
    "udiv": _alias(None, "there is no unsigned division; only idiv (signed) exists"),
    "urem": _alias(None, "there is no unsigned remainder; only imod (signed) exists"),
    "cmp_eq": _alias("icmp_eq", f"{_V03} form; compares now write a predicate (p0-p3)"),
    "cmp_ne": _alias("icmp_ne", f"{_V03} form; compares now write a predicate (p0-p3)"),
    "cmp_lt": _alias("icmp_lt", f"{_V03} form; compares now write a predicate (p0-p3)"),
    "cmp_ge": _alias("icmp_ge", f"{_V03} form; compares now write a predicate (p0-p3)"),
    "fcmp": _alias(None, "write the comparison in the mnemonic: fcmp_eq, fcmp_lt, ..."),
    "atomic": _alias(None, "write the operation in the mnemonic: atomic_add, atomic_min, ..."),
    "wave_op": _alias(None, "write the operation in the mnemonic: wave_shuffle, wave_reduce_add, ..."),
    "branch": _alias(None, "there are no branches: use if/else/endif and loop/break/endloop"),
    "branch_if": _alias(None, "there are no branches: use if/else/endif and loop/break/endloop"),
    "branch_ifnot": _alias(None, "there are no branches: use if/else/endif and loop/break/endloop"),
    # names listed in spec appendices or the docs that the toolchain never implemented
    "fcmp_ge": _alias("fcmp_le", "there is no fcmp_ge: swap the operands of fcmp_le",
                              operand_order=(0, 2, 1)),
    "ucmp_gt": _alias("ucmp_lt", "there is no ucmp_gt: swap the operands of ucmp_lt",
                              operand_order=(0, 2, 1)),
    "ucmp_ge": _alias("ucmp_le", "there is no ucmp_ge: swap the operands of ucmp_le",
                              operand_order=(0, 2, 1)),
    "ucmp_eq": _alias("icmp_eq", "there is no ucmp_eq: equality does not depend on sign"),
    "ucmp_ne": _alias("icmp_ne", "there is no ucmp_ne: equality does not depend on sign"),
    "umin": _alias(None, "there is no umin: use ucmp_lt and select"),
    "umax": _alias(None, "there is no umax: use ucmp_lt and select"),
    "wave_shuffle_idx": _alias("wave_shuffle", "the indexed shuffle is wave_shuffle"),
    "wave_reduce_and": _alias(None, "there is no AND reduction (only add, min, max)"),
    "wave_reduce_or": _alias(None, "there is no OR reduction (only add, min, max)"),
    "wave_reduce_xor": _alias(None, "there is no XOR reduction (only add, min, max)"),
    "mma_f16_f32": _alias(None, "use the fragment instructions mma_load_a/b, mma_compute, mma_store_c"),
    "mma_bf16_f32": _alias(None, "use the fragment instructions mma_load_a/b, mma_compute, mma_store_c"),
    "mma_f32_f32": _alias(None, "use the fragment instructions mma_load_a/b, mma_compute, mma_store_c"),
    "mov_special": _alias("mov_sr", "the special-register move is mov_sr"),
    **{f"device_atomic_{op}": _alias(f"atomic_{op}", "device atomics are named atomic_*")
       for op in ("add", "sub", "min", "max", "and", "or", "xor", "exchange", "cas")},
}

# PTX-style special registers of spec v0.1 (`%tid.x`) -> current names.
LEGACY_SPECIAL_REGISTERS: dict[str, str | None] = {
    "%tid.x": "sr_thread_id_x", "%tid.y": "sr_thread_id_y", "%tid.z": "sr_thread_id_z",
    "%wid": "sr_wave_id", "%lid": "sr_lane_id",
    "%ctaid.x": "sr_workgroup_id_x", "%ctaid.y": "sr_workgroup_id_y",
    "%ctaid.z": "sr_workgroup_id_z",
    "%ntid.x": "sr_workgroup_size_x", "%ntid.y": "sr_workgroup_size_y",
    "%ntid.z": "sr_workgroup_size_z",
    "%nctaid.x": "sr_grid_size_x", "%nctaid.y": "sr_grid_size_y", "%nctaid.z": "sr_grid_size_z",
    "%nwaves": "sr_num_waves", "%clock": None,
}

# Directive names from the docs that do not exist.
LEGACY_DIRECTIVES: dict[str, str] = {"local_mem": "local_memory", "workgroup": "workgroup_size",
                                     "regs": "registers"}
