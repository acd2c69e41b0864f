"""Divergence lints: barriers and wave operations reached in control flow that not every thread
takes, found with the uniformity analysis (`uniformity.py`).

Codes (each diagnostic carries the chain of causes as related information: the enclosing
construct, its predicate, and every instruction back to where the variation starts):

- **D601** error — `barrier` inside an `if`/`else` (or under a guard) whose condition may differ
  between the threads of a wave. The threads that skip it never arrive; the specification makes
  this undefined behaviour (v0.2 §6.12, §9.3) and real GPUs hang or corrupt silently.
- **D602** error — `barrier` inside a loop whose exit (a `break`, or a `continue` before the
  barrier that skips it) may differ between the threads of a workgroup: threads leave after
  different numbers of barriers.
- **D603** warning — `barrier` under a condition (an `if` or a guard) that is the same within each
  wave but may differ between the waves of a workgroup: every wave must reach it.
- **D604** warning — `barrier` after a `halt` that only some threads (or some waves) may take:
  halted threads never arrive.
- **D605** information — wave operation inside divergent control flow (an `if`, loop exit,
  `continue` or guard that may differ within a wave): the result covers the active lanes only.
- **D606** warning — `wave_shuffle*` inside divergent control flow: the source lane may be
  inactive, and the value read from it is implementation-defined.

A barrier gets at most one of D601/D602/D603 (the innermost error-level construct, else the
innermost warning-level one) and, independently, D604. A wave operation gets D605 or D606.
"""

from __future__ import annotations

from ..syntax.program import Program
from .codes import severity_of
from .failures import guarded
from .anchors import KernelDiagnostic, KernelRelated, LineMention, Text
from .diagnostic import Diagnostic, Range
from .uniformity import analyse_kernel
from .uniformity_state import CallFrame, Event, IfFrame, LoopFrame
from .uniformity_model import Cause, Uniformity, related_chain
from .uniformity_steps import BARRIER, SHUFFLE

_T, _WV = Uniformity.THREAD, Uniformity.WAVE


def divergence_diagnostics(program: Program, analyse=analyse_kernel) -> list[Diagnostic]:
    """D601–D606 for every kernel of the program. `analyse(kernel)` gives a kernel's uniformity
    (an `AnalysisState` passes its own, which reuses the previous analysis). A failure of the
    analysis of one kernel is reported (see failures.py) and does not stop the others."""
    out: list[Diagnostic] = []
    for kernel in program.kernels:
        with guarded(f"divergence analysis of kernel '{kernel.name}'"):
            out.extend(d.at(0) for d in kernel_divergence(analyse(kernel)))
    return out


def kernel_divergence(analysis) -> list[KernelDiagnostic]:
    """D601–D606 of one kernel's uniformity analysis, at the lines the analysis saw (the
    lines their messages quote are `LineMention`s: see anchors.py)."""
    out: list[KernelDiagnostic] = []
    seen: set[tuple[int, str]] = set()     # a function called from several places: once
    for event in analysis.events:
        found = _barrier(event) if event.step.op == BARRIER else _wave_op(event)
        for diag in found:
            key = (diag.range.start_line, diag.code)
            if key not in seen:
                seen.add(key)
                out.append(diag)
    return out


# ---- findings ----------------------------------------------------------------------------------
class _Finding:
    """One reason a barrier or wave op may be reached by only some threads."""

    __slots__ = ("level", "construct", "construct_range", "cause", "kind")

    def __init__(self, level: int, kind: str, construct: Text, construct_range: Range,
                 cause: Cause | None) -> None:
        self.level = level
        self.kind = kind                  # "if", "guard", "exit", "continue"
        self.construct = construct        # e.g. "`if p1` (line 12)", the line a LineMention
        self.construct_range = construct_range
        self.cause = cause


def _findings(event: Event) -> list[_Finding]:
    """Every enclosing construct (outermost first, the guard last) that may diverge."""
    found: list[_Finding] = []
    for frame in event.frames:
        if type(frame) is CallFrame:
            for f in found[:]:
                f.construct += Text(f", through the `call {frame.label}` at ",
                                    LineMention(frame.line))
            continue
        if type(frame) is IfFrame:
            if frame.level:
                step = frame.node.step
                side = "the `else` of " if frame.in_else else ""
                found.append(_Finding(frame.level, "if",
                                      Text(f"{side}`{step.written}` (",
                                           LineMention(frame.node.line), ")"),
                                      _range(frame.node.line, step), frame.cause))
        elif type(frame) is LoopFrame:
            node = frame.node
            if frame.exit_level:
                found.append(_Finding(frame.exit_level, "exit",
                                      Text("the `loop` at ", LineMention(node.line)),
                                      _range(node.line, node.step), frame.exit_cause))
            level, cause = frame.skipping(event.line)
            if level:
                at = cause.line if cause is not None else node.line
                found.append(_Finding(level, "continue",
                                      Text("the `continue` at ", LineMention(at)),
                                      cause.range if cause is not None
                                      else _range(node.line, node.step), cause))
    glevel, gcause = event.guard
    if glevel:
        ins = event.step.instr
        g = ins.guard
        text = ("@!" if g.negated else "@") + g.register.text if g is not None else "guard"
        found.append(_Finding(glevel, "guard", Text(f"the guard `{text}`"),
                              Range(event.line, g.start if g else ins.start, event.line,
                                    g.end if g else ins.end), gcause))
    return found


