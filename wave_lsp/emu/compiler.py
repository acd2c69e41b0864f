"""Turns a `KernelCode` into a `CompiledKernel`: one closure per instruction plus the static
structure (matching if/else/endif and loop/endloop, call targets) used to skip empty regions."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..asm.ir import DecodedInstruction, KernelCode
from ..isa import DELIMITERS
from ..isa import InstructionClass as IC
from ..isa import OperandKind
from ..syntax.blocks import match_blocks
from .alu import FUNCTIONS
from .compile_ops import (build_memory, build_mma, build_mov_imm, build_mov_sr, build_unit,
                          build_wave, invalid)
from .context import RunContext
from .control import build_control
from .fusion import fuse

CONTROL_CLASSES = (IC.CONTROL, IC.SYNC)
DEFAULT_REGISTERS = 256       # register file used by `implemented` (any size would do)

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


@dataclass
class CompiledKernel:
    kernel: KernelCode
    instructions: tuple[DecodedInstruction, ...]
    ops: list
    plan: Plan
    pcs: list[int]
    lines: list[int | None]
    categories: list[str]
    fused: list = field(default_factory=list)    # per index: None or (op, span), see fusion.py


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


def build_op(ins: DecodedInstruction, index: int, ctx: RunContext, plan: Plan, registers: int):
    """The op of one instruction, chosen from its ISA record (class, operands, memory access),
    or None when the emulator has no implementation for it."""
    spec = ins.spec
    kinds = [o.kind for o in spec.operands]
    if spec.iclass in CONTROL_CLASSES or (spec.iclass is IC.MISC and not kinds):
        return build_control(ins, index, ctx, plan)
    if spec.memory is not None:
        return build_memory(ins, registers, ctx, index)
    if spec.iclass is IC.WAVE:
        return build_wave(ins, registers, ctx, index)
    if spec.iclass is IC.MMA:
        return build_mma(ins, registers, ctx, index)
    if OperandKind.SPECIAL in kinds:
        return build_mov_sr(ins, registers)
    if OperandKind.IMMEDIATE in kinds:
        return build_mov_imm(ins, registers)
    if spec.mnemonic in FUNCTIONS:
        return build_unit(ins, registers)
    return None


def compile_kernel(kernel: KernelCode, registers: int, ctx: RunContext,
                   instructions=None, skip_empty: bool = True) -> CompiledKernel:
    """Pre-decode `kernel` for a register file of `registers` registers (`skip_empty`: see
    `make_plan`)."""
    instructions = tuple(kernel.instructions if instructions is None else instructions)
    plan = make_plan(instructions, skip_empty)
    ops = []
    for i, ins in enumerate(instructions):
        op = build_op(ins, i, ctx, plan, registers)
        if op is None:
            op = invalid(ins, f"no emulator implementation for {ins.spec.mnemonic}")
        ops.append(op)
    return CompiledKernel(
        kernel, instructions, ops, plan,
        pcs=[ins.offset for ins in instructions],
        lines=[ins.line for ins in instructions],
        categories=[CATEGORY[ins.spec.iclass] for ins in instructions],
        fused=fuse(instructions, registers))


def implemented(mnemonic: str) -> bool:
    """Whether the emulator implements `mnemonic`: the real dispatch (`build_op`) gives an op
    for an instruction of it (for the ISA coverage test)."""
    from ..isa import INSTRUCTIONS
    ins = DecodedInstruction(INSTRUCTIONS[mnemonic], 0)
    return build_op(ins, 0, RunContext([0], [None]), make_plan((ins,)), DEFAULT_REGISTERS) \
        is not None
