"""Checks of one kernel, in a single pass: structured control flow (K306-K309), the register
budget (U502), whether it ends in `halt` (U505 is reported in structure.py, which knows
which kernel is the last), local memory without `.local_memory`
(U510, local_memory.py), and the kernel's summary (code sizes,
label offsets, `call`s) for the program-level checks.

What each instruction contributes (`facts`) is a pure function of the instruction, memoised by
its value, which keeps re-checking an edited kernel cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cancellation import checkpoint
from ..isa import BLOCK_ROLES, CLOSER, INSTRUCTIONS, MAX_REGISTER, MIN_DIVERGENCE_DEPTH, OperandKind
from ..syntax.blocks import Matching, match_blocks
from ..syntax.ast import Instruction, Operand, OperandSyntax as Syn
from ..syntax.program import Kernel
from .codes import diagnostic as _diag
from .diagnostic import Diagnostic, Range, Related
from .layout import sizes
from .local_memory import check_local_memory
from .uniformity_steps import MAX_ANALYSED_DEPTH, deepest
from ..syntax.memo import value_memo

# the code of a broken block of each construct (the matching itself is syntax.blocks)
BLOCK_CODES = {"if": "K306", "loop": "K307"}


@dataclass(frozen=True, slots=True)
class KernelSummary:
    """What the program-level checks need from a kernel."""

    upstream_size: int                        # bytes wave-asm's label pass counts
    labels: tuple[tuple[str, int, int], ...]  # (name, wave-asm's offset in kernel, true offset)
    calls: tuple[tuple[int, Operand], ...]    # (line, label operand) of every `call`
    halts: bool = True                        # an unconditional top-level `halt` ends it


@dataclass(frozen=True, slots=True)
class InstructionFacts:
    mnemonic: str
    size: int                 # bytes emitted (0 for an unknown mnemonic: see layout.sizes)
    upstream_size: int        # bytes wave-asm's label pass counts
    unconditional: bool       # no guard, or `@p0` (which wave-asm encodes as none)
    labels: tuple[Operand, ...]                      # label operands (of `call`)
    registers: tuple[tuple[int, Operand], ...]       # (last register touched, operand)
    max_register: int                                # highest register touched, or -1


@value_memo
def facts(ins: Instruction) -> InstructionFacts:
    """The facts of an instruction (memoised by value: equal instructions have equal facts)."""
    return _compute(ins)


def _compute(ins: Instruction) -> InstructionFacts:
    m = ins.mnemonic.text
    spec = INSTRUCTIONS.get(m)
    ops = ins.operands
    specs = spec.written_operands(len(ops)) if spec else None
    aligned = specs is not None
    registers = []
    labels = []
    for i, op in enumerate(ops):
        if op.syntax is Syn.REGISTER and isinstance(op.value, int) and op.value <= MAX_REGISTER:
            width = spec.register_width(specs[i]) if aligned else 1
            registers.append((op.value + width - 1, op))
        elif aligned and specs[i].kind is OperandKind.LABEL and op.syntax is Syn.NAME:
            labels.append(op)
    guard = ins.guard
    _encoded, size, upstream_size = sizes(ins)
    return InstructionFacts(
        m, size, upstream_size,
        guard is None or (guard.index == 0 and not guard.negated), tuple(labels),
        tuple(registers), max((r for r, _ in registers), default=-1))


def check_kernel(kernel: Kernel) -> tuple[list[Diagnostic], KernelSummary]:
    """All diagnostics of one kernel and its summary."""
    out: list[Diagnostic] = []
    count = kernel.register_count
    where = (f".registers {count}" if kernel.setting("registers")
             else f"the default of {count} registers")
    upstream = offset = 0
    labels: list[tuple[str, int, int]] = []
    calls: list[tuple[int, Operand]] = []
    pending = iter(kernel.labels)
    label = next(pending, None)
    items = kernel.instructions
    for index, (line, ins) in enumerate(items):
        if not index & 4095:
            checkpoint()
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
    while label is not None:
        labels.append((label[1].name.text, upstream, offset))
        label = next(pending, None)
    matching = match_blocks((i, ins.mnemonic.text) for i, (_line, ins) in enumerate(items))
    out.extend(_structure(kernel, matching))
    halts = any(facts(items[i][1]).unconditional for i in matching.top_level_halts)
    out.extend(check_local_memory(kernel))
    return out, KernelSummary(upstream, tuple(labels), tuple(calls), halts)


def _structure(kernel: Kernel, matching: Matching) -> list[Diagnostic]:
    """K306-K309 from the block matching."""
    items = kernel.instructions
    out = []

    def at(i: int, code: str, message: str, related=()) -> Diagnostic:
        line, ins = items[i]
        return _diag(code, line, ins.mnemonic.start, ins.mnemonic.end, message, related)

    deep = next((b for b in matching.blocks if b.depth + 1 > MIN_DIVERGENCE_DEPTH), None)
    if deep is not None:
        most = deepest(matching)
        skipped = (f"; at {most:,} levels the kernel is too deep for the uniformity and "
                   f"divergence analysis (it follows {MAX_ANALYSED_DEPTH})"
                   if most > MAX_ANALYSED_DEPTH else "")
        out.append(at(deep.open, "K309", f"control flow nested {deep.depth + 1} levels deep; the "
                      f"specification guarantees only {MIN_DIVERGENCE_DEPTH} "
                      f"(MIN_DIVERGENCE_DEPTH), and formatting indents at most "
                      f"{MIN_DIVERGENCE_DEPTH} levels{skipped}"))
    for p in matching.problems:
        inside = f" (the innermost open construct is '{p.innermost}')" if p.innermost else ""
        kind = BLOCK_ROLES[p.mnemonic][1]
        if p.why == "stray else":
            out.append(at(p.at, "K306", "else without a matching if" + inside))
        elif p.why == "second else":
            line, first = items[p.other]
            out.append(at(p.at, "K306", "second else for the same if", (Related(
                Range.on_line(line, first.mnemonic.start, first.mnemonic.end), "the if"),)))
        elif p.why == "unclosed":
            out.append(at(p.at, BLOCK_CODES[kind], f"{kind} without a matching {CLOSER[kind]} "
                          f"in kernel '{kernel.name}'"))
        else:   # a stray or crossing end
            out.append(at(p.at, BLOCK_CODES[kind], f"{p.mnemonic} without a matching {kind}"
                          + inside))
    for i in matching.exits_outside_loops:
        out.append(at(i, "K308", f"{items[i][1].mnemonic.text} outside a loop"))
    return out


def _beyond(f: InstructionFacts, line: int, count: int, where: str) -> list[Diagnostic]:
    out = []
    for last, op in f.registers:
        if last >= count:
            covers = "" if last == op.value else f" (through r{last})"
            out.append(_diag("U502", line, op.start, op.end,
                             f"{op.text}{covers} is beyond {where}: the upstream emulator reads 0 "
                             f"and drops writes, wave-lsp's emulator stops with an error"))
    return out
