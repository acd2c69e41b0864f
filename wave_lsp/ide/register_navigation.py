"""Registers as symbols of their kernel: the writes that reach a read (go to definition), every
read and write (references, highlights), and renaming one register to another.

A register's scope is its kernel. Its accesses come from the kernel's reaching definitions
(`analysis.reaching`, kept by the document's `AnalysisState`): an operand naming a pair or quad
(`dadd r2, ...` covers r2:r3) is an access of each register it covers. The kernel's stated
arguments (`; wave-lsp args: r0`, a launch line's `--set-reg 0:64`) count as writes at the
kernel's start: a read the start value reaches goes to them.

Renaming rN to rM rewrites every operand that names rN and the kernel's stated arguments. An
operand naming a pair or quad that starts at rN moves the whole group (rN:rN+1 becomes
rM:rM+1), so the rename is refused when another operand uses a later register of that group
on its own (it would be left behind), when rN is only the second (or later) register of a
group (rename the group's first register), when any register it would take is already used
in the kernel, or when it lies beyond the kernel's `.registers`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..analysis.reaching import ENTRY, Access, RegisterFlow
from ..isa import MAX_REGISTER
from ..syntax.kernel_arguments import StatedArgument, stated_arguments
from ..syntax.tool_comments import kernel_comment_lines
from .state import DocumentState

REGISTER_NAME = re.compile(r"r(\d+)")


class Place(NamedTuple):
    """A place a register is named: (line, start, end), whether it is written there."""

    line: int
    start: int
    end: int
    write: bool


class RegisterSymbol(NamedTuple):
    """The register under the cursor, in its kernel."""

    register: int
    line: int
    start: int
    end: int
    kernel: object               # syntax.program.Kernel
    access: int | None           # its access number, None on a stated argument


def _flow(state: DocumentState, kernel) -> RegisterFlow:
    return state.analysis.register_flow(kernel)


def _stated(state: DocumentState, kernel) -> tuple[StatedArgument, ...]:
    return stated_arguments(state.lines, kernel)


def register_at(state: DocumentState, line: int, col: int) -> RegisterSymbol | None:
    """The register operand (or stated argument) at a position."""
    kernel = state.program.kernel_at(line)
    if kernel is None:   # a stated argument above its `.kernel`
        kernel = next((k for k in state.program.kernels
                       if line in kernel_comment_lines(state.lines, k)), None)
        if kernel is None:
            return None
    flow = _flow(state, kernel)
    n = flow.at(line, col)
    if n is not None:
        a = flow.accesses[n]
        return RegisterSymbol(a.registers[0], a.line, a.start, a.end, kernel, n)
    for arg in _stated(state, kernel):
        if arg.line == line and arg.start <= col <= arg.end:
            return RegisterSymbol(arg.register, line, arg.start, arg.end, kernel, None)
    return None


def _place(a: Access) -> Place:
    return Place(a.line, a.start, a.end, a.write)


def register_definitions(state: DocumentState, symbol: RegisterSymbol) -> list[Place]:
    """Where the value read at the symbol may come from: the writes that reach it (every
    register of a pair), and the stated arguments when the kernel's start value reaches it. On
    a write or a stated argument: itself."""
    flow = _flow(state, symbol.kernel)
    if symbol.access is None:
        return [Place(symbol.line, symbol.start, symbol.end, True)]
    access = flow.accesses[symbol.access]
    if access.write:
        return [_place(access)]
    reaching = flow.reaching.get(symbol.access, {})
    found = sorted({d for defs in reaching.values() for d in defs})
    out = [_place(flow.accesses[d]) for d in found if d != ENTRY]
    if ENTRY in found:
        covered = set(access.registers)
        out += [Place(a.line, a.start, a.end, True) for a in _stated(state, symbol.kernel)
                if a.register in covered]
    return sorted(set(out))


def register_references(state: DocumentState, symbol: RegisterSymbol) -> list[Place]:
    """Every read and write of the register in its kernel (operands of a pair or quad that
    cover it included), and its stated arguments (as writes), in order."""
    flow = _flow(state, symbol.kernel)
    out = [_place(flow.accesses[n]) for n in flow.of_register(symbol.register)]
    out += [Place(a.line, a.start, a.end, True) for a in _stated(state, symbol.kernel)
            if a.register == symbol.register]
    return sorted(set(out))


def _target(new: str) -> int | None:
    m = REGISTER_NAME.fullmatch(new)
    return int(m.group(1)) if m and (m.group(1) == "0" or m.group(1)[0] != "0") else None


def register_rename(state: DocumentState, symbol: RegisterSymbol, new: str
                    ) -> tuple[str | None, list[tuple[int, int, int, str]]]:
    """(why `new` cannot replace the register, or None; the edits: (line, start, end, text))."""
    old = symbol.register
    target = _target(new)
    if target is None or target > MAX_REGISTER:
        return f"'{new}' is not a register (r0..r{MAX_REGISTER})", []
    kernel = symbol.kernel
    flow = _flow(state, kernel)
    touching = [flow.accesses[n] for n in flow.of_register(old)]
    width = max((len(a.registers) for a in touching), default=1)
    for a in touching:
        if a.registers[0] != old:
            return (f"r{old} is part of the {'pair' if len(a.registers) == 2 else 'quad'} "
                    f"r{a.registers[0]}:r{a.registers[-1]} (line {a.line + 1}); rename "
                    f"r{a.registers[0]} instead"), []
    group = range(old, old + width)
    for a in flow.accesses:
        if a.registers[0] != old and any(r in group for r in a.registers):
            return (f"r{old} starts a group of {width} registers, and r{a.registers[0]} on line "
                    f"{a.line + 1} uses one of them on its own"), []
    if target == old:
        return None, []
    taken = range(target, target + width)
    used = {r for a in flow.accesses for r in a.registers} - set(group)
    used |= {a.register for a in _stated(state, kernel)} - set(group)
    clash = next((r for r in taken if r in used), None)
    if clash is not None:
        return f"r{clash} is already used in kernel '{kernel.name}'", []
    if taken[-1] >= kernel.register_count:
        return (f"r{taken[-1]} is beyond the kernel's {kernel.register_count} registers "
                f"(.registers)"), []
    edits = [(a.line, a.start, a.end, f"r{target}") for a in touching]
    for arg in _stated(state, kernel):
        if arg.register in group:
            text = state.lines[arg.line][arg.start:arg.end]
            number = target + arg.register - old
            edits.append((arg.line, arg.start, arg.end,
                          f"r{number}" if text[:1] in "rR" else str(number)))
    return None, sorted(set(edits))
