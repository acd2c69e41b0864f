"""Program-level checks: kernel blocks, labels, structured control flow, register budget, halt,
directives outside kernels and `call` targets that wave-asm computes differently."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..isa import INSTRUCTIONS, MAX_REGISTER, MIN_DIVERGENCE_DEPTH, OperandKind
from ..syntax.ast import Directive, Instruction, Operand, OperandSyntax as Syn
from ..syntax.parser import parse_line
from ..syntax.program import Kernel, Program
from .codes import severity_of
from .diagnostic import Diagnostic, Range, Related

OPENERS = {"if": "if", "loop": "loop"}


def _diag(code: str, line: int, start: int, end: int, message: str,
          related: tuple[Related, ...] = ()) -> Diagnostic:
    return Diagnostic(code, severity_of(code), Range(line, start, line, end), message,
                      related=related)


def _span(d: Directive) -> tuple[int, int]:
    return d.start, (d.args[-1].end if d.args else d.name.end)


@dataclass(frozen=True, slots=True)
class KernelSummary:
    """What the program-level checks need from a kernel, cached with the kernel's diagnostics."""

    upstream_size: int                      # bytes wave-asm's label pass counts for the kernel
    labels: tuple[tuple[str, int, int], ...]  # (name, wave-asm's offset in kernel, true offset)
    calls: tuple[tuple[int, Operand], ...]  # (line, label operand) of every `call`


def structure_diagnostics(program: Program, lines: list[str], compat: bool = False) -> list[Diagnostic]:
    """All program-level diagnostics, computed from scratch."""
    out: list[Diagnostic] = []
    summaries = []
    for kernel in program.kernels:
        diags, summary = kernel_diagnostics(kernel, lines)
        out.extend(diags)
        summaries.append(summary)
    out.extend(program_diagnostics(program, summaries, compat))
    return out


def kernel_diagnostics(kernel: Kernel, lines: list[str]) -> tuple[list[Diagnostic], KernelSummary]:
    """Diagnostics that depend on one kernel only, and its summary for the global checks."""
    diags = _control_flow(kernel) + _register_budget(kernel, lines) + _halt(kernel)
    return diags, _summary(kernel)


def program_diagnostics(program: Program, summaries: list[KernelSummary],
                        compat: bool) -> list[Diagnostic]:
    """Checks across kernels: blocks, labels, settings outside kernels, call targets."""
    return (_kernel_blocks(program) + _labels(program, summaries) + _outside_settings(program)
            + _call_targets(summaries, compat))


def _kernel_blocks(program: Program) -> list[Diagnostic]:
    out = []
    seen: dict[str, Kernel] = {}
    for k in program.kernels:
        start, end = _span(k.directive)
        if k.closed_by is not None:
            why = "before the next .kernel" if k.closed_by == "kernel" else "before the end of the file"
            out.append(_diag("K301", k.line, start, end,
                             f"kernel '{k.name}' not closed with .end {why}"))
        if k.name in seen:
            first = seen[k.name]
            out.append(_diag("K312", k.line, start, end,
                             f"kernel name '{k.name}' is used twice; .wbin metadata of both points "
                             f"at the first name and the emulator's --kernel finds only the first",
                             (Related(Range.on_line(first.line, *_span(first.directive)),
                                      "first defined here"),)))
        else:
            seen[k.name] = k
    for line, d in program.stray_ends:
        out.append(_diag("K302", line, *_span(d), ".end without an open .kernel"))
    for line, ins in program.stray_instructions:
        out.append(_diag("K303", line, ins.start, ins.end,
                         f"instruction outside kernel: '{ins.mnemonic.text}' must be between "
                         f".kernel and .end"))
    return out


def _labels(program: Program, summaries: list[KernelSummary]) -> list[Diagnostic]:
    out = []
    for name, defs in program.labels.items():
        first_line, first, _ = defs[0]
        for line, label, _kernel in defs[1:]:
            out.append(_diag("K304", line, label.name.start, label.name.end,
                             f"duplicate label '{name}' (labels are global to the file)",
                             (Related(Range.on_line(first_line, first.name.start, first.name.end),
                                      "first defined here"),)))
    for summary in summaries:
        for line, op in summary.calls:
            if op.text not in program.labels:
                out.append(_diag("K305", line, op.start, op.end, f"undefined label '{op.text}'"))
    return out


