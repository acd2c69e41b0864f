"""A kernel's resources: registers declared and used, local memory, workgroup shape, waves per
workgroup, code size and occupancy (spec §2.4: max_resident_waves = floor(F / (R * W * 4))),
per configured backend at each wave width it runs with (`isa/backends.py`).

Protocol-free: the code lens, hover and commands render it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis.kernel_checks import facts
from ..analysis.local_memory import local_need
from ..isa.backends import DEFAULT_LOCAL_MEMORY
from ..isa import REGISTER_FILE_SIZE
from ..isa.backends import BACKEND_BY_NAME, TARGET_NAMES
from ..syntax.program import Kernel

WAVE_WIDTHS = (32, 64)


@dataclass(frozen=True)
class KernelResources:
    name: str
    registers_declared: int
    declares_registers: bool
    registers_used: int          # highest register touched + 1 (pairs and quads included)
    distinct_registers: int
    local_memory: int
    workgroup_size: tuple[int, int, int]
    code_size: int | None
    targets: tuple[str, ...] = TARGET_NAMES
    local_memory_declared: bool = True
    uses_local_memory: bool = False
    local_memory_needed: int | None = None   # bytes the local accesses reach, when bounded

    @property
    def local_text(self) -> str:
        """`256 B local`, or what an undeclared use needs (U510): never a silent `0 B`."""
        if self.local_memory_declared or not self.uses_local_memory:
            return f"{self.local_memory} B local"
        needed = f"needs {self.local_memory_needed} B" if self.local_memory_needed is not None \
            else "size unknown"
        return f"local memory undeclared ({needed})"

    @property
    def local_row(self) -> str:
        """The hover's local memory row."""
        if self.local_memory_declared or not self.uses_local_memory:
            return f"{self.local_memory} bytes"
        reach = (f"its accesses reach {self.local_memory_needed} bytes"
                 if self.local_memory_needed is not None
                 else "how much its accesses reach cannot be told from the code")
        return (f"used but not declared (U510): {reach}; the emulator and `wave-lsp emit` "
                f"lend {DEFAULT_LOCAL_MEMORY} bytes, upstream's backends none")

    @property
    def widths(self) -> tuple[int, ...]:
        """32 and 64, and every width of a configured target, ascending."""
        return tuple(sorted(set(WAVE_WIDTHS).union(
            *(BACKEND_BY_NAME[t].wave_widths for t in self.targets))))

    def target_occupancy(self) -> list[tuple[str, tuple[int, ...]]]:
        """(target, its widths) for each configured backend."""
        return [(t, BACKEND_BY_NAME[t].wave_widths) for t in self.targets]

    @property
    def threads(self) -> int:
        x, y, z = self.workgroup_size
        return x * y * z

    def waves_per_workgroup(self, width: int) -> int | None:
        """ceil(threads / W); None when the launcher chooses the workgroup size (0, 0, 0)."""
        return -(-self.threads // width) if self.threads else None

    def resident_waves(self, width: int) -> int:
        """The occupancy equation of spec §2.4 with F = REGISTER_FILE_SIZE."""
        per_wave = self.registers_declared * width * 4
        return REGISTER_FILE_SIZE // per_wave if per_wave else 0

    def resident_workgroups(self, width: int) -> int | None:
        waves = self.waves_per_workgroup(width)
        return self.resident_waves(width) // waves if waves else None

    def summary(self) -> str:
        """One line for a code lens."""
        x, y, z = self.workgroup_size
        parts = [f"{self.registers_declared} regs declared, {self.registers_used} used",
                 self.local_text]
        parts.append(f"workgroup {x}x{y}x{z}" if self.threads else "workgroup: launcher's choice")
        for w in WAVE_WIDTHS:
            waves = self.waves_per_workgroup(w)
            wg = f"{waves} waves/wg, " if waves is not None else ""
            parts.append(f"W{w}: {wg}occupancy {self.resident_waves(w)} waves")
        if self.targets:
            parts.append("occupancy " + " · ".join(
                f"{t} " + "/".join(f"{self.resident_waves(w)} (W{w})" for w in widths)
                for t, widths in self.target_occupancy()))
        return " | ".join(parts)

    def short_summary(self) -> str:
        """The code lens title, a few words: `16 regs · 1 KiB local · 8 waves/wg (W32)` (the
        waves per workgroup at wave width 32, when the kernel fixes its workgroup)."""
        size = self.local_memory
        local = f"{size // 1024} KiB" if size and size % 1024 == 0 else f"{size} B"
        parts = [f"{self.registers_declared} regs", f"{local} local"]
        width = WAVE_WIDTHS[0]
        waves = self.waves_per_workgroup(width)
        if waves is not None:
            parts.append(f"{waves} wave{'s' if waves != 1 else ''}/wg (W{width})")
        return " · ".join(parts)

    def text(self) -> str:
        """The table as plain lines (a code lens tooltip)."""
        return f"kernel {self.name}\n" + "\n".join(f"{k}: {v}" for k, v in self.rows())

    def markdown(self) -> str:
        """A table for hovers and messages."""
        table = "\n".join(f"| {k} | {v} |" for k, v in self.rows())
        return f"**kernel `{self.name}`**\n\n| resource | value |\n|---|---|\n{table}"

    def rows(self) -> list[tuple[str, str]]:
        """(resource, value) rows of the full table."""
        x, y, z = self.workgroup_size
        rows = [
            ("registers declared", f"{self.registers_declared}"
             + ("" if self.declares_registers else " (default)")),
            ("registers used", f"r0..r{self.registers_used - 1} ({self.distinct_registers} "
             "distinct)" if self.registers_used else "none"),
            ("local memory", self.local_row),
            ("workgroup size", f"{x} x {y} x {z} = {self.threads} threads" if self.threads
             else "0, 0, 0 (the launcher chooses)"),
        ]
        if self.code_size is not None:
            rows.append(("code size", f"{self.code_size} bytes"))
        for w in WAVE_WIDTHS:
            waves = self.waves_per_workgroup(w)
            resident = self.resident_waves(w)
            groups = self.resident_workgroups(w)
            text = f"{resident} resident waves = floor({REGISTER_FILE_SIZE} / " \
                   f"({self.registers_declared} x {w} x 4))"
            if waves is not None:
                text += f"; {waves} waves per workgroup, {groups} resident workgroups"
            rows.append((f"wave width {w}", text))
        for t, widths in self.target_occupancy():
            rows.append((f"{t} ({BACKEND_BY_NAME[t].hardware})", "; ".join(
                f"W{w}: {self.resident_waves(w)} resident waves"
                + (f", {self.waves_per_workgroup(w)} per workgroup"
                   if self.waves_per_workgroup(w) is not None else "") for w in widths)))
        return rows

    def as_dict(self) -> dict:
        return {
            "kernel": self.name, "registersDeclared": self.registers_declared,
            "registersUsed": self.registers_used, "localMemory": self.local_memory,
            "localMemoryDeclared": self.local_memory_declared,
            "usesLocalMemory": self.uses_local_memory,
            "localMemoryNeeded": self.local_memory_needed,
            "workgroupSize": list(self.workgroup_size), "codeSize": self.code_size,
            "wavesPerWorkgroup": {str(w): self.waves_per_workgroup(w) for w in WAVE_WIDTHS},
            "residentWaves": {str(w): self.resident_waves(w) for w in WAVE_WIDTHS},
            "targets": {t: {str(w): {"wavesPerWorkgroup": self.waves_per_workgroup(w),
                                     "residentWaves": self.resident_waves(w)} for w in widths}
                        for t, widths in self.target_occupancy()},
        }


def kernel_resources(kernel: Kernel, code_size: int | None = None,
                     targets: tuple[str, ...] = TARGET_NAMES) -> KernelResources:
    """Measure one kernel of a document."""
    highest = -1
    distinct: set[int] = set()
    for _line, ins in kernel.instructions:
        for last, operand in facts(ins).registers:
            highest = max(highest, last)
            distinct.update(range(operand.value, last + 1))
    need = local_need(kernel)
    return KernelResources(
        name=kernel.name, registers_declared=kernel.register_count,
        declares_registers=kernel.declares_registers, registers_used=highest + 1,
        distinct_registers=len(distinct), local_memory=kernel.local_memory,
        workgroup_size=kernel.workgroup_size, code_size=code_size, targets=targets,
        local_memory_declared=kernel.setting("local_memory") is not None,
        uses_local_memory=need is not None,
        local_memory_needed=need.bytes if need is not None else None)


def resources_of(state, name: str,
                 targets: tuple[str, ...] = TARGET_NAMES) -> KernelResources | None:
    """The resources of kernel `name` of a document state (None when there is no such kernel)."""
    from .encoding import kernel_layout

    kernel = state.document.program.kernel_named(name)
    if kernel is None:
        return None
    kl = kernel_layout(state, name)
    return kernel_resources(kernel, kl.size if kl else None, targets)
