"""Program-level checks: kernel blocks, labels, directives outside kernels and `call` targets
that wave-asm computes differently. (Checks of a single kernel are in `kernel_checks.py`.)"""

from __future__ import annotations

from ..syntax.ast import Directive
from ..syntax.program import Kernel, Program
from .codes import diagnostic as _diag
from .diagnostic import Diagnostic, Range, Related
from .kernel_checks import KernelSummary


def _span(d: Directive) -> tuple[int, int]:
    return d.start, (d.args[-1].end if d.args else d.name.end)


def shape_diagnostics(program: Program) -> list[Diagnostic]:
    """What depends only on the program's shape (kernel blocks, label definitions, directives
    outside kernels): unchanged while edits only patch instructions."""
    return _kernel_blocks(program) + _duplicate_labels(program) + _outside_settings(program)


def reference_diagnostics(program: Program, summaries: list[KernelSummary],
                          compat: bool) -> list[Diagnostic]:
    """Uses of labels (undefined ones, call targets wave-asm computes differently) and kernels
    that can reach their end without `halt` (what follows them decides what upstream does)."""
    out = _missing_halts(program, summaries)
    for summary in summaries:
        for line, op in summary.calls:
            if op.text not in program.labels:
                out.append(_diag("K305", line, op.start, op.end, f"undefined label '{op.text}'"))
    return out + _call_targets(summaries, compat)


def _missing_halts(program: Program, summaries: list[KernelSummary]) -> list[Diagnostic]:
    """U505. Upstream's emulator runs a kernel's code on to the end of the whole code section
    (reference §4.2): into the next kernel's code, or, after the last kernel, off the end of the
    code ("unexpected end of code"). wave-lsp's emulator ends the threads at the kernel's end."""
    out = []
    last = len(program.kernels) - 1
    for index, (kernel, summary) in enumerate(zip(program.kernels, summaries)):
        if summary.halts:
            continue
        then = ("runs on into the next kernel's code" if index < last else
                "runs off the end of the code and stops with 'unexpected end of code' (this is "
                "the file's last kernel)")
        message = (f"kernel '{kernel.name}' can reach its end without 'halt': the upstream "
                   f"emulator {then}; wave-lsp's emulator ends the threads there")
        if kernel.end_directive is not None:
            d = kernel.end_directive
            out.append(_diag("U505", kernel.end_line, d.start, d.name.end, message))
        else:
            d = kernel.directive
            out.append(_diag("U505", kernel.line, d.start, d.args[-1].end if d.args
                             else d.name.end, message))
    return out


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


def _duplicate_labels(program: Program) -> list[Diagnostic]:
    out = []
    for name, defs in program.labels.items():
        first_line, first, _ = defs[0]
        for line, label, _kernel in defs[1:]:
            out.append(_diag("K304", line, label.name.start, label.name.end,
                             f"duplicate label '{name}' (labels are global to the file)",
                             (Related(Range.on_line(first_line, first.name.start, first.name.end),
                                      "first defined here"),)))
    return out


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