def _label_operands(ins: Instruction):
    spec = INSTRUCTIONS.get(ins.mnemonic.text)
    if spec is None or len(spec.operands) != len(ins.operands):
        return ()
    return tuple(op for op, o in zip(ins.operands, spec.operands)
                 if o.kind is OperandKind.LABEL and op.syntax is Syn.NAME)


def _control_flow(kernel: Kernel) -> list[Diagnostic]:
    out = []
    stack: list[tuple[str, int, Instruction, bool]] = []  # (kind, line, ins, saw_else)
    reported_depth = False
    for line, ins in kernel.instructions:
        m = ins.mnemonic.text
        if m in OPENERS:
            stack.append((m, line, ins, False))
            if len(stack) > MIN_DIVERGENCE_DEPTH and not reported_depth:
                reported_depth = True
                out.append(_diag("K309", line, ins.mnemonic.start, ins.mnemonic.end,
                                 f"control flow nested {len(stack)} levels deep; the specification "
                                 f"guarantees only {MIN_DIVERGENCE_DEPTH} (MIN_DIVERGENCE_DEPTH)"))
        elif m == "else":
            if not stack or stack[-1][0] != "if":
                out.append(_diag("K306", line, ins.mnemonic.start, ins.mnemonic.end,
                                 "else without a matching if" + _inside(stack)))
            elif stack[-1][3]:
                out.append(_diag("K306", line, ins.mnemonic.start, ins.mnemonic.end,
                                 "second else for the same if",
                                 (Related(Range.on_line(stack[-1][1], stack[-1][2].mnemonic.start,
                                                        stack[-1][2].mnemonic.end), "the if"),)))
            else:
                kind, l0, i0, _ = stack[-1]
                stack[-1] = (kind, l0, i0, True)
        elif m in ("endif", "endloop"):
            want = "if" if m == "endif" else "loop"
            code = "K306" if want == "if" else "K307"
            if stack and stack[-1][0] == want:
                stack.pop()
            else:
                out.append(_diag(code, line, ins.mnemonic.start, ins.mnemonic.end,
                                 f"{m} without a matching {want}" + _inside(stack)))
                if any(k == want for k, *_ in stack):   # close the intervening constructs
                    while stack and stack[-1][0] != want:
                        stack.pop()
                    stack.pop()
        elif m in ("break", "continue"):
            if not any(k == "loop" for k, *_ in stack):
                out.append(_diag("K308", line, ins.mnemonic.start, ins.mnemonic.end,
                                 f"{m} outside a loop"))
    for kind, line, ins, _ in stack:
        code, closer = ("K306", "endif") if kind == "if" else ("K307", "endloop")
        out.append(_diag(code, line, ins.mnemonic.start, ins.mnemonic.end,
                         f"{kind} without a matching {closer} in kernel '{kernel.name}'"))
    return out


def _inside(stack) -> str:
    return f" (the innermost open construct is '{stack[-1][0]}')" if stack else ""


@lru_cache(maxsize=1 << 16)
def register_uses(text: str) -> tuple[tuple[int, int, int, str], ...]:
    """(highest register index touched, start, end, operand text) for each register operand."""
    out = []
    for ins in parse_line(text).instructions:
        spec = INSTRUCTIONS.get(ins.mnemonic.text)
        ops = ins.operands
        specs = spec.operands if spec else ()
        if spec and specs and specs[0].optional and len(ops) == len(specs) - 1:
            specs = specs[1:]
        for i, op in enumerate(ops):
            if op.syntax is Syn.REGISTER and isinstance(op.value, int) and op.value <= MAX_REGISTER:
                width = spec.register_width(specs[i]) if spec and len(specs) == len(ops) else 1
                out.append((op.value + width - 1, op.start, op.end, op.text))
    return tuple(out)


