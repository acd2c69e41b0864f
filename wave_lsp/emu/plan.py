"""The static structure of a kernel's instruction list, shared by the numpy engine (compiler.py)
and the native core (native/program.py): matching if/else/endif and loop/endloop (where an
empty region may be skipped) and the statistics category of each instruction. No numpy."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..isa import DELIMITERS
from ..isa import InstructionClass as IC
from ..isa import OperandKind
from ..isa.values import operand_values
from ..syntax.blocks import match_blocks

# Statistics category of each instruction class, as upstream counts (reference §4.12: moves
# count as control; every mma_* counts as float).
CATEGORY = {
    IC.INTEGER: "integer", IC.BITWISE: "integer", IC.COMPARE: "integer",
    IC.FLOAT: "float", IC.F16: "float", IC.BF16: "float", IC.F64: "float", IC.CONVERT: "float",
    IC.LOCAL_MEMORY: "memory", IC.DEVICE_MEMORY: "memory", IC.MMA: "float",
    IC.ATOMIC: "atomic", IC.WAVE: "wave",
    IC.CONTROL: "control", IC.SYNC: "control", IC.MISC: "control",
}


@dataclass
class Plan:
    """Static structure of a kernel's instruction list."""

    end: int
    index_of_offset: dict[int, int]
    if_skip: dict[int, int] = field(default_factory=dict)     # if -> its else or endif
    else_skip: dict[int, int] = field(default_factory=dict)   # else -> its endif
    loop_skip: dict[int, int] = field(default_factory=dict)   # loop -> after its endloop


def make_plan(instructions, skip_empty: bool = True) -> Plan:
    """The kernel's structure; with `skip_empty` False no region is ever skipped (every
    instruction is stepped through, as upstream does; the trace needs that)."""
    plan = Plan(len(instructions), {ins.offset: i for i, ins in enumerate(instructions)})
    if not skip_empty:
        return plan
    # Regions holding a call are never skipped (the callee may lie anywhere), nor regions
    # holding a barrier (upstream counts a barrier release even with no active lane).
    stops = [i for i, ins in enumerate(instructions) if ins.spec.mnemonic in ("call", "barrier")]

    def clean(a: int, b: int) -> bool:
        return not any(a <= c < b for c in stops)

    # the block matching of the syntax layer; a guarded block delimiter delimits nothing
    matching = match_blocks(
        (i, None if ins.guarded and ins.spec.mnemonic in DELIMITERS else ins.spec.mnemonic)
        for i, ins in enumerate(instructions))
    for block in matching.blocks:
        start, else_at, end = block.open, block.else_, block.close
        if end is None or block.closed_by_outer:
            if else_at is not None and clean(start, else_at):
                plan.if_skip[start] = else_at
            continue
        if block.kind == "loop":
            if clean(start, end):
                plan.loop_skip[start] = end + 1
        elif else_at is None:
            if clean(start, end):
                plan.if_skip[start] = end
        else:
            if clean(start, else_at):
                plan.if_skip[start] = else_at
            if clean(else_at, end):
                plan.else_skip[else_at] = end
    return plan


def signature(spec) -> tuple[str, str]:
    """(sources in rs1..rs4 order, destination) of an ALU instruction, from the operand table:
    one letter per source (`u` a 32-bit register, `d` an f64 pair, `p` a predicate)."""
    values = dict(zip((o.field.value for o in spec.operands), operand_values(spec)))
    sources = "".join(values[f] for f in ("rs1", "rs2", "rs3", "rs4") if f in values)
    return sources, values.get("rd", "-")


def register_uses(ins) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(general registers read, general registers written) by one executing lane of `ins`, from
    the instruction table (f64 pairs as two registers; predicates and special registers are not
    general registers). The uninitialised-read check of both engines works from this."""
    spec = ins.spec
    access = spec.memory
    if access is not None:
        if access.kind == "load":
            return (ins.rs1,), tuple(range(ins.rd, ins.rd + access.words))
        if access.kind == "store":
            return (ins.rs1, *range(ins.rs2, ins.rs2 + access.words)), ()
        cas = access.compare_and_swap
        return (ins.rs1, ins.rs2) + ((ins.rs3,) if cas else ()), (ins.rd,) if ins.rd else ()
    if spec.iclass is IC.MMA:
        name = spec.mnemonic
        reads = {"mma_store_c": (ins.rd, ins.rs1), "mma_compute": ()}.get(name,
                                                                          (ins.rs1, ins.rs2))
        return reads, ()
    if spec.iclass in (IC.CONTROL, IC.SYNC) or not spec.operands:
        return (), ()
    kinds = [o.kind for o in spec.operands]
    if spec.iclass is IC.WAVE or OperandKind.SPECIAL in kinds or OperandKind.IMMEDIATE in kinds:
        registers = [(o.field.value, getattr(ins, o.field.value)) for o in spec.operands
                     if o.kind is OperandKind.REGISTER]
        return (tuple(r for f, r in registers if f != "rd"),
                tuple(r for f, r in registers if f == "rd"))
    sources, dest = signature(spec)
    reads: list[int] = []
    for kind, reg in zip(sources, (ins.rs1, ins.rs2, ins.rs3, ins.rs4)):
        reads += [reg] if kind == "u" else [reg, reg + 1] if kind == "d" else []
    writes = (ins.rd,) if dest == "u" else (ins.rd, ins.rd + 1) if dest == "d" else ()
    return tuple(reads), writes
