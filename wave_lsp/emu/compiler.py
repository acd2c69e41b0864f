"""Turns a `KernelCode` into a `CompiledKernel`: one closure per instruction plus the static
structure (matching if/else/endif and loop/endloop, call targets) used to skip empty regions."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..asm.ir import DecodedInstruction, KernelCode
from ..isa import InstructionClass as IC
from ..isa import OperandKind
from .alu import FUNCTIONS
from .compile_ops import (build_memory, build_mma, build_mov_imm, build_mov_sr, build_unit,
                          build_wave, invalid)
from .context import RunContext
from .control import build_control
from .fusion import fuse
from .plan import CATEGORY, Plan, make_plan

CONTROL_CLASSES = (IC.CONTROL, IC.SYNC)
DEFAULT_REGISTERS = 256       # register file used by `implemented` (any size would do)


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
