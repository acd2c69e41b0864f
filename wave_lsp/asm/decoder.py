"""The decoder: little-endian instruction words back to `DecodedInstruction`s.

Whether an instruction has a word1 depends on its opcode *and* modifier (reference §3.2), which
the ISA table's (opcode, modifier) index gives directly. In strict mode (the default) every bit
must be explainable: known opcode and modifier, reserved bits 0, unused fields 0, registers
0-254, predicates 0-3, known special registers. The one tolerated oddity is what `wave-asm`
emits for `atomic_cas`: a modifier-0 atomic that also fills rs3.
"""

from __future__ import annotations

from functools import cache

import struct

from ..isa import (BY_ENCODING, MAX_REGISTER, PREDICATE_COUNT, SPECIAL_BY_INDEX, Field,
                   InstructionClass, InstructionSpec, OperandKind)
from .ir import DecodedInstruction
from .words import unpack_word0, unpack_word1

_WORD = struct.Struct("<I")
_OPCODES = frozenset(opcode for opcode, _ in BY_ENCODING)


class DecodeError(ValueError):
    """Bytes that are not a valid instruction, at a byte offset of the decoded code."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at code offset 0x{offset:04X}")
        self.message = message
        self.offset = offset


def _field_kinds(spec: InstructionSpec) -> dict[Field, OperandKind]:
    return {op.field: op.kind for op in spec.operands}


_kinds = cache(_field_kinds)   # per instruction record (a handful of them)


def _is_upstream_cas(spec: InstructionSpec) -> bool:
    """wave-asm's atomic_cas: modifier 0 of an atomic opcode with rs3 filled (reference §8.3)."""
    return spec.iclass is InstructionClass.ATOMIC and spec.modifier == 0


def _check_field(spec: InstructionSpec, fld: Field, value: int,
                 kinds: dict[Field, OperandKind], offset: int) -> None:
    kind = kinds.get(fld)
    if kind is None:
        if value and not (fld is Field.RS3 and _is_upstream_cas(spec)):
            raise DecodeError(f"{spec.mnemonic}: unused field {fld.value} is {value}, not 0",
                              offset)
    elif kind is OperandKind.REGISTER:
        if value > MAX_REGISTER:
            raise DecodeError(f"{spec.mnemonic}: register index {value} in {fld.value} is not "
                              f"encodable (0-{MAX_REGISTER})", offset)
    elif kind is OperandKind.PREDICATE:
        if value >= PREDICATE_COUNT:
            raise DecodeError(f"{spec.mnemonic}: predicate index {value} in {fld.value} "
                              f"(must be 0-{PREDICATE_COUNT - 1})", offset)
    elif kind is OperandKind.SPECIAL:
        if value not in SPECIAL_BY_INDEX:
            raise DecodeError(f"{spec.mnemonic}: unknown special register index {value}", offset)


def decode_instruction(code: bytes, position: int, offset: int,
                       strict: bool = True) -> DecodedInstruction:
    """Decode the instruction starting at `code[position]`; `offset` is recorded as its offset."""
    if position + 4 > len(code):
        raise DecodeError("truncated instruction word", offset)
    word0 = _WORD.unpack_from(code, position)[0]
    opcode, rd, rs1, modifier, reserved, pred_neg, pred_reg = unpack_word0(word0)
    spec = BY_ENCODING.get((opcode, modifier))
    if spec is None:
        if opcode in _OPCODES:
            raise DecodeError(f"opcode 0x{opcode:02X} has no modifier {modifier}", offset)
        raise DecodeError(f"unknown opcode 0x{opcode:02X}", offset)
    if strict and reserved:
        raise DecodeError(f"{spec.mnemonic}: reserved word0 bit 3 is set", offset)
    rs2 = rs3 = rs4 = scope = imm = 0
    word1 = None
    if spec.has_word1:
        if position + 8 > len(code):
            raise DecodeError(f"{spec.mnemonic}: missing its second word", offset)
        word1 = _WORD.unpack_from(code, position + 4)[0]
        kinds = _kinds(spec)
        if Field.IMM in kinds or Field.TARGET in kinds:
            imm = word1
        else:
            rs2, rs3, rs4, reserved1, scope = unpack_word1(word1)
            if strict and reserved1:
                raise DecodeError(f"{spec.mnemonic}: reserved word1 bits 7:2 are set", offset)
    if strict:
        kinds = _kinds(spec)
        for fld, value in ((Field.RD, rd), (Field.RS1, rs1), (Field.RS2, rs2),
                           (Field.RS3, rs3), (Field.RS4, rs4), (Field.SCOPE, scope)):
            if value or fld in kinds:
                _check_field(spec, fld, value, kinds, offset)
    return DecodedInstruction(spec, offset, rd, rs1, rs2, rs3, rs4, scope, imm, pred_reg,
                              pred_neg, word0, word1)


def decode_words(code: bytes, base_offset: int = 0,
                 strict: bool = True) -> list[DecodedInstruction]:
    """Decode a run of instructions; offsets start at `base_offset`. Raises `DecodeError`."""
    out = []
    position = 0
    end = len(code)
    while position < end:
        ins = decode_instruction(code, position, base_offset + position, strict)
        out.append(ins)
        position += ins.size
    return out
