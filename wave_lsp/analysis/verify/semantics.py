"""What one instruction does to one symbolic thread, in z3 bit-vectors: the integer, bitwise,
compare and move instructions exactly (as `emu.alu` computes them: signed `imin`/`icmp_*`,
unsigned `ucmp_*`, shift amounts masked to 5 bits), every other pure instruction (floats,
conversions, division, bit counts) as an uninterpreted function of its operands (deterministic,
any values), and what no operand determines (loads, atomics' old values, wave operations) as a
fresh value. Which instruction touches which memory comes from the ISA table (`MemoryAccess`)."""

from __future__ import annotations

import struct

import z3

from ...isa import INSTRUCTIONS, InstructionClass, OperandKind
from ...syntax.ast import Instruction, OperandSyntax

BV = z3.BitVecSort(32)


def bv(value: int) -> z3.BitVecRef:
    return z3.BitVecVal(value & 0xFFFFFFFF, 32)


def _shift(b):
    return b & bv(31)


# The instructions computed exactly: mnemonic -> function of the source values.
EXACT = {
    "iadd": lambda a, b: a + b,
    "isub": lambda a, b: a - b,
    "imul": lambda a, b: a * b,
    "imad": lambda a, b, c: a * b + c,
    "ineg": lambda a: -a,
    "imin": lambda a, b: z3.If(a < b, a, b),
    "imax": lambda a, b: z3.If(a > b, a, b),
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "not": lambda a: ~a,
    "shl": lambda a, b: a << _shift(b),
    "shr": lambda a, b: z3.LShR(a, _shift(b)),
    "sar": lambda a, b: a >> _shift(b),
    "icmp_eq": lambda a, b: a == b,
    "icmp_ne": lambda a, b: a != b,
    "icmp_lt": lambda a, b: a < b,
    "icmp_le": lambda a, b: a <= b,
    "icmp_gt": lambda a, b: a > b,
    "icmp_ge": lambda a, b: a >= b,
    "ucmp_lt": lambda a, b: z3.ULT(a, b),
    "ucmp_le": lambda a, b: z3.ULE(a, b),
    "select": lambda p, a, b: z3.If(p, a, b),
    "mov": lambda a: a,
    "mov_sr": lambda a: a,
    "mov_imm": lambda a: a,
}


class Unsupported(Exception):
    """A construct the verifier does not model; the message is the verdict's reason."""


def operands(instr: Instruction):
    """(operand spec, operand) pairs of an instruction (an omitted optional first operand
    skipped, as the uniformity steps read them); None for an unknown mnemonic."""
    spec = INSTRUCTIONS.get(instr.mnemonic.text)
    if spec is None:
        return None, None
    specs = list(spec.operands)
    ops = list(instr.operands)
    if len(ops) == len(specs) - 1 and specs and specs[0].optional:
        specs = specs[1:]
    return spec, list(zip(specs, ops))


def immediate(op) -> z3.BitVecRef:
    """An immediate operand's 32 bits (a float as its IEEE-754 f32 pattern, DESIGN §1)."""
    value = op.value
    if isinstance(value, float):
        return bv(struct.unpack("<I", struct.pack("<f", value))[0])
    if isinstance(value, int):
        return bv(value)
    raise Unsupported(f"immediate '{op.text}' is not a number")


def is_pure(iclass) -> bool:
    """Instructions whose result depends only on their operands (an uninterpreted function of
    them where not computed exactly)."""
    return iclass in (InstructionClass.INTEGER, InstructionClass.FLOAT, InstructionClass.F16,
                      InstructionClass.BF16, InstructionClass.F64, InstructionClass.BITWISE,
                      InstructionClass.COMPARE, InstructionClass.CONVERT)


def is_register(opspec) -> bool:
    return opspec.kind is OperandKind.REGISTER


def is_predicate(opspec) -> bool:
    return opspec.kind is OperandKind.PREDICATE


def register_index(op) -> int | None:
    if op.syntax is OperandSyntax.REGISTER and isinstance(op.value, int):
        return op.value
    return None
