"""Program-level structure rebuilt from parsed lines: kernels, labels and the directives that
apply to each kernel, with the quirks of wave-asm (reference §2.3)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Sequence

from ..cancellation import checkpoint
from ..isa import DEFAULT_REGISTER_COUNT
from .ast import Directive, Instruction, Label, LineSyntax


@dataclass(slots=True)
class Kernel:
    """A `.kernel NAME` ... `.end` block and everything that applies to it."""

    name: str
    line: int                      # line of `.kernel`
    directive: Directive           # the `.kernel` statement
    end_line: int | None = None    # line of `.end`; None when never closed
    end_directive: Directive | None = None
    closed_by: str | None = None   # why it is unclosed: "kernel" (a new .kernel) or "eof"
    instructions: list[tuple[int, Instruction]] = field(default_factory=list)
    labels: list[tuple[int, Label]] = field(default_factory=list)
    # `.registers` / `.local_memory` / `.workgroup_size` applied to this kernel (even after .end)
    settings: list[tuple[int, Directive]] = field(default_factory=list)
    # bumped when the document patches this kernel's instructions in place
    revision: int = field(default=0, compare=False)

    def setting(self, name: str) -> tuple[int, Directive] | None:
        """The last directive `name` applied to this kernel (later ones overwrite)."""
        for line, d in reversed(self.settings):
            if d.name.text == name:
                return line, d
        return None

    def _int_args(self, name: str) -> list[int] | None:
        found = self.setting(name)
        if not found:
            return None
        values = [a.value for a in found[1].args]
        if not values or not all(isinstance(v, int) for v in values):
            return None
        return values  # type: ignore[return-value]

    @property
    def register_count(self) -> int:
        """Declared `.registers` (the metadata default 32 when absent), as wave-asm stores it."""
        values = self._int_args("registers")
        return values[0] % (1 << 32) if values else DEFAULT_REGISTER_COUNT

    @property
    def declares_registers(self) -> bool:
        return self._int_args("registers") is not None

    @property
    def local_memory(self) -> int:
        values = self._int_args("local_memory")
        return values[0] % (1 << 32) if values else 0

    @property
    def workgroup_size(self) -> tuple[int, int, int]:
        values = self._int_args("workgroup_size")
        if values and len(values) == 3:
            return (values[0] % (1 << 32), values[1] % (1 << 32), values[2] % (1 << 32))
        return (0, 0, 0)

    @property
    def last_line(self) -> int:
        if self.end_line is not None:
            return self.end_line
        last = self.line
        for group in (self.instructions, self.labels):
            if group:
                last = max(last, group[-1][0])
        return last


@dataclass(slots=True)
class Program:
    """All kernels of a file plus what lies outside them."""

    kernels: list[Kernel] = field(default_factory=list)
    labels: dict[str, list[tuple[int, Label, Kernel | None]]] = field(default_factory=dict)
    stray_instructions: list[tuple[int, Instruction]] = field(default_factory=list)
    stray_ends: list[tuple[int, Directive]] = field(default_factory=list)
    # settings directives written outside any kernel block (before the first .kernel they are
    # ignored by wave-asm; after an .end they still modify the last kernel)
    outside_settings: list[tuple[int, Directive, Kernel | None]] = field(default_factory=list)
    other_directives: list[tuple[int, Directive]] = field(default_factory=list)  # unknown names

    def kernel_at(self, line: int) -> Kernel | None:
        """The kernel whose block contains `line` (from `.kernel` to `.end` inclusive)."""
        lo, hi = 0, len(self.kernels) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            k = self.kernels[mid]
            if line < k.line:
                hi = mid - 1
            elif line > k.last_line:
                lo = mid + 1
            else:
                return k
        return None

    def kernel_named(self, name: str) -> Kernel | None:
        for k in self.kernels:
            if k.name == name:
                return k
        return None


SETTINGS = frozenset({"registers", "local_memory", "workgroup_size"})


def is_structural(line: LineSyntax) -> bool:
    """Whether a line can change the program's shape: it has a label or directive, or a parse
    problem (which hides whatever the line would contain)."""
    return line.problem is not None or any(
        not isinstance(s, Instruction) for s in line.statements)


def patch_instructions(program: Program, first: int, old: Sequence[LineSyntax],
                       new: Sequence[LineSyntax]) -> bool:
    """Update `program` in place for lines first..first+len(old)-1 replaced by `new`, none of
    them structural, inside one kernel's body. Lines after the edit move by
    len(new) - len(old): kernels after it keep their objects and revisions, with every line
    number moved (`Kernel.line` tells where a kernel now starts). Returns False (program
    untouched) when a patch is not possible."""
    if any(map(is_structural, old)) or any(map(is_structural, new)):
        return False
    delta = len(new) - len(old)
    if not delta and all(o.statements == n.statements for o, n in zip(old, new)):
        return True  # only comments or blanks changed: the program is the same
    last = first + len(old) - 1
    kernel = program.kernel_at(first)
    if kernel is None:
        return _patch_outside(program, first, last, new, delta)
    if not kernel.line < first <= last <= kernel.last_line:
        return False
    if delta and kernel.end_line is None and kernel.closed_by == "kernel":
        return False  # the lines before the next .kernel: keep the simple path
    items = kernel.instructions
    lo = bisect_left(items, first, key=_line_of)
    hi = bisect_right(items, last, key=_line_of)
    patched = [(first + i, ins) for i, line in enumerate(new) for ins in line.instructions]
    items[lo:hi] = patched
    kernel.revision += 1
    if delta:
        tail = lo + len(patched)
        items[tail:] = [(n + delta, i) for n, i in items[tail:]]
        _move_after(program, kernel, last, delta)
    return True


def _patch_outside(program: Program, first: int, last: int, new: Sequence[LineSyntax],
                   delta: int) -> bool:
    """The edited lines lie between kernels (their instructions are stray): patch the stray
    list; kernels keep their objects."""
    before = [k for k in program.kernels if k.line < first]
    if before and (before[-1].end_line is None or before[-1].end_line >= first):
        return False       # after an unclosed kernel the lines may still be its own
    if program.kernel_at(last) is not None:
        return False
    items = program.stray_instructions
    lo = bisect_left(items, first, key=_line_of)
    hi = bisect_right(items, last, key=_line_of)
    patched = [(first + i, ins) for i, line in enumerate(new) for ins in line.instructions]
    items[lo:hi] = patched
    if delta:
        tail = lo + len(patched)
        items[tail:] = [(n + delta, i) for n, i in items[tail:]]
        _move_after(program, None, last, delta)
    return True


def _move_after(program: Program, edited: Kernel | None, last: int, delta: int) -> None:
    """Move every line number after `last` by `delta`, but the edited kernel's instructions
    (done by the caller)."""
    def moved(pairs: list) -> list:
        return [(n + delta, *rest) if n > last else (n, *rest) for n, *rest in pairs]

    for kernel in program.kernels:
        if kernel.settings and kernel.settings[-1][0] > last:
            kernel.settings[:] = moved(kernel.settings)   # also `.registers` after its .end
        if kernel is not edited and kernel.line < last:
            continue
        if kernel is not edited:
            kernel.line += delta
            kernel.instructions[:] = [(n + delta, i) for n, i in kernel.instructions]
        if kernel.end_line is not None:
            kernel.end_line += delta
        kernel.labels[:] = moved(kernel.labels)
    for name, defs in program.labels.items():
        if defs[-1][0] > last:
            defs[:] = moved(defs)
    groups = [program.stray_ends, program.outside_settings, program.other_directives]
    if edited is not None:        # (otherwise the caller moved the stray instructions)
        groups.append(program.stray_instructions)
    for group in groups:
        if group and group[-1][0] > last:
            group[:] = moved(group)


def _line_of(item: tuple[int, object]) -> int:
    return item[0]


def build_program(lines: Sequence[LineSyntax]) -> Program:
    """Walk the parsed lines once and assemble the program structure."""
    program = Program()
    current: Kernel | None = None   # open kernel
    last: Kernel | None = None      # most recently opened kernel (settings go here)
    labels = program.labels
    for number, line in enumerate(lines):
        if not number & 4095:
            checkpoint()
        for stmt in line.statements:
            if isinstance(stmt, Instruction):
                if current is not None:
                    current.instructions.append((number, stmt))
                else:
                    program.stray_instructions.append((number, stmt))
            elif isinstance(stmt, Label):
                labels.setdefault(stmt.name.text, []).append((number, stmt, current))
                if current is not None:
                    current.labels.append((number, stmt))
            else:
                name = stmt.name.text
                if name == "kernel":
                    if current is not None:
                        current.closed_by = "kernel"
                    arg = stmt.args[0].text if stmt.args else ""
                    current = last = Kernel(arg, number, stmt)
                    program.kernels.append(current)
                elif name == "end":
                    if current is None:
                        program.stray_ends.append((number, stmt))
                    else:
                        current.end_line = number
                        current.end_directive = stmt
                        current = None
                elif name in SETTINGS:
                    if last is not None:
                        last.settings.append((number, stmt))
                    if current is None:
                        program.outside_settings.append((number, stmt, last))
                else:
                    program.other_directives.append((number, stmt))
    if current is not None:
        current.closed_by = "eof"
    return program
