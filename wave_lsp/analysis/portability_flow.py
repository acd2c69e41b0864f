"""What a register holds at each instruction of a kernel, as far as the portability lints need:
a known constant (`mov_imm`), a ballot mask, `sr_wave_width` or `sr_lane_id`.

One forward pass in source order. Structured control flow keeps it sound enough for lints: a
register written inside an `if` branch is unknown after the branch, one written anywhere in a
loop is unknown throughout the loop, a guarded write or a `call` forgets what it overwrites.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ..isa import INSTRUCTIONS, InstructionClass as IC, OperandKind
from ..syntax.ast import Instruction, Operand, OperandSyntax as Syn
from ..syntax.blocks import loop_writes
from ..syntax.memo import value_memo
from ..syntax.program import Kernel

BALLOT, WAVE_WIDTH, LANE_ID = "ballot", "wave width", "lane id"
LANE_DERIVED = "computed from the lane id"          # and from no wider position
POSITION = "computed from a thread, wave or workgroup position"
_SPECIAL_KINDS = {"sr_wave_width": WAVE_WIDTH, "sr_lane_id": LANE_ID, "sr_wave_id": POSITION,
                  **{f"sr_{what}_{axis}": POSITION for what in ("thread_id", "workgroup_id")
                     for axis in "xyz"}}
_WIDTH_KINDS = frozenset({WAVE_WIDTH, LANE_ID})
_MASK_PRESERVING = frozenset({"mov", "and", "or", "xor"})
# instructions whose meaning can depend on the wave width (besides reading the two registers)
WIDTH_MNEMONICS = frozenset({"wave_ballot", "wave_shuffle", "wave_shuffle_up", "wave_shuffle_down",
                             "wave_shuffle_xor", "wave_broadcast"})


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


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the pass needs of one instruction, computed once per `Instruction` object."""

    sources: tuple[tuple[Operand, int | None, str | None], ...]  # operand, source register, kind
    written: tuple[int, ...]
    width_relevant: bool    # a ballot or shuffle, or reads sr_wave_width / sr_lane_id


@value_memo
def _facts(ins: Instruction) -> _Facts:
    """Memoised by the instruction's value (equal instructions have equal facts)."""
    aligned = operands_of(ins)
    sources, written = [], []
    if aligned is not None:
        spec, specs = aligned
        for op, os in zip(ins.operands, specs):
            register = op.value if op.syntax is Syn.REGISTER and isinstance(op.value, int) else None
            if os.is_destination:
                if os.kind is OperandKind.REGISTER and register is not None:
                    written.extend(range(register, register + spec.register_width(os)))
                register = None
            sources.append((op, register, _SPECIAL_KINDS.get(op.text)
                            if op.syntax is Syn.SPECIAL else None))
    relevant = ins.mnemonic.text in WIDTH_MNEMONICS or any(kind in _WIDTH_KINDS
                                                           for _o, _r, kind in sources)
    return _Facts(tuple(sources), tuple(written), relevant)


def depends_on_width(kernel: Kernel) -> bool:
    """Whether any instruction of the kernel can make the width lints fire (a cheap pre-check
    that spares the data-flow pass for most kernels)."""
    return any(_facts(ins).width_relevant for _line, ins in kernel.instructions)


def steps(kernel: Kernel) -> Iterator[Step]:
    """The kernel's instructions in order, each with what its register sources hold."""
    known: dict[int, Value] = {}
    frames: list[set[int]] = []    # registers written inside each open if/else
    items = kernel.instructions
    loops = None
    for index, (line, ins) in enumerate(items):
        m = ins.mnemonic.text
        f = _facts(ins)
        sources = tuple((op, Value(kind=kind) if kind else
                         (known.get(register) if register is not None else None))
                        for op, register, kind in f.sources)
        yield Step(line, ins, m, sources)
        if m == "if":
            frames.append(set())
        elif m in ("else", "endif"):
            if frames:
                for r in frames[-1]:
                    known.pop(r, None)
                if len(frames) > 1:      # what the branch wrote, the enclosing if wrote too
                    frames[-2].update(frames[-1])
                if m == "endif":
                    frames.pop()
                else:
                    frames[-1] = set()
        elif m == "loop":
            loops = loops if loops is not None else \
                loop_writes(items, lambda i: _facts(i).written)
            for r in loops.get(index, ()):
                known.pop(r, None)
        elif m == "call":
            known.clear()
        written = f.written
        if written:
            if frames:
                frames[-1].update(written)
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
    kinds = {v.kind for _o, v in sources if v is not None}
    if m in _MASK_PRESERVING and BALLOT in kinds:
        return Value(kind=BALLOT)
    spec = INSTRUCTIONS.get(m)
    if spec is not None and spec.iclass in _ARITHMETIC:
        if POSITION in kinds:
            return Value(kind=POSITION)
        if kinds & {LANE_ID, LANE_DERIVED}:
            return Value(kind=LANE_DERIVED)
    return None


_ARITHMETIC = frozenset({IC.INTEGER, IC.BITWISE})