def _register_budget(kernel: Kernel, lines: list[str]) -> list[Diagnostic]:
    count = kernel.register_count
    out = []
    declared = kernel.setting("registers")
    where = f".registers {count}" if declared else f"the default of {count} registers"
    for line, ins in kernel.instructions:
        for last, start, end, text in register_uses(lines[line]):
            if last >= count and start >= ins.start and end <= ins.end:
                covers = "" if last == int(text[1:].partition(".")[0]) else f" (through r{last})"
                out.append(_diag("U502", line, start, end,
                                 f"{text}{covers} is beyond {where}: the upstream emulator reads "
                                 f"0 and drops writes, wave-lsp's emulator stops with an error"))
    return out


def _halt(kernel: Kernel) -> list[Diagnostic]:
    depth = 0
    for _line, ins in kernel.instructions:
        m = ins.mnemonic.text
        if m in OPENERS:
            depth += 1
        elif m in ("endif", "endloop"):
            depth = max(0, depth - 1)
        elif m == "halt" and depth == 0 and (ins.guard is None or
                                             (ins.guard.index == 0 and not ins.guard.negated)):
            return []
    if kernel.end_directive is not None:
        return [_diag("U505", kernel.end_line, *_span(kernel.end_directive),
                      f"kernel '{kernel.name}' can reach its end without 'halt': the upstream "
                      f"emulator runs on into the next kernel's code")]
    start, end = _span(kernel.directive)
    return [_diag("U505", kernel.line, start, end,
                  f"kernel '{kernel.name}' can reach its end without 'halt'")]


def _outside_settings(program: Program) -> list[Diagnostic]:
    out = []
    for line, d, kernel in program.outside_settings:
        if kernel is None:
            message = f"'.{d.name.text}' before any .kernel is ignored by wave-asm"
        else:
            message = (f"'.{d.name.text}' outside a kernel block still changes kernel "
                       f"'{kernel.name}' (the last one opened); move it inside the block")
        out.append(_diag("U506", line, *_span(d), message))
    return out


def _summary(kernel: Kernel) -> KernelSummary:
    upstream = offset = 0
    labels = []
    calls = []
    pending = iter(kernel.labels)
    label = next(pending, None)
    for line, ins in kernel.instructions:
        while label and (label[0], label[1].start) <= (line, ins.start):
            labels.append((label[1].name.text, upstream, offset))
            label = next(pending, None)
        spec = INSTRUCTIONS.get(ins.mnemonic.text)
        upstream += spec.upstream_label_size if spec else 4
        offset += spec.size if spec else 4
        if ins.mnemonic.text == "call":
            calls.extend((line, op) for op in _label_operands(ins))
    while label:
        labels.append((label[1].name.text, upstream, offset))
        label = next(pending, None)
    return KernelSummary(upstream, tuple(labels), tuple(calls))


def _call_targets(summaries: list[KernelSummary], compat: bool) -> list[Diagnostic]:
    if not any(s.calls for s in summaries):
        return []
    upstream: dict[str, int] = {}   # label -> wave-asm's label-pass offset (whole code section)
    true: dict[str, int] = {}       # label -> byte offset in its kernel
    running = 0
    for summary in summaries:
        for name, up, real in summary.labels:
            upstream.setdefault(name, running + up)
            true.setdefault(name, real)
        running += summary.upstream_size
    out = []
    for summary in summaries:
        for line, op in summary.calls:
            name = op.text
            if name not in upstream or upstream[name] == true[name]:
                continue
            up, real = upstream[name], true[name]
            if compat:
                message = (f"compatibility mode emits wave-asm's target 0x{up:X} for '{name}', but "
                           f"the label is at byte 0x{real:X} of the kernel: the call jumps to the "
                           f"wrong place")
            else:
                message = (f"wave-asm would encode this target as 0x{up:X}, not 0x{real:X} (its "
                           f"label pass counts 80 eight-byte instructions as four bytes and measures "
                           f"from the start of the code section); wave-lsp emits 0x{real:X}")
            out.append(_diag("C701", line, op.start, op.end, message))
    return out
