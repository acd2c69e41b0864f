"""Bit layout of the two instruction words (reference §3.1): where every field lives.

word0 = opcode | rd | rs1 | modifier | reserved | pred_neg | pred_reg; word1 (8-byte instructions
only) = rs2 | rs3 | rs4 | reserved | scope, or one whole 32-bit value (`mov_imm`'s immediate,
`call`'s target). Both words are stored little-endian. The encoder, decoder and encoding view
derive their shifts and masks from these records.
"""

from __future__ import annotations

from dataclasses import dataclass

from .operands import Field


@dataclass(frozen=True)
class BitField:
    """A run of bits `hi:lo` (inclusive) in word 0 or word 1."""

    name: str
    word: int
    hi: int
    lo: int
    meaning: str

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1

    @property
    def mask(self) -> int:
        """The field's mask after shifting it down to bit 0."""
        return (1 << self.width) - 1

    def extract(self, word: int) -> int:
        return (word >> self.lo) & self.mask

    def place(self, value: int) -> int:
        return (value & self.mask) << self.lo


OPCODE = BitField("opcode", 0, 31, 24, "operation group")
RD = BitField("rd", 0, 23, 16, "destination register or predicate")
RS1 = BitField("rs1", 0, 15, 8, "first source (register, predicate or special-register index)")
MODIFIER = BitField("modifier", 0, 7, 4, "operation within the group")
RESERVED0 = BitField("reserved", 0, 3, 3, "always 0")
PRED_NEG = BitField("pred_neg", 0, 2, 2, "1 for an @!pN guard")
PRED_REG = BitField("pred_reg", 0, 1, 0, "N of the guard @pN (0: no guard)")

RS2 = BitField("rs2", 1, 31, 24, "second source register")
RS3 = BitField("rs3", 1, 23, 16, "third source register")
RS4 = BitField("rs4", 1, 15, 8, "fourth source register")
RESERVED1 = BitField("reserved", 1, 7, 2, "always 0")
SCOPE = BitField("scope", 1, 1, 0, "memory scope (atomics and fences)")
WORD1_VALUE = BitField("word1", 1, 31, 0, "a whole 32-bit value")
