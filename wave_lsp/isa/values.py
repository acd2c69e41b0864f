"""What each operand of an instruction holds, as far as the register file is concerned: a 32-bit
register, an f64 register pair (rN low, rN+1 high), a predicate, or no register at all.

Derived from the instruction table: the f64 class works on pairs throughout, and a conversion
uses a pair on the side whose type (`InstructionSpec.conversion`) is f64; everything else is
32-bit. `register_uses` says which general registers one executing lane of a decoded
instruction reads and writes.
"""

from __future__ import annotations

from .classes import InstructionClass as IC
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
            wide = spec.iclass is IC.F64 or types.get(op.field.value) == "f64"
            out.append(PAIR if wide else WORD)
        else:
            out.append(OTHER)
    return tuple(out)


def signature(spec) -> tuple[str, str]:
    """(sources in rs1..rs4 order, destination) of an ALU instruction, from the operand table:
    one letter per source (`u` a 32-bit register, `d` an f64 pair, `p` a predicate)."""
    values = dict(zip((o.field.value for o in spec.operands), operand_values(spec)))
    sources = "".join(values[f] for f in ("rs1", "rs2", "rs3", "rs4") if f in values)
    return sources, values.get("rd", "-")


def register_uses(ins) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(general registers read, general registers written) by one executing lane of `ins`, from
    the instruction table (f64 pairs as two registers; predicates and special registers are not
    general registers). The uninitialised-read check of both engines and the
    backends' kernel arguments (`analysis/live_ins.py`) work from this."""
    spec = ins.spec
    access = spec.memory
    if access is not None:
        if access.kind == "load":
            return (ins.rs1,), tuple(range(ins.rd, ins.rd + access.words))
        if access.kind == "store":
            return (ins.rs1, *range(ins.rs2, ins.rs2 + access.words)), ()
        cas = access.compare_and_swap
        return (ins.rs1, ins.rs2) + ((ins.rs3,) if cas else ()), (ins.rd,) if ins.rd else ()
    if spec.iclass is IC.MMA:
        name = spec.mnemonic
        reads = {"mma_store_c": (ins.rd, ins.rs1), "mma_compute": ()}.get(name,
                                                                          (ins.rs1, ins.rs2))
        return reads, ()
    if spec.iclass in (IC.CONTROL, IC.SYNC) or not spec.operands:
        return (), ()
    kinds = [o.kind for o in spec.operands]
    if spec.iclass is IC.WAVE or OperandKind.SPECIAL in kinds or OperandKind.IMMEDIATE in kinds:
        registers = [(o.field.value, getattr(ins, o.field.value)) for o in spec.operands
                     if o.kind is OperandKind.REGISTER]
        return (tuple(r for f, r in registers if f != "rd"),
                tuple(r for f, r in registers if f == "rd"))
    sources, dest = signature(spec)
    reads: list[int] = []
    for kind, reg in zip(sources, (ins.rs1, ins.rs2, ins.rs3, ins.rs4)):
        reads += [reg] if kind == "u" else [reg, reg + 1] if kind == "d" else []
    writes = (ins.rd,) if dest == "u" else (ins.rd, ins.rd + 1) if dest == "d" else ()
    return tuple(reads), writes
