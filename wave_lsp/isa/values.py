"""What each operand of an instruction holds, as far as the register file is concerned: a 32-bit
register, an f64 register pair (rN low, rN+1 high), a predicate, or no register at all.

Derived from the instruction table: the f64 class works on pairs throughout, and a conversion
uses a pair on the side whose type (`InstructionSpec.conversion`) is f64; everything else is
32-bit.
"""

from __future__ import annotations

from .classes import InstructionClass
from .operands import OperandKind

WORD, PAIR, PREDICATE, OTHER = "u", "d", "p", "-"


def operand_values(spec) -> tuple[str, ...]:
    """One letter per operand of `spec`, in operand order: `u` a 32-bit register, `d` an f64
    register pair, `p` a predicate, `-` anything else (immediate, special register, scope)."""
    types: dict[str, str] = {}
    if spec.conversion is not None:
        dst, src = spec.conversion
        types = {"rd": dst, "rs1": src}
    out = []
    for op in spec.operands:
        if op.kind is OperandKind.PREDICATE:
            out.append(PREDICATE)
        elif op.kind is OperandKind.REGISTER:
            wide = spec.iclass is InstructionClass.F64 or types.get(op.field.value) == "f64"
            out.append(PAIR if wide else WORD)
        else:
            out.append(OTHER)
    return tuple(out)
