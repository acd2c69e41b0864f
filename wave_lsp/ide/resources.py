"""A kernel's resources: registers declared and used, local memory, workgroup shape, waves per
workgroup, code size, and its occupancy on each architecture of the configured targets from that
vendor's documented limits (`ide/occupancy.py`, `isa/occupancy.py`), with the vendor compiler's
register count where it reported one (`with_vendor`). The specification's own equation (§2.4:
max_resident_waves = floor(F / (R * W * 4)) with F its 16 KiB minimum register file) is kept in
one row labelled as that minimum: it says nothing about a real GPU.

Protocol-free: the code lens, hover and commands render it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..analysis.kernel_checks import facts
from ..analysis.local_memory import local_need
from ..isa.launch_defaults import DEFAULT_LOCAL_MEMORY
from ..isa import REGISTER_FILE_SIZE
from ..isa.backends import BACKEND_BY_NAME, TARGET_NAMES
from ..isa.occupancy import vendor_register_count
from ..syntax.program import Kernel
from .occupancy import ArchRow, arch_rows, summary_text

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
    # registers per thread the vendors' compilers report: (arch, count, compiler)
    vendor_registers: tuple[tuple[str, int, str], ...] = ()

    def with_vendor(self, figures) -> "KernelResources":
        """These resources with the register counts of the vendors' compilers (`KernelFigures`
        of `ide.vendor_usage`; a rejected kernel's figures are not used)."""
        found = []
        for f in figures:
            count = None if f.problem else vendor_register_count(f.arch, dict(f.figures))
            if count is not None:
                found.append((f.arch, count, f.compiler))
        return replace(self, vendor_registers=tuple(found))

    @property
    def occupancy_local(self) -> int:
        """Local memory per workgroup on a GPU: `.local_memory`, or what `wave-lsp emit` lends a
        kernel that uses local memory without declaring it."""
        if not self.local_memory_declared and self.uses_local_memory:
            return DEFAULT_LOCAL_MEMORY
        return self.local_memory

    def arch_rows(self) -> list[ArchRow]:
        """Occupancy on each architecture of each configured target."""
        vendor = {arch: (count, compiler) for arch, count, compiler in self.vendor_registers}
        return [row for t in self.targets for row in arch_rows(
            t, self.threads, self.registers_declared, self.occupancy_local, vendor)]

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

    @property
    def threads(self) -> int:
        x, y, z = self.workgroup_size
        return x * y * z

    def waves_per_workgroup(self, width: int) -> int | None:
        """ceil(threads / W); None when the launcher chooses the workgroup size (0, 0, 0)."""
        return -(-self.threads // width) if self.threads else None

    def resident_waves(self, width: int) -> int:
        """The occupancy equation of spec §2.4 with F = REGISTER_FILE_SIZE, the specification's
        minimum register file (no real GPU's figure: `arch_rows` has those)."""
        per_wave = self.registers_declared * width * 4
        return REGISTER_FILE_SIZE // per_wave if per_wave else 0

    def summary(self) -> str:
        """One line for a code lens."""
        x, y, z = self.workgroup_size
        parts = [f"{self.registers_declared} regs declared, {self.registers_used} used",
                 self.local_text]
        parts.append(f"workgroup {x}x{y}x{z}" if self.threads else "workgroup: launcher's choice")
        for w in WAVE_WIDTHS:
            waves = self.waves_per_workgroup(w)
            if waves is not None:
                parts.append(f"W{w}: {waves} waves/wg")
        rows = self.arch_rows()
        if rows:
            parts.append(summary_text(rows))
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
            if waves is not None:
                rows.append((f"wave width {w}", f"{waves} waves per workgroup"))
        by_arch: dict[tuple[str, str], list[str]] = {}
        for row in self.arch_rows():
            key = (row.arch, f"{row.target}: {row.occupancy.limits.hardware}")
            by_arch.setdefault(key, []).append(row.text())
        for (arch, what), texts in by_arch.items():
            rows.append((f"occupancy {arch} ({what})", "; ".join(texts)))
        rows.append(("spec §2.4 minimum", "; ".join(
            f"W{w}: {self.resident_waves(w)} waves = floor({REGISTER_FILE_SIZE} / "
            f"({self.registers_declared} x {w} x 4))" for w in WAVE_WIDTHS)
            + " (the specification's 16 KiB minimum register file, not a GPU's)"))
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
            "targets": {t: [row.as_dict() for row in self.arch_rows() if row.target == t]
                        for t in self.targets},
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
