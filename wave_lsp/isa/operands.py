"""Operand kinds and operand layouts: where each written operand goes in the encoded words.

A *layout* (the reference's "placement class", §2.9) lists the operands of an instruction in the
order they are written, each with its kind, a documentation name and the encoding field it fills.
Instruction records pick a layout and may rename operands for documentation.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class OperandKind(enum.Enum):
    """What may be written in an operand position."""

    __hash__ = object.__hash__   # members are singletons; Enum's own hashes the name (slow)

    REGISTER = "register"          # r0..r254 (a special register is accepted upstream, with a warning)
    PREDICATE = "predicate"        # p0..p3
    SPECIAL = "special register"   # sr_* (mov_sr, and mov's source)
    IMMEDIATE = "immediate"        # integer or float literal (mov_imm only)
    LABEL = "label"                # call target
    SCOPE = "scope"                # .wave .workgroup .device .system


class Field(enum.Enum):
    """Encoding fields an operand can fill (reference §3.1)."""

    __hash__ = object.__hash__   # members are singletons; Enum's own hashes the name (slow)

    RD = "rd"
    RS1 = "rs1"
    RS2 = "rs2"
    RS3 = "rs3"
    RS4 = "rs4"
    SCOPE = "scope"
    IMM = "imm"        # the whole of word1 (mov_imm)
    TARGET = "target"  # the whole of word1 (call)


@dataclass(frozen=True)
class OperandSpec:
    """One operand position of an instruction."""

    kind: OperandKind
    name: str
    field: Field
    optional: bool = False   # only the destination of atomics may be left out
    also_special: bool = False  # `mov rd, sr_*` turns into mov_sr

    @property
    def is_destination(self) -> bool:
        return self.field is Field.RD and self.kind in (OperandKind.REGISTER, OperandKind.PREDICATE)


@dataclass(frozen=True)
class Layout:
    """A placement class of reference §2.9: operand order, kinds and fields, and the emitted size."""

    name: str
    operands: tuple[OperandSpec, ...]
    size: int  # bytes actually emitted: 4 or 8

    @property
    def min_operands(self) -> int:
        return sum(1 for o in self.operands if not o.optional)

    @property
    def max_operands(self) -> int:
        return len(self.operands)


def _op(kind: OperandKind, name: str, fld: Field, **kw) -> OperandSpec:
    return OperandSpec(kind, name, fld, **kw)


_R, _P, _S = OperandKind.REGISTER, OperandKind.PREDICATE, OperandKind.SPECIAL
F = Field

LAYOUTS: dict[str, Layout] = {
    "A": Layout("A", (_op(_R, "rd", F.RD), _op(_R, "rs1", F.RS1), _op(_R, "rs2", F.RS2)), 8),
    "B": Layout("B", (_op(_R, "rd", F.RD), _op(_R, "rs1", F.RS1)), 4),
    "C": Layout("C", (_op(_R, "rd", F.RD), _op(_R, "rs1", F.RS1), _op(_R, "rs2", F.RS2),
                      _op(_R, "rs3", F.RS3)), 8),
    "D": Layout("D", (_op(_R, "rd", F.RD), _op(_R, "rs1", F.RS1), _op(_R, "rs2", F.RS2),
                      _op(_R, "rs3", F.RS3), _op(_R, "rs4", F.RS4)), 8),
    "E": Layout("E", (_op(_P, "pd", F.RD), _op(_R, "rs1", F.RS1), _op(_R, "rs2", F.RS2)), 8),
    "F": Layout("F", (_op(_R, "rd", F.RD), _op(_P, "ps", F.RS1), _op(_R, "rs1", F.RS2),
                      _op(_R, "rs2", F.RS3)), 8),
    "G": Layout("G", (_op(_R, "raddr", F.RS1), _op(_R, "rvalue", F.RS2)), 8),
    "H": Layout("H", (_op(_R, "rd", F.RD, optional=True), _op(_R, "raddr", F.RS1),
                      _op(_R, "rvalue", F.RS2)), 8),
    "H4": Layout("H4", (_op(_R, "rd", F.RD, optional=True), _op(_R, "raddr", F.RS1),
                        _op(_R, "rexpected", F.RS2), _op(_R, "rdesired", F.RS3)), 8),
    "I": Layout("I", (_op(_R, "rd", F.RD, optional=True), _op(_R, "raddr", F.RS1),
                      _op(_R, "rvalue", F.RS2), _op(OperandKind.SCOPE, "scope", F.SCOPE)), 8),
    "I4": Layout("I4", (_op(_R, "rd", F.RD, optional=True), _op(_R, "raddr", F.RS1),
                        _op(_R, "rexpected", F.RS2), _op(_R, "rdesired", F.RS3),
                        _op(OperandKind.SCOPE, "scope", F.SCOPE)), 8),
    "K": Layout("K", (_op(_R, "rd", F.RD), _op(_P, "ps", F.RS1)), 4),
    "L": Layout("L", (_op(_P, "pd", F.RD), _op(_P, "ps", F.RS1)), 4),
    "M": Layout("M", (_op(_P, "ps", F.RS1),), 4),
    "N": Layout("N", (), 4),
    "O": Layout("O", (_op(OperandKind.LABEL, "label", F.TARGET),), 8),
    "P": Layout("P", (_op(OperandKind.SCOPE, "scope", F.SCOPE),), 8),
    "Q": Layout("Q", (_op(_R, "rd", F.RD), _op(OperandKind.IMMEDIATE, "imm32", F.IMM)), 8),
    "R": Layout("R", (_op(_R, "rd", F.RD), _op(_S, "sr", F.RS1)), 4),
    # mov: rd, rs1 — or rd, sr_* which the assembler turns into mov_sr
    "MOV": Layout("MOV", (_op(_R, "rd", F.RD), _op(_R, "rs1", F.RS1, also_special=True)), 4),
}
