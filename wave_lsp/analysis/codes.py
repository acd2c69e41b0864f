"""The catalogue of diagnostic codes: each code's default severity and what it means.

Codes are stable: configuration, suppression comments and editors refer to them. Families:
S1xx syntax, O2xx operands, K3xx kernels/structure/labels, L4xx legacy syntax, U5xx accepted by
wave-asm but misbehaves, D6xx divergence, C7xx encoding differences from wave-asm, X9xx files and
configuration, P8xx portability between the GPU backends, R0xx results of running a kernel from
the editor (inline runs).

A code with `enabled=False` is off by default; giving it a severity in the configuration turns
it on.
"""

from __future__ import annotations

from dataclasses import dataclass

from .diagnostic import Diagnostic, Range, Related, Severity

E, W, I, H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT


@dataclass(frozen=True)
class Code:
    code: str
    severity: Severity
    title: str
    enabled: bool = True


_CODES = (
    # syntax (what wave-asm's lexer and parser reject)
    Code("S101", E, "unexpected character or malformed line"),
    Code("S102", E, "invalid number literal"),
    Code("S103", E, "invalid predicate syntax in a guard"),
    Code("S104", E, "name wave-asm cannot read (starts like a register, predicate or sr_)"),
    # operands
    Code("O201", E, "unknown instruction"),
    Code("O202", E, "invalid operand count"),
    Code("O203", E, "expected register operand"),
    Code("O204", E, "expected predicate register"),
    Code("O205", E, "expected special register"),
    Code("O206", E, "expected immediate operand"),
    Code("O207", E, "expected label operand"),
    Code("O208", E, "expected scope specifier"),
    Code("O209", E, "invalid register index"),
    Code("O210", E, "invalid predicate register index"),
    Code("O211", E, "invalid special register"),
    Code("O212", E, "immediate value out of range"),
    Code("O213", E, "invalid register suffix (only .lo and .hi)"),
    Code("O214", E, "invalid suffix after a mnemonic"),
    # kernels, structure, labels, directives
    Code("K301", E, "kernel not closed with .end"),
    Code("K302", E, ".end without .kernel"),
    Code("K303", E, "instruction outside kernel"),
    Code("K304", E, "duplicate label"),
    Code("K305", E, "undefined label"),
    Code("K306", E, "unbalanced if/else/endif"),
    Code("K307", E, "unbalanced loop/endloop"),
    Code("K308", E, "break or continue outside a loop"),
    Code("K309", E, "control flow nested deeper than 32 levels"),
    Code("K310", E, "invalid directive"),
    Code("K311", E, "invalid directive arguments"),
    Code("K312", W, "duplicate kernel name"),
    # legacy and documentation syntax
    Code("L401", E, "obsolete mnemonic"),
    Code("L402", E, "memory operand brackets"),
    Code("L403", E, "PTX-style special register"),
    Code("L404", E, "negated predicate operand"),
    Code("L405", E, "dot-suffix instead of the current mnemonic"),
    Code("L406", E, "scope written as a mnemonic suffix"),
    Code("L407", E, "one-value .workgroup_size"),
    Code("L408", E, "immediate where a register is expected"),
    Code("L409", E, "upper-case mnemonic"),
    Code("L410", E, "obsolete directive name"),
    # accepted by wave-asm, but misbehaves (reference §6)
    Code("U501", W, "@p0 guard is encoded as no guard"),
    Code("U502", W, "register at or beyond .registers"),
    Code("U503", W, "special register in a general-register slot"),
    Code("U504", W, "float immediate"),
    Code("U505", W, "kernel can reach its end without halt"),
    Code("U506", W, "directive outside a kernel"),
    Code("U507", W, "compare-and-swap is encoded as an add by wave-asm"),
    Code("U508", W, "continue live-locks the upstream emulator"),
    Code("U509", W, "suspicious directive value"),
    Code("U510", W, "local memory used without .local_memory"),
    # reads before any write (analysis/uninitialised.py; the run's R003 sees what only a run can)
    Code("U511", W, "register read before any write reaches it (not a kernel argument)"),
    Code("U512", H, "register may be read before it is written on some path"),
    Code("U513", I, "register read before written: an undeclared kernel argument",
         enabled=False),
    # encoding differences between our default mode and wave-asm
    Code("C701", W, "call target differs from wave-asm's"),
    # divergence (issue: divergence analysis)
    Code("D601", E, "barrier inside an if whose condition may differ within a wave"),
    Code("D602", E, "barrier inside a loop whose exit may differ between threads"),
    Code("D603", W, "barrier under a condition that may differ between waves"),
    Code("D604", W, "barrier after a halt that only some threads may take"),
    Code("D605", I, "wave operation inside divergent control flow"),
    Code("D606", W, "shuffle source lane may be inactive"),
    # portability between the backends (isa/backends.py; analysis/portability*.py)
    Code("P801", W, "f64 instruction on a target without f64"),
    Code("P802", W, "register the backends do not declare (at or beyond .registers)"),
    Code("P803", W, "ballot mask used as if the wave were 32 lanes wide"),
    Code("P804", W, "constant shuffle lane or offset at or beyond a target's wave width"),
    Code("P805", W, "code that assumes a value of sr_wave_width"),
    Code("P806", I, "operation a backend emulates with several instructions", enabled=False),
    Code("P807", W, "store address from sr_lane_id alone in a workgroup of several waves"),
    # where upstream's backends translate wrongly (isa/backends.py UPSTREAM_DEFECTS); off by
    # default: they concern upstream's translators, not `wave-lsp emit`
    Code("P811", W, "upstream backends convert in the opposite direction", enabled=False),
    Code("P812", W, "upstream's PTX backend drops the guard of this instruction", enabled=False),
    Code("P813", W, "upstream's compare-and-swap may fail spuriously", enabled=False),
    Code("P814", W, "upstream computes imul_hi unsigned", enabled=False),
    Code("P815", W, "upstream computes bitfind as trailing zeros", enabled=False),
    Code("P816", W, "upstream rounds fround halfway cases to even", enabled=False),
    Code("P817", W, "upstream's bf16 arithmetic does not compile (undeclared r[])", enabled=False),
    Code("P818", W, "upstream's PTX mma uses 16x16x16 fragments", enabled=False),
    Code("P819", W, "upstream computes wave_reduce_min/max signed", enabled=False),
    Code("P820", W, "upstream's shuffle from an out-of-range or inactive lane", enabled=False),
    Code("P821", W, "upstream's wave_broadcast does not use the first active lane's index",
         enabled=False),
    Code("P822", W, "upstream's wave operation is wrong or undefined in divergent code",
         enabled=False),
    Code("P823", W, "upstream's output for this instruction is rejected by the vendor's compiler",
         enabled=False),
    Code("P824", W, "the vendor's compiler (ptxas, hipcc) rejects this kernel's translation"),
    # files and configuration
    Code("X900", E, "binary file"),
    Code("X901", E, "file is not UTF-8"),
    Code("X902", E, "invalid configuration"),
    Code("X903", W, "unknown code in a suppression comment"),
    # results of an inline run (wave_lsp.ide.run_results); they last until the next run or clear
    Code("R001", E, "run-time error stopped the run"),
    Code("R002", E, "run stopped by the instruction or time limit"),
    Code("R003", W, "emulator warning in this run"),
    Code("R004", E, "invalid launch line"),
    Code("R005", E, "the launch cannot run"),
    Code("R006", H, "not executed in this run"),
    # kernel tests (wave_lsp.ide.test_view): until the next edit re-runs them
    Code("R011", E, "kernel test: the run did not print this expect line"),
    Code("R012", E, "kernel test: the test cannot run"),
    # findings of a kernel profile (ide/profile_view.py)
    Code("R021", I, "profile: local-memory bank conflict"),
    Code("R022", I, "profile: uncoalesced device-memory access"),
    Code("R023", I, "profile: divergent or partly empty waves on a costly line"),
    # static verification from the editor (wave_lsp.ide.verify): until the next edit
    Code("R031", E, "verify: a data race (two threads' accesses, a witness launch)"),
    Code("R032", E, "verify: a barrier some threads of a workgroup reach and others do not"),
)

CODES: dict[str, Code] = {c.code: c for c in _CODES}


def enabled_by_default(code: str) -> bool:
    return CODES[code].enabled


def severity_of(code: str) -> Severity:
    return CODES[code].severity


# The families whose errors leave the bytes of a program unknown (what wave-asm rejects, or
# a file that cannot be read): only these stop `asm`. Divergence, portability, encoding
# differences and run results describe code that assembles, however bad it may be.
BLOCKING_FAMILIES = ("S", "O", "K", "L", "X")


def blocks_assembly(d: Diagnostic) -> bool:
    """Whether `d` means the source cannot be assembled (an error of a blocking family)."""
    return d.severity is Severity.ERROR and d.code.startswith(BLOCKING_FAMILIES)


def diagnostic(code: str, line: int, start: int, end: int, message: str,
               related: tuple[Related, ...] = ()) -> Diagnostic:
    """A one-line diagnostic with the code's default severity."""
    return Diagnostic(code, severity_of(code), Range(line, start, line, end), message,
                      related=related)