def _range(line: int, step) -> Range:
    return Range(line, step.instr.start, line, step.instr.end)


def _related(f: _Finding, what: Text) -> tuple[KernelRelated, ...]:
    """The construct, then the chain of causes back to where the variation starts."""
    cause = f.cause
    if f.kind == "continue" and cause is not None and cause.parent is not None:
        cause = cause.parent             # the construct already is the `continue` itself
    return (KernelRelated(f.construct_range, what), *related_chain(cause))


# ---- barriers ----------------------------------------------------------------------------------
def _barrier(event: Event) -> list[KernelDiagnostic]:
    out: list[KernelDiagnostic] = []
    rng = Range(event.line, event.step.instr.mnemonic.start, event.line,
                event.step.instr.mnemonic.end)
    findings = _findings(event)
    errors = [f for f in findings
              if (f.kind in ("if", "guard") and f.level >= _T)
              or (f.kind in ("exit", "continue") and f.level >= _WV)]
    warnings = [f for f in findings if f.kind in ("if", "guard") and f.level == _WV]
    if errors:
        f = errors[-1]
        if f.kind in ("if", "guard"):
            code = "D601"
            message = Text("barrier under ", f.construct, ", whose condition may differ between "
                           "the threads of a wave: the threads that skip it never arrive "
                           "(undefined behaviour, spec §6.12)")
            what = Text(f.construct, f": condition {Uniformity(f.level).phrase}")
        elif f.kind == "exit":
            code = "D602"
            message = Text("barrier inside ", f.construct, ", whose exit may differ between the "
                           "threads of a workgroup: threads leave after different numbers of "
                           "barriers (undefined behaviour, spec §6.12)")
            what = Text(f.construct, f": exit {Uniformity(f.level).phrase}")
        else:
            code = "D602"
            message = Text("barrier skipped by ", f.construct, ", which may differ between the "
                           "threads of a workgroup: the threads that continue never arrive in "
                           "that iteration (undefined behaviour, spec §6.12)")
            what = Text(f.construct, ": taken where its predicate holds, which "
                        f"{Uniformity(f.level).phrase}")
        out.append(KernelDiagnostic(code, severity_of(code), rng, message,
                                    related=_related(f, what)))
    elif warnings:
        f = warnings[-1]
        message = Text("barrier under ", f.construct, ", whose condition may differ between the "
                       "waves of a workgroup: every wave of the workgroup must reach this barrier")
        out.append(KernelDiagnostic("D603", severity_of("D603"), rng, message,
                                    related=_related(f, Text(f.construct, ": condition "
                                                             f"{Uniformity(f.level).phrase}"))))
    hlevel, hcause = event.halt
    if hlevel >= _WV:
        who = "some threads of a wave" if hlevel >= _T else "some waves of a workgroup"
        halt = LineMention(hcause.line) if hcause is not None else "line 0"
        message = Text("barrier after the `halt` at ", halt, f", which {who} may take: halted "
                       "threads never arrive at the barrier")
        out.append(KernelDiagnostic("D604", severity_of("D604"), rng, message,
                                    related=tuple(related_chain(hcause))))
    return out


# ---- wave operations ---------------------------------------------------------------------------
def _wave_op(event: Event) -> list[KernelDiagnostic]:
    divergent = [f for f in _findings(event) if f.level >= _T]
    if not divergent:
        return []
    f = divergent[-1]
    ins = event.step.instr
    rng = Range(event.line, ins.start, event.line, ins.end)
    name = event.step.mnemonic
    what = Text(f.construct, f": {_phrase(f)}")
    if event.step.wave == SHUFFLE:
        message = Text(f"`{name}` under ", f.construct, ", which may differ between the lanes of "
                       "a wave: the source lane may be inactive, and what is read from it is "
                       "undefined")
        return [KernelDiagnostic("D606", severity_of("D606"), rng, message,
                                 related=_related(f, what))]
    message = Text(f"`{name}` under ", f.construct, ", which may differ between the lanes of a "
                   "wave: the result covers the active lanes only")
    return [KernelDiagnostic("D605", severity_of("D605"), rng, message,
                             related=_related(f, what))]


def _phrase(f: _Finding) -> str:
    level = Uniformity(f.level).phrase
    if f.kind == "exit":
        return f"exit {level}"
    if f.kind == "continue":
        return f"taken where its predicate holds, which {level}"
    return f"condition {level}"
