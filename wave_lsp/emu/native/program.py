"""Pre-decoding a kernel for the native core: one record of 16 int64 fields per instruction (the
`Ins` struct of core.h). The core's operations are named by mnemonic (`_wavecore.OPS`); what the
instruction table says about an instruction (operand kinds, memory width and space, statistics
category) is looked up here, in `wave_lsp.isa` and `emu.plan`, and written into the record.

`encode` returns None for a kernel the core cannot run at all (an instruction it does not
implement, or one the numpy engine would reject whenever it is reached)."""

from __future__ import annotations

from array import array

from ...asm.ir import DecodedInstruction, KernelCode
from ...isa import PREDICATE_COUNT, OperandKind
from ...isa import InstructionClass as IC
from ..plan import CATEGORY, Plan, make_plan, register_uses, signature

CATEGORIES = ("integer", "float", "memory", "control", "wave", "atomic")   # CAT_* in core.h
FIELDS = 16
TRAP = -1          # OP_TRAP: faults when a lane runs it (see `encode`)
TRAP_REGISTER = 1  # a trap record's `trap` field: register_out_of_range (core.h); else it bails
CONTROL_CLASSES = (IC.CONTROL, IC.SYNC)
USE_READS, USE_WRITES = 8, 4   # registers read and written per instruction (core.h USE_*)


def _registers_used(ins: DecodedInstruction) -> tuple[list[int], bool]:
    """(general registers the numpy engine checks against the register count, whether a
    predicate operand names a predicate that does not exist), as compile_ops does."""
    spec = ins.spec
    if spec.memory is not None:
        access = spec.memory
        if access.kind in ("load", "store"):
            data = ins.rd if access.kind == "load" else ins.rs2
            return [ins.rs1] + list(range(data, data + access.words)), False
        cas = access.compare_and_swap
        return [ins.rs1, ins.rs2] + ([ins.rs3] if cas else []) + ([ins.rd] if ins.rd else []), \
            False
    if spec.iclass is IC.MMA:           # the tile's address and stride; fragments are numbered
        return list(register_uses(ins)[0]), False
    if spec.iclass is IC.WAVE:
        fields = [(o.kind, getattr(ins, o.field.value)) for o in spec.operands]
        return ([v for kind, v in fields if kind is OperandKind.REGISTER],
                any(v >= PREDICATE_COUNT for kind, v in fields
                    if kind is OperandKind.PREDICATE))
    kinds = [o.kind for o in spec.operands]
    if OperandKind.SPECIAL in kinds or OperandKind.IMMEDIATE in kinds:
        return [ins.rd], False
    sources, dest = signature(spec)
    fields = (ins.rs1, ins.rs2, ins.rs3, ins.rs4)[:len(sources)]
    used, bad_predicate = [], False
    for kind, reg in zip(sources, fields):
        if kind == "u":
            used.append(reg)
        elif kind == "d":
            used += [reg, reg + 1]
        elif kind == "p" and reg >= PREDICATE_COUNT:
            bad_predicate = True
    if dest == "u":
        used.append(ins.rd)
    elif dest == "d":
        used += [ins.rd, ins.rd + 1]
    elif dest == "p" and ins.rd >= PREDICATE_COUNT:
        bad_predicate = True
    return used, bad_predicate


def encode(kernel: KernelCode, registers: int, ops: tuple[str, ...]) -> bytes | None:
    """The records of `kernel` for a register file of `registers`, or None (see module doc)."""
    index_of = {name: i for i, name in enumerate(ops)}
    instructions = kernel.instructions
    plan: Plan = make_plan(instructions)
    out = array("q")
    for i, ins in enumerate(instructions):
        spec = ins.spec
        op = index_of.get(spec.mnemonic)
        if op is None:
            return None
        control = spec.iclass in CONTROL_CLASSES or (spec.iclass is IC.MISC and not spec.operands)
        imm, skip, trap = ins.imm & 0xFFFFFFFF, -1, 0
        if control:
            if any(o.kind is OperandKind.PREDICATE and getattr(ins, o.field.value)
                   >= PREDICATE_COUNT for o in spec.operands):
                return None                 # the numpy engine faults whenever it is reached
            name = spec.mnemonic
            skip = {"if": plan.if_skip, "else": plan.else_skip,
                    "loop": plan.loop_skip}.get(name, {}).get(i, -1)
            if name == "call":
                imm = plan.index_of_offset.get(ins.imm, -1)
        else:
            used, bad_predicate = _registers_used(ins)
            if bad_predicate or any(r >= registers for r in used):
                op = TRAP
                trap = 0 if bad_predicate else TRAP_REGISTER
        access = spec.memory
        out.extend((op, ins.rd, ins.rs1, ins.rs2, ins.rs3, ins.rs4,
                    ins.pred_reg if ins.guarded else -1, int(ins.pred_neg), imm, skip,
                    CATEGORIES.index(CATEGORY[spec.iclass]),
                    access.width if access else 0, access.words if access else 0,
                    int(access is not None and access.space == "local"), trap, 0))
    return out.tobytes()


def registers_beyond(ins: DecodedInstruction, registers: int) -> list[int]:
    """The registers `ins` names beyond a register file of `registers` (its
    register_out_of_range error), in order."""
    used, _ = _registers_used(ins)
    return sorted({r for r in used if r >= registers})


def encode_uses(kernel: KernelCode, registers: int) -> bytes:
    """Per instruction, the registers it reads and writes (`plan.register_uses`) as USE_READS +
    USE_WRITES int16, -1 padded (core.h `Run.uses`); none for an instruction naming a register
    beyond `registers` (it traps)."""
    out = array("h")
    for ins in kernel.instructions:
        reads, writes = register_uses(ins)
        if any(r >= registers for r in (*reads, *writes)):
            reads, writes = (), ()
        reads, writes = tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(writes))
        assert len(reads) <= USE_READS and len(writes) <= USE_WRITES, ins.spec.mnemonic
        out.extend(reads + (-1,) * (USE_READS - len(reads)))
        out.extend(writes + (-1,) * (USE_WRITES - len(writes)))
    return out.tobytes()
