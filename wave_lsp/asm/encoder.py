"""The encoder: one parsed instruction to its fields and words (reference §2.4-§3.4).

`encode_instruction` maps the written operands onto the encoding fields named by the ISA table,
then packs the words. The three places where upstream `wave-asm` has encoding defects take a
`compat` flag (DESIGN.md §1): the CAS modifier, float immediates and `call` targets (the caller
supplies the target; see `layout.py`).
"""

from __future__ import annotations

import math
import struct
from typing import Callable

from ..isa import (BY_ENCODING, CACHE_HINTS, INSTRUCTIONS, MAX_REGISTER, PREDICATE_COUNT,
                   REGISTER_SUFFIXES, SCOPE_BY_NAME, SPECIAL_BY_NAME, Field, InstructionSpec,
                   OperandKind, OperandSpec)
from ..syntax.ast import Instruction, Operand, OperandSyntax
from .ir import DecodedInstruction
from ..analysis.layout import spec_for
from .words import WORD_MASK, pack_word0, pack_word1

_IMM_MIN, _IMM_MAX = -(1 << 31), (1 << 32) - 1
_SCOPE_WORDS = ", ".join("." + name for name in SCOPE_BY_NAME)
_REG = OperandSyntax.REGISTER
_SPECIAL = OperandSyntax.SPECIAL


class EncodingError(Exception):
    """An instruction that cannot be encoded, with the columns [start, end) of the culprit."""

    def __init__(self, message: str, start: int, end: int) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end


def float_immediate(value: float, compat: bool) -> int:
    """word1 for a float literal: its f32 bit pattern, or (compat) the low 32 bits of the f64."""
    if compat:
        return struct.unpack("<Q", struct.pack("<d", value))[0] & WORD_MASK
    try:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:  # beyond the f32 range: rounds to infinity
        return struct.unpack("<I", struct.pack("<f", math.copysign(math.inf, value)))[0]


def integer_immediate(value: int) -> int | None:
    """word1 for an integer literal (two's complement for negatives), None when out of range."""
    if _IMM_MIN <= value <= _IMM_MAX:
        return value & WORD_MASK
    return None


def written_operands(instr: Instruction) -> list[Operand]:
    """The operands as wave-asm sees them: a leading cache hint is dropped, and any other
    `.word` attached to the mnemonic (`fence_acquire.workgroup`) is an operand."""
    dotted: list[Operand] = []
    hint_taken = False
    for i, suffix in enumerate(instr.suffixes):
        if i == 0 and suffix.text[1:] in CACHE_HINTS:
            hint_taken = True
            continue
        dotted.append(Operand(OperandSyntax.DOTTED, suffix.text, suffix.start, suffix.end))
    if instr.hint is not None:
        if hint_taken or dotted or instr.hint.text[1:] not in CACHE_HINTS:
            raise EncodingError(f"unexpected '{instr.hint.text}' before the operands",
                                instr.hint.start, instr.hint.end)
    if dotted and instr.operands:
        first = instr.operands[0]
        raise EncodingError("expected a new statement (operands follow a dotted word without "
                            "a comma)", first.start, first.end)
    return dotted + list(instr.operands)


def _guard(instr: Instruction) -> tuple[int, bool]:
    guard = instr.guard
    if guard is None:
        return 0, False
    if guard.spaced or guard.index is None or guard.index >= PREDICATE_COUNT:
        raise EncodingError(f"invalid guard '{guard.register.text}' (write @pN or @!pN, N 0-3)",
                            guard.start, guard.end)
    return guard.index, guard.negated


def _register(op: Operand, slot: OperandSpec) -> int:
    if op.syntax is _REG:
        if not isinstance(op.value, int) or op.value > MAX_REGISTER:
            raise EncodingError(f"invalid register index {op.value}: must be 0-{MAX_REGISTER}",
                                op.start, op.end)
        if op.suffix is not None and op.suffix not in REGISTER_SUFFIXES:
            raise EncodingError(f"invalid register suffix '.{op.suffix}' (only .lo and .hi)",
                                op.start, op.end)
        return op.value
    if op.syntax is _SPECIAL and op.text in SPECIAL_BY_NAME:
        return SPECIAL_BY_NAME[op.text].index  # wave-asm encodes the index silently
    raise EncodingError(f"expected register operand for {slot.name}", op.start, op.end)


def _predicate(op: Operand, slot: OperandSpec) -> int:
    if op.syntax is OperandSyntax.PREDICATE and isinstance(op.value, int):
        if op.value >= PREDICATE_COUNT:
            raise EncodingError(f"invalid predicate register index {op.value}: must be "
                                f"0-{PREDICATE_COUNT - 1}", op.start, op.end)
        return op.value
    raise EncodingError(f"expected predicate register for {slot.name}", op.start, op.end)


