"""Checks of one kernel, in a single pass: structured control flow (K306-K309), the register
budget (U502), reaching `.end` without `halt` (U505), and the kernel's summary (code sizes,
label offsets, `call`s) for the program-level checks.

What each instruction contributes (`facts`) is a pure function of the instruction, memoised by
its value, which keeps re-checking an edited kernel cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..isa import INSTRUCTIONS, MAX_REGISTER, MIN_DIVERGENCE_DEPTH, OperandKind
from ..syntax.ast import Instruction, Operand, OperandSyntax as Syn
from ..syntax.program import Kernel
from .codes import diagnostic as _diag
from .diagnostic import Diagnostic, Range, Related

CLOSERS = {"endif": ("if", "K306"), "endloop": ("loop", "K307")}
# what an instruction does to the structure checks (0: nothing)
OPEN, ELSE, CLOSE, EXIT, HALT = 1, 2, 3, 4, 5
ROLES = {"if": OPEN, "loop": OPEN, "else": ELSE, "endif": CLOSE, "endloop": CLOSE,
         "break": EXIT, "continue": EXIT, "halt": HALT}


@dataclass(frozen=True, slots=True)
class KernelSummary:
    """What the program-level checks need from a kernel."""

    upstream_size: int                        # bytes wave-asm's label pass counts
    labels: tuple[tuple[str, int, int], ...]  # (name, wave-asm's offset in kernel, true offset)
    calls: tuple[tuple[int, Operand], ...]    # (line, label operand) of every `call`


@dataclass(frozen=True, slots=True)
class InstructionFacts:
    mnemonic: str
    size: int                 # bytes emitted (4 for an unknown mnemonic)
    upstream_size: int        # bytes wave-asm's label pass counts
    unconditional: bool       # no guard, or `@p0` (which wave-asm encodes as none)
    labels: tuple[Operand, ...]                      # label operands (of `call`)
    registers: tuple[tuple[int, Operand], ...]       # (last register touched, operand)
    max_register: int                                # highest register touched, or -1
    role: int                                        # OPEN, ELSE, CLOSE, EXIT, HALT or 0


@lru_cache(maxsize=1 << 17)
def facts(ins: Instruction) -> InstructionFacts:
    """The facts of an instruction (memoised by value: equal instructions have equal facts)."""
    return _compute(ins)


def _compute(ins: Instruction) -> InstructionFacts:
    m = ins.mnemonic.text
    spec = INSTRUCTIONS.get(m)
    ops = ins.operands
    specs = spec.operands if spec else ()
    if spec and specs and specs[0].optional and len(ops) == len(specs) - 1:
        specs = specs[1:]
    aligned = spec is not None and len(specs) == len(ops)
    registers = []
    labels = []
    for i, op in enumerate(ops):
        if op.syntax is Syn.REGISTER and isinstance(op.value, int) and op.value <= MAX_REGISTER:
            width = spec.register_width(specs[i]) if aligned else 1
            registers.append((op.value + width - 1, op))
        elif aligned and specs[i].kind is OperandKind.LABEL and op.syntax is Syn.NAME:
            labels.append(op)
    guard = ins.guard
    return InstructionFacts(
        m, spec.size if spec else 4, spec.upstream_label_size if spec else 4,
        guard is None or (guard.index == 0 and not guard.negated), tuple(labels),
        tuple(registers), max((r for r, _ in registers), default=-1), ROLES.get(m, 0))


def check_kernel(kernel: Kernel) -> tuple[list[Diagnostic], KernelSummary]:
    """All diagnostics of one kernel and its summary."""
    out: list[Diagnostic] = []
    count = kernel.register_count
    where = (f".registers {count}" if kernel.setting("registers")
             else f"the default of {count} registers")
    stack: list[list] = []   # [kind, line, ins, saw_else]
    deep_reported = halts = False
    upstream = offset = 0
    labels: list[tuple[str, int, int]] = []
    calls: list[tuple[int, Operand]] = []
    pending = iter(kernel.labels)
    label = next(pending, None)
    for line, ins in kernel.instructions:
        f = facts(ins)
        while label is not None and (label[0], label[1].start) <= (line, ins.start):
            labels.append((label[1].name.text, upstream, offset))
            label = next(pending, None)
        upstream += f.upstream_size
        offset += f.size
        if f.labels:
            calls.extend((line, op) for op in f.labels)
        if f.max_register >= count:
            out.extend(_beyond(f, line, count, where))
        role = f.role
        if not role:
            continue
        m = f.mnemonic
        if role == OPEN:
            stack.append([m, line, ins, False])
            if len(stack) > MIN_DIVERGENCE_DEPTH and not deep_reported:
                deep_reported = True
                out.append(_diag("K309", line, ins.mnemonic.start, ins.mnemonic.end,
                                 f"control flow nested {len(stack)} levels deep; the specification "
                                 f"guarantees only {MIN_DIVERGENCE_DEPTH} (MIN_DIVERGENCE_DEPTH)"))
        elif role == ELSE:
            out.extend(_else(stack, line, ins))
        elif role == CLOSE:
            out.extend(_close(stack, line, ins))
        elif role == EXIT:
            if not any(frame[0] == "loop" for frame in stack):
                out.append(_diag("K308", line, ins.mnemonic.start, ins.mnemonic.end,
                                 f"{m} outside a loop"))
        elif not stack and f.unconditional:  # HALT at the top level
            halts = True
    while label is not None:
        labels.append((label[1].name.text, upstream, offset))
        label = next(pending, None)
    for kind, line, ins, _ in stack:
        code, closer = ("K306", "endif") if kind == "if" else ("K307", "endloop")
        out.append(_diag(code, line, ins.mnemonic.start, ins.mnemonic.end,
                         f"{kind} without a matching {closer} in kernel '{kernel.name}'"))
    if not halts:
        out.append(_no_halt(kernel))
    return out, KernelSummary(upstream, tuple(labels), tuple(calls))


def _beyond(f: InstructionFacts, line: int, count: int, where: str) -> list[Diagnostic]:
    out = []
    for last, op in f.registers:
        if last >= count:
            covers = "" if last == op.value else f" (through r{last})"
            out.append(_diag("U502", line, op.start, op.end,
                             f"{op.text}{covers} is beyond {where}: the upstream emulator reads 0 "
                             f"and drops writes, wave-lsp's emulator stops with an error"))
    return out


def _else(stack: list[list], line: int, ins: Instruction) -> list[Diagnostic]:
    span = (ins.mnemonic.start, ins.mnemonic.end)
    if not stack or stack[-1][0] != "if":
        return [_diag("K306", line, *span, "else without a matching if" + _inside(stack))]
    if stack[-1][3]:
        first = stack[-1][2]
        return [_diag("K306", line, *span, "second else for the same if",
                      (Related(Range.on_line(stack[-1][1], first.mnemonic.start,
                                             first.mnemonic.end), "the if"),))]
    stack[-1][3] = True
    return []


def _close(stack: list[list], line: int, ins: Instruction) -> list[Diagnostic]:
    m = ins.mnemonic.text
    want, code = CLOSERS[m]
    if stack and stack[-1][0] == want:
        stack.pop()
        return []
    found = [_diag(code, line, ins.mnemonic.start, ins.mnemonic.end,
                   f"{m} without a matching {want}" + _inside(stack))]
    if any(frame[0] == want for frame in stack):   # close the intervening constructs
        while stack[-1][0] != want:
            stack.pop()
        stack.pop()
    return found


def _inside(stack: list[list]) -> str:
    return f" (the innermost open construct is '{stack[-1][0]}')" if stack else ""


def _no_halt(kernel: Kernel) -> Diagnostic:
    if kernel.end_directive is not None:
        d = kernel.end_directive
        return _diag("U505", kernel.end_line, d.start, d.name.end,
                     f"kernel '{kernel.name}' can reach its end without 'halt': the upstream "
                     f"emulator runs on into the next kernel's code")
    d = kernel.directive
    return _diag("U505", kernel.line, d.start, d.args[-1].end if d.args else d.name.end,
                 f"kernel '{kernel.name}' can reach its end without 'halt'")
