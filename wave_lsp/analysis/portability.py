"""Portability lints (P8xx): what the configured GPU backends (`isa/backends.py`) do differently
with a kernel.

Each kernel's findings are computed once per kernel revision for every backend at once; the
configured targets then pick the findings that concern them, and each message names those
backends. P801 f64 on a target without f64, P802 registers beyond those a backend maps,
P803-P805 and P807 code whose meaning depends on the wave width (portability_width.py), P806 operations a
backend emulates (off by default), P811-P822 what upstream's translators get wrong (`wave-lsp
emit` translates it as specified; P820-P822 depend on where the instruction is:
portability_waves.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..isa import INSTRUCTIONS, InstructionClass
from ..isa.backends import (BACKEND_BY_NAME, BACKENDS, F64_CONVERSIONS, UPSTREAM_DEFECTS,
                            targets_widths)
from ..syntax.program import Kernel, Program
from .codes import diagnostic
from .diagnostic import Diagnostic
from .kernel_checks import facts
from .portability_flow import depends_on_width, steps
from .portability_waves import contextual_findings, needs_context
from .portability_width import width_findings

__all__ = ["Finding", "kernel_findings", "portability_diagnostics", "portability_diagnostics_of"]


@dataclass(frozen=True, slots=True)
class Finding:
    """A portability problem before the targets are known: `concerns` maps each backend it
    applies to onto the words that explain it for that backend; `message` has `{targets}` where
    the explanation for the configured ones goes."""

    code: str
    line: int
    start: int
    end: int
    message: str
    concerns: tuple[tuple[str, str], ...]
    # for findings about disagreement between widths: the outcome at each width; the finding
    # concerns the targets only when their widths disagree
    outcomes: tuple[tuple[int, bool], ...] = ()

    def diagnostic(self, targets: tuple[str, ...]) -> Diagnostic | None:
        parts = [f"{text}" for name, text in self.concerns if name in targets]
        if not parts:
            return None
        if self.outcomes:
            widths = set(targets_widths(targets))
            if len({v for w, v in self.outcomes if w in widths}) < 2:
                return None
        return diagnostic(self.code, self.line, self.start, self.end,
                          self.message.replace("{targets}", "; ".join(parts)))


def kernel_findings(kernel: Kernel, base: int = 0) -> tuple[Finding, ...]:
    """Every portability finding of a kernel, for all backends, their lines counted from `base`
    (the per-document `AnalysisState` keeps them per kernel revision, anchored to the kernel's
    first line)."""
    return tuple(_compute(kernel, base))


def portability_diagnostics(program: Program, targets: tuple[str, ...],
                            findings=kernel_findings) -> list[Diagnostic]:
    """The P8xx diagnostics of a program for the configured targets; `findings(kernel)` gives
    a kernel's findings (an `AnalysisState` passes its cached ones)."""
    out: list[Diagnostic] = []
    if not targets:
        return out
    for kernel in program.kernels:
        out.extend(portability_diagnostics_of(findings(kernel), targets))
    return out


def portability_diagnostics_of(findings, targets: tuple[str, ...]) -> list[Diagnostic]:
    """The diagnostics of some findings for the configured targets."""
    return [d for d in (finding.diagnostic(targets) for finding in findings) if d is not None]


def _compute(kernel: Kernel, base: int) -> list[Finding]:
    def finding(code: str, line: int, *rest) -> Finding:
        return Finding(code, line - base, *rest)

    out: list[Finding] = _registers(kernel, finding)
    for line, ins in kernel.instructions:
        guarded = ins.guard is not None and not _p0(ins)
        for code, message, concerns in _by_mnemonic(ins.mnemonic.text, guarded):
            out.append(finding(code, line, ins.mnemonic.start, ins.head_end, message, concerns))
    if needs_context(kernel):
        out.extend(contextual_findings(kernel, finding,
                                       lambda ins: ins.guard is not None and not _p0(ins)))
    if depends_on_width(kernel):
        x, y, z = kernel.workgroup_size
        out.extend(width_findings(list(steps(kernel)), finding, x * y * z))
    return out


@lru_cache(maxsize=1024)
def _by_mnemonic(m: str, guarded: bool) -> tuple[tuple[str, str, tuple], ...]:
    """The findings an instruction gets from its mnemonic alone (P801, P806, P811-P819)."""
    out = []
    spec = INSTRUCTIONS.get(m)
    if spec is not None and (spec.iclass is InstructionClass.F64 or m in F64_CONVERSIONS):
        out.append(("P801", f"'{m}' is an f64 instruction: {{targets}}",
                    tuple((b.name, f"{b.name} has no f64 ({b.vendor} GPUs), so {b.tool}'s "
                           "output does not compile") for b in BACKENDS if not b.f64)))
    for defect in UPSTREAM_DEFECTS:
        if defect.context:
            continue        # portability_waves.py
        if m in defect.mnemonics and (guarded or not defect.guarded_only):
            action = (f"`wave-lsp emit` emits {defect.correct} (`--compat upstream` keeps "
                      "upstream's)" if defect.fixed else defect.correct)
            out.append((defect.code, f"'{m}' in upstream's {{targets}}: {defect.upstream}; "
                        f"{action}", tuple((n, BACKEND_BY_NAME[n].tool) for n in defect.backends)))
    emulated = tuple((b.name, f"{b.name}: {how}") for b in BACKENDS
                     if (how := b.emulation(m)) is not None)
    if emulated:
        out.append(("P806", f"'{m}' has no single equivalent on every backend: {{targets}}",
                    emulated))
    return tuple(out)


def _registers(kernel: Kernel, finding) -> list[Finding]:
    """P802: registers at or beyond `.registers`, which no backend declares."""
    out = []
    count = kernel.register_count
    concerns = tuple((b.name, b.tool) for b in BACKENDS)
    seen: set[int] = set()
    for line, ins in kernel.instructions:
        f = facts(ins)
        if f.max_register < count:
            continue
        for last, op in f.registers:
            if last < count or last in seen:
                continue
            seen.add(last)
            name = f"r{op.value}" if last == op.value else f"r{op.value}..r{last}"
            out.append(finding(
                "P802", line, op.start, op.end,
                f"{name} is not declared in the backends' output, which maps r0..r{count - 1} "
                f"(.registers {count}), so the vendor compiler rejects it: {{targets}}",
                concerns))
    return out


def _p0(ins) -> bool:
    """`@p0`, which wave-asm encodes as no guard."""
    return ins.guard is not None and ins.guard.index == 0 and not ins.guard.negated
