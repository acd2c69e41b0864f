"""Packing and unpacking of instruction words, derived from the ISA's bit layout.

`pack` turns field values into word0/word1; `unpack_word0` / `unpack_word1` do the reverse.
All shifts and masks come from `wave_lsp.isa.encoding`.
"""

from __future__ import annotations

from ..isa.encoding import (MODIFIER, OPCODE, PRED_NEG, PRED_REG, RD, RESERVED0, RESERVED1, RS1,
                            RS2, RS3, RS4, SCOPE, WORD1_VALUE)

_OP_SHIFT, _RD_SHIFT, _RS1_SHIFT = OPCODE.lo, RD.lo, RS1.lo
_MOD_SHIFT, _NEG_SHIFT, _PRED_SHIFT = MODIFIER.lo, PRED_NEG.lo, PRED_REG.lo
_RS2_SHIFT, _RS3_SHIFT, _RS4_SHIFT, _SCOPE_SHIFT = RS2.lo, RS3.lo, RS4.lo, SCOPE.lo
_REG_MASK, _MOD_MASK, _PRED_MASK, _SCOPE_MASK = RD.mask, MODIFIER.mask, PRED_REG.mask, SCOPE.mask
WORD_MASK = WORD1_VALUE.mask


def pack_word0(opcode: int, rd: int, rs1: int, modifier: int, pred_neg: bool,
               pred_reg: int) -> int:
    """word0 from its fields (modifier masked to 4 bits, pred_reg to 2, as wave-asm does)."""
    return ((opcode << _OP_SHIFT) | ((rd & _REG_MASK) << _RD_SHIFT)
            | ((rs1 & _REG_MASK) << _RS1_SHIFT) | ((modifier & _MOD_MASK) << _MOD_SHIFT)
            | (int(pred_neg) << _NEG_SHIFT) | ((pred_reg & _PRED_MASK) << _PRED_SHIFT))


def pack_word1(rs2: int, rs3: int, rs4: int, scope: int) -> int:
    """word1 of a register-operand instruction."""
    return (((rs2 & _REG_MASK) << _RS2_SHIFT) | ((rs3 & _REG_MASK) << _RS3_SHIFT)
            | ((rs4 & _REG_MASK) << _RS4_SHIFT) | ((scope & _SCOPE_MASK) << _SCOPE_SHIFT))


def unpack_word0(word0: int) -> tuple[int, int, int, int, int, bool, int]:
    """(opcode, rd, rs1, modifier, reserved bit, pred_neg, pred_reg)."""
    return (OPCODE.extract(word0), RD.extract(word0), RS1.extract(word0),
            MODIFIER.extract(word0), RESERVED0.extract(word0), bool(PRED_NEG.extract(word0)),
            PRED_REG.extract(word0))


def unpack_word1(word1: int) -> tuple[int, int, int, int, int]:
    """(rs2, rs3, rs4, reserved bits, scope)."""
    return (RS2.extract(word1), RS3.extract(word1), RS4.extract(word1),
            RESERVED1.extract(word1), SCOPE.extract(word1))