def _special(op: Operand) -> int:
    if op.syntax is _SPECIAL and op.text in SPECIAL_BY_NAME:
        return SPECIAL_BY_NAME[op.text].index
    raise EncodingError(f"expected special register, got '{op.text}'", op.start, op.end)


def _immediate(op: Operand, compat: bool) -> int:
    if op.syntax is OperandSyntax.INTEGER and isinstance(op.value, int):
        word = integer_immediate(op.value)
        if word is None:
            raise EncodingError(f"immediate value {op.value} out of range", op.start, op.end)
        return word
    if op.syntax is OperandSyntax.FLOAT and isinstance(op.value, float):
        return float_immediate(op.value, compat)
    if op.syntax in (OperandSyntax.INTEGER, OperandSyntax.FLOAT):
        raise EncodingError("invalid number literal", op.start, op.end)
    raise EncodingError("expected immediate operand", op.start, op.end)


def scope_value(op: Operand) -> int | None:
    """The scope a `.device` / `device` operand names, or None."""
    if op.syntax is OperandSyntax.DOTTED:
        scope = SCOPE_BY_NAME.get(op.text[1:])
    elif op.syntax is OperandSyntax.NAME:
        scope = SCOPE_BY_NAME.get(op.text)
    else:
        return None
    return scope.value if scope else None


def _scope(op: Operand) -> int:
    value = scope_value(op)
    if value is None:
        raise EncodingError(f"expected scope specifier ({_SCOPE_WORDS})", op.start, op.end)
    return value


def _target(op: Operand, target_of: Callable[[str], int | None]) -> int:
    if op.syntax is not OperandSyntax.NAME or op.text in SCOPE_BY_NAME:
        raise EncodingError("expected label operand", op.start, op.end)
    target = target_of(op.text)
    if target is None:
        raise EncodingError(f"undefined label '{op.text}'", op.start, op.end)
    return target & WORD_MASK


def bind_operands(spec: InstructionSpec, written: list[Operand],
                  instr: Instruction) -> list[tuple[OperandSpec, Operand]]:
    """Pair written operands with the spec's slots (an atomic's optional rd may be left out)."""
    slots = spec.operands
    if len(written) != len(slots):
        if len(written) == len(slots) - 1 and slots and slots[0].optional:
            slots = slots[1:]
        else:
            counts = str(len(slots))
            if slots and slots[0].optional:
                counts = f"{len(slots)} or {len(slots) - 1}"
            end = written[-1].end if written else instr.end
            raise EncodingError(f"invalid operand count: expected {counts}, got {len(written)}",
                                instr.mnemonic.start, end)
    return list(zip(slots, written))


def encode_instruction(instr: Instruction, offset: int,
                       target_of: Callable[[str], int | None] = lambda name: None,
                       compat: bool = False, line: int | None = None) -> DecodedInstruction:
    """Encode one instruction at `offset` (bytes from its kernel's start).

    `target_of(label)` gives the value a `call` to that label carries in word1 (the caller
    decides the mode's convention). Raises `EncodingError` for anything not encodable."""
    spec = spec_for(instr)
    if spec is None:
        raise EncodingError(f"unknown instruction '{instr.mnemonic.text}'",
                            instr.mnemonic.start, instr.mnemonic.end)
    pred_reg, pred_neg = _guard(instr)
    values = {Field.RD: 0, Field.RS1: 0, Field.RS2: 0, Field.RS3: 0, Field.RS4: 0,
              Field.SCOPE: 0}
    word1_value: int | None = None
    for slot, op in bind_operands(spec, written_operands(instr), instr):
        kind = slot.kind
        if kind is OperandKind.REGISTER:
            values[slot.field] = _register(op, slot)
        elif kind is OperandKind.PREDICATE:
            values[slot.field] = _predicate(op, slot)
        elif kind is OperandKind.SPECIAL:
            values[slot.field] = _special(op)
        elif kind is OperandKind.SCOPE:
            values[slot.field] = _scope(op)
        elif kind is OperandKind.IMMEDIATE:
            word1_value = _immediate(op, compat)
        else:
            word1_value = _target(op, target_of)
    modifier = spec.upstream_modifier if compat else spec.modifier
    emitted = spec if modifier == spec.modifier else BY_ENCODING[(spec.opcode, modifier)]
    rd, rs1 = values[Field.RD], values[Field.RS1]
    word0 = pack_word0(spec.opcode, rd, rs1, modifier, pred_neg, pred_reg)
    word1 = None
    if spec.has_word1:
        if word1_value is None:
            word1 = pack_word1(values[Field.RS2], values[Field.RS3], values[Field.RS4],
                               values[Field.SCOPE])
        else:
            word1 = word1_value
    return DecodedInstruction(
        emitted, offset, rd, rs1, values[Field.RS2], values[Field.RS3], values[Field.RS4],
        values[Field.SCOPE], word1_value or 0, pred_reg, pred_neg, word0, word1, line)
