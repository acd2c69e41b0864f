"""Turns a `KernelCode` into a `CompiledKernel`: one closure per instruction plus the static
structure (matching if/else/endif and loop/endloop, call targets) used to skip empty regions."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..asm.ir import DecodedInstruction, KernelCode
from ..isa import DELIMITERS
from ..isa import InstructionClass as IC
from ..syntax.blocks import match_blocks
from .alu import UNITS
from .compile_ops import (build_memory, build_mma, build_mov_imm, build_mov_sr, build_unit,
                          build_wave, invalid)
from .context import RunContext
from .control import build_control

# Statistics category of each instruction class (reference §4.12: moves count as control).
CATEGORY = {
    IC.INTEGER: "integer", IC.BITWISE: "integer", IC.COMPARE: "integer",
    IC.FLOAT: "float", IC.F16: "float", IC.BF16: "float", IC.F64: "float", IC.CONVERT: "float",
    IC.LOCAL_MEMORY: "memory", IC.DEVICE_MEMORY: "memory", IC.MMA: "memory",
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


def make_plan(instructions) -> Plan:
    plan = Plan(len(instructions), {ins.offset: i for i, ins in enumerate(instructions)})
    calls = [i for i, ins in enumerate(instructions) if ins.spec.mnemonic == "call"]

    def clean(a: int, b: int) -> bool:
        return not any(a <= c < b for c in calls)

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


def compile_kernel(kernel: KernelCode, registers: int, ctx: RunContext,
                   instructions=None) -> CompiledKernel:
    """Pre-decode `kernel` for a register file of `registers` registers."""
    instructions = tuple(kernel.instructions if instructions is None else instructions)
    plan = make_plan(instructions)
    ops = []
    for i, ins in enumerate(instructions):
        spec = ins.spec
        m = spec.mnemonic
        if spec.group == "Control":
            op = build_control(ins, i, ctx, plan)
        elif m == "mov_imm":
            op = build_mov_imm(ins, registers)
        elif m == "mov_sr":
            op = build_mov_sr(ins, registers)
        elif m in UNITS:
            op = build_unit(ins, registers)
        elif spec.memory is not None:
            op = build_memory(ins, registers, ctx, i)
        elif spec.iclass is IC.WAVE:
            op = build_wave(ins, registers, ctx, i)
        elif spec.iclass is IC.MMA:
            op = build_mma(ins, registers, ctx, i)
        else:
            op = invalid(ins, f"no emulator implementation for {m}")
        ops.append(op)
    return CompiledKernel(
        kernel, instructions, ops, plan,
        pcs=[ins.offset for ins in instructions],
        lines=[ins.line for ins in instructions],
        categories=[CATEGORY[ins.spec.iclass] for ins in instructions])


def implemented(mnemonic: str) -> bool:
    """Whether the emulator has an implementation for `mnemonic` (for the ISA coverage test)."""
    from ..isa import INSTRUCTIONS
    spec = INSTRUCTIONS[mnemonic]
    return (spec.group == "Control" or spec.memory is not None
            or spec.iclass in (IC.WAVE, IC.MMA)
            or mnemonic in UNITS or mnemonic in ("mov_imm", "mov_sr"))
