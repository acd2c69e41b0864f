"""What a register holds at each instruction of a kernel, as far as the portability lints need:
a known constant (`mov_imm`), a ballot mask, `sr_wave_width` or `sr_lane_id`.

One forward pass in source order. Structured control flow keeps it sound enough for lints: a
register written inside an `if` branch is unknown after the branch, one written anywhere in a
loop is unknown throughout the loop, a guarded write or a `call` forgets what it overwrites.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ..isa import INSTRUCTIONS, OperandKind
from ..syntax.ast import Instruction, Operand, OperandSyntax as Syn
from ..syntax.program import Kernel

BALLOT, WAVE_WIDTH, LANE_ID = "ballot", "wave width", "lane id"
_SPECIAL_KINDS = {"sr_wave_width": WAVE_WIDTH, "sr_lane_id": LANE_ID}
_MASK_PRESERVING = frozenset({"mov", "and", "or", "xor"})


@dataclass(frozen=True, slots=True)
class Value:
    """What a register is known to hold: a constant, or one of the kinds above."""

    constant: int | None = None
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One instruction with the values of its register sources before it runs."""

    line: int
    instruction: Instruction
    mnemonic: str
    sources: tuple[tuple[Operand, Value | None], ...]   # aligned with the written operands


def operands_of(ins: Instruction):
    """The instruction's spec and operand specs aligned with its written operands, or None."""
    spec = INSTRUCTIONS.get(ins.mnemonic.text)
    if spec is None:
        return None
    specs = spec.operands
    if specs and specs[0].optional and len(ins.operands) == len(specs) - 1:
        specs = specs[1:]
    if len(specs) != len(ins.operands):
        return None
    return spec, specs


def _written(ins: Instruction) -> list[int]:
    aligned = operands_of(ins)
    if aligned is None:
        return []
    spec, specs = aligned
    out = []
    for op, os in zip(ins.operands, specs):
        if os.is_destination and os.kind is OperandKind.REGISTER and isinstance(op.value, int) \
                and op.syntax is Syn.REGISTER:
            out.extend(range(op.value, op.value + spec.register_width(os)))
    return out


def _loop_writes(items: list[tuple[int, Instruction]], start: int) -> set[int]:
    """Registers written between the `loop` at `start` and its `endloop`."""
    depth, out = 0, set()
    for _line, ins in items[start:]:
        m = ins.mnemonic.text
        if m == "loop":
            depth += 1
        elif m == "endloop":
            depth -= 1
            if depth == 0:
                break
        out.update(_written(ins))
    return out


def steps(kernel: Kernel) -> Iterator[Step]:
    """The kernel's instructions in order, each with what its register sources hold."""
    known: dict[int, Value] = {}
    frames: list[set[int]] = []    # registers written inside each open if/else
    items = kernel.instructions
    for index, (line, ins) in enumerate(items):
        m = ins.mnemonic.text
        aligned = operands_of(ins)
        sources = []
        if aligned is not None:
            for op, os in zip(ins.operands, aligned[1]):
                value = None
                if op.syntax is Syn.REGISTER and isinstance(op.value, int) and not os.is_destination:
                    value = known.get(op.value)
                elif op.syntax is Syn.SPECIAL and op.text in _SPECIAL_KINDS:
                    value = Value(kind=_SPECIAL_KINDS[op.text])
                sources.append((op, value))
        yield Step(line, ins, m, tuple(sources))
        if m == "if":
            frames.append(set())
        elif m in ("else", "endif"):
            if frames:
                for r in frames[-1]:
                    known.pop(r, None)
                if m == "endif":
                    frames.pop()
                else:
                    frames[-1] = set()
        elif m == "loop":
            for r in _loop_writes(items, index):
                known.pop(r, None)
        elif m == "call":
            known.clear()
        written = _written(ins)
        for frame in frames:
            frame.update(written)
        for r in written:
            known.pop(r, None)
        if len(written) == 1 and ins.guard is None:
            value = _result(m, ins, sources)
            if value is not None:
                known[written[0]] = value


def _result(m: str, ins: Instruction, sources) -> Value | None:
    if m == "mov_imm" and isinstance(ins.operands[1].value, int):
        return Value(constant=ins.operands[1].value % (1 << 32))
    if m in ("mov_sr", "mov") and len(sources) == 2:
        return sources[1][1]
    if m == "wave_ballot":
        return Value(kind=BALLOT)
    if m in _MASK_PRESERVING and any(v is not None and v.kind == BALLOT for _o, v in sources):
        return Value(kind=BALLOT)
    return None
