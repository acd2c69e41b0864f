"""Reads of registers that nothing writes first, found from the source before any run (the
run's R003 reports what only a run sees: the lanes and values of a real launch).

Registers start at zero in the emulator (spec), so such a read is legal there, but on a GPU the
register is a kernel argument (`wave-lsp emit` makes every register read before written a
parameter). From the reaching definitions (`reaching.py`), at the first read of each register
(each register of a pair or quad) that the kernel's start value may reach:

- U511 (warning): no write reaches it on any path, and the register is not an argument: the
  kernel writes it elsewhere (a value used before it is computed), or the kernel states its
  arguments (`; wave-lsp args:`, or launch lines that `--set-reg`) and this is not one of them;
- U512 (hint): writes reach it on some paths but not on others (a path through an `if` that
  does not write it, a loop's first iteration);
- U513 (information, off by default): the kernel never writes the register and states no
  arguments: by the upstream convention it is an argument (`--set-reg`), as in the shared
  examples (relu, gemm_blocked read r0..r5), so it is not a warning; turn the code on to have
  every undeclared argument named.

A stated argument is never reported.
"""

from __future__ import annotations

from dataclasses import replace

from .codes import diagnostic as _diag
from .diagnostic import Diagnostic, Fix, Range, Related, TextEdit
from .reaching import ENTRY, RegisterFlow

MAX_RELATED = 3


def _name(registers: tuple[int, ...], uninitialised: list[int]) -> str:
    """How a message names the registers of one operand that are read uninitialised."""
    whole = f"r{registers[0]}" if len(registers) == 1 else \
        f"r{registers[0]}:r{registers[-1]}"
    if len(registers) == 1 or len(uninitialised) == len(registers):
        return whole
    kind = "pair" if len(registers) == 2 else "quad"
    listed = ", ".join(f"r{r}" for r in uninitialised)
    return f"{listed} (of the {kind} {whole})"


def _declare_fix(kernel, lines: list[str], stated, registers: list[int]) -> Fix:
    words = " ".join(f"r{r}" for r in registers)
    declared = [a for a in stated if "args:" in lines[a.line]]
    if declared:
        last = declared[-1]
        end = len(lines[last.line].rstrip())
        edit = TextEdit(Range.on_line(last.line, end, end), f" {words}")
    else:
        at = kernel.line + 1
        edit = TextEdit(Range(at, 0, at, 0), f"    ; wave-lsp args: {words}\n")
    return Fix(f"State {words} as an argument of kernel '{kernel.name}'", (edit,))


def uninitialised_reads(kernel, flow: RegisterFlow, stated, lines: list[str]
                        ) -> list[Diagnostic]:
    """U511-U513 of one kernel. `stated`: the kernel's `syntax.kernel_arguments.stated_arguments`."""
    arguments = {a.register for a in stated}
    written = {r for a in flow.accesses if a.write for r in a.registers}
    reported: set[int] = set()
    out = []
    for n in sorted(flow.reaching):
        access, reaching = flow.accesses[n], flow.reaching[n]
        definite, maybe = [], []
        for r in access.registers:
            defs = reaching.get(r)
            if r in reported or r in arguments or defs is None or ENTRY not in defs:
                continue
            reported.add(r)
            (definite if defs == {ENTRY} else maybe).append(r)
        if definite:
            local = [r for r in definite if r in written or stated]
            implicit = [r for r in definite if r not in local]
            for group, code in ((local, "U511"), (implicit, "U513")):
                if group:
                    out.append(_definite(kernel, access, group, code, stated, lines))
        if maybe:
            name = _name(access.registers, maybe)
            writes = sorted({d for r in maybe for d in reaching[r] if d != ENTRY})
            related = tuple(Related(Range.on_line(flow.accesses[d].line, flow.accesses[d].start,
                                                  flow.accesses[d].end),
                                    "a write that reaches it on another path")
                            for d in writes[:MAX_RELATED])
            out.append(_diag("U512", access.line, access.start, access.end,
                             f"{name} may be read before it is written: on some path no write "
                             f"reaches this read, and there it reads 0 in the emulator (registers "
                             f"start at zero) but an unset value on a GPU", related))
    return out


def _definite(kernel, access, group: list[int], code: str, stated, lines) -> Diagnostic:
    name = _name(access.registers, group)
    them = "them" if len(group) > 1 else "it"
    if code == "U513":
        message = (f"{name} is read before any write: an argument of kernel '{kernel.name}' "
                   f"(it reads 0 unless the launch sets {them} with --set-reg; on a GPU a "
                   f"kernel parameter); state {them} with `; wave-lsp args:`")
    else:
        why = ("kernel '{k}' states its arguments and this is not one of them" if stated
               else "the kernel writes {t} only later").format(k=kernel.name, t=them)
        message = (f"{name} is read before any write reaches this read ({why}): it reads 0 here "
                   f"(registers start at zero in the emulator) and is a kernel argument on a "
                   f"GPU; write {them} first, or state {them} with `; wave-lsp args:`")
    diag = _diag(code, access.line, access.start, access.end, message)
    return replace(diag, fixes=(_declare_fix(kernel, lines, stated, group),))
