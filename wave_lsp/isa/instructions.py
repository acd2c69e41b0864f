"""`InstructionSpec`: one record per mnemonic, built from the rows of `table.py`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from .classes import SPEC_SECTION, Capability, InstructionClass
from .operands import LAYOUTS, Field, Layout, OperandKind, OperandSpec
from .table import REGISTER_WIDTHS, ROWS, UPSTREAM_LABEL_PASS_8, UPSTREAM_MODIFIER


@dataclass(frozen=True, slots=True)
class MemoryAccess:
    """What a load, store or atomic touches: `space` is "local" or "device", `kind` is "load",
    "store" or "atomic", `width` is in bytes (u8 ... u128; atomics are 32-bit)."""

    space: str
    kind: str
    width: int

    @property
    def words(self) -> int:
        """32-bit registers moved (a u64 uses a pair, a u128 four)."""
        return max(1, self.width // 4)


@dataclass(frozen=True)
class InstructionSpec:
    """Everything known about one mnemonic."""

    mnemonic: str
    opcode: int
    modifier: int
    layout: Layout
    operands: tuple[OperandSpec, ...]
    iclass: InstructionClass
    summary: str
    semantics: str
    spec_section: str
    capability: Capability | None
    upstream_modifier: int      # what wave-asm emits (differs only for the CAS pair)
    upstream_label_size: int    # size wave-asm's label pass assumes (reference §3.4)

    def register_width(self, operand: OperandSpec) -> int:
        """How many consecutive registers a register operand covers (2 for f64/u64 pairs)."""
        return REGISTER_WIDTHS.get(self.mnemonic, {}).get(operand.name, 1)

    @cached_property
    def memory(self) -> MemoryAccess | None:
        """The memory access of loads, stores and atomics; None for everything else."""
        m = self.mnemonic
        if self.iclass is InstructionClass.ATOMIC:
            return MemoryAccess("local" if m.startswith("local_") else "device", "atomic", 4)
        if self.iclass in (InstructionClass.LOCAL_MEMORY, InstructionClass.DEVICE_MEMORY):
            space = "local" if self.iclass is InstructionClass.LOCAL_MEMORY else "device"
            kind = "load" if "_load_" in m else "store"
            return MemoryAccess(space, kind, int(m.rsplit("_u", 1)[1]) // 8)
        return None

    @property
    def group(self) -> str | None:
        """Name of the opcode shared by several mnemonics (e.g. "Control", "WaveOp"), if any."""
        return OPCODE_NAMES.get(self.opcode)

    @property
    def size(self) -> int:
        """Bytes emitted: 4, or 8 when the instruction has a word1."""
        return self.layout.size

    @property
    def has_word1(self) -> bool:
        return self.layout.size == 8

    @property
    def min_operands(self) -> int:
        return self.layout.min_operands

    @property
    def max_operands(self) -> int:
        return self.layout.max_operands

    @cached_property
    def syntax(self) -> str:
        """The operand signature, e.g. `atomic_add [rd,] raddr, rvalue, scope`."""
        parts = []
        for i, op in enumerate(self.operands):
            sep = ", " if i else " "
            parts.append(f"{sep}[{op.name},]" if op.optional else f"{sep}{op.name}")
        text = self.mnemonic + "".join(parts)
        return text.replace(",] ", ",]").replace("[rd,], ", "[rd,] ")

    @cached_property
    def example(self) -> str:
        """An instruction using every operand (reference §2.9 conventions)."""
        regs = iter(range(1, 10))
        values = []
        for op in self.operands:
            if op.kind is OperandKind.REGISTER:
                values.append(f"r{next(regs)}")
            elif op.kind is OperandKind.PREDICATE:
                values.append(f"p{1 if op.field is Field.RD else 2}")
                next(regs)
            elif op.kind is OperandKind.SPECIAL:
                values.append("sr_lane_id")
            elif op.kind is OperandKind.IMMEDIATE:
                values.append("0x12345678")
            elif op.kind is OperandKind.LABEL:
                values.append("target")
            else:
                values.append(".device")
        return f"{self.mnemonic} {', '.join(values)}".rstrip()

    @property
    def description(self) -> str:
        """Plain-text documentation: summary, semantics, encoding facts and requirements."""
        lines = [f"{self.summary}.", "", f"Semantics: {self.semantics}", "",
                 f"Encoding: opcode 0x{self.opcode:02X}, modifier {self.modifier}, "
                 f"{self.size} bytes."]
        if self.capability:
            lines.append(f"Requires {self.capability.value}.")
        lines.append(f"Spec: {self.spec_section}.")
        return "\n".join(lines)


def _build(row: tuple) -> InstructionSpec:
    mnemonic, opcode, modifier, layout_name, iclass, names, summary, semantics = row
    layout = LAYOUTS[layout_name]
    operands = layout.operands
    if names:
        new_names = [n.strip() for n in names.split(",")]
        operands = tuple(replace(op, name=n) for op, n in zip(operands, new_names))
    capability = None
    if iclass is InstructionClass.F64 or mnemonic in ("cvt_f32_f64", "cvt_f64_f32"):
        capability = Capability.F64
    elif iclass is InstructionClass.MMA:
        capability = Capability.MMA
    return InstructionSpec(
        mnemonic=mnemonic, opcode=opcode, modifier=modifier, layout=layout, operands=operands,
        iclass=iclass, summary=summary, semantics=semantics, spec_section=SPEC_SECTION[iclass],
        capability=capability, upstream_modifier=UPSTREAM_MODIFIER.get(mnemonic, modifier),
        upstream_label_size=8 if mnemonic in UPSTREAM_LABEL_PASS_8 else 4,
    )


INSTRUCTIONS: dict[str, InstructionSpec] = {row[0]: _build(row) for row in ROWS}

# (opcode, modifier) -> spec, for decoders and the emulator's dispatch.
BY_ENCODING: dict[tuple[int, int], InstructionSpec] = {
    (s.opcode, s.modifier): s for s in INSTRUCTIONS.values()
}

OPCODE_NAMES: dict[int, str] = {
    0x1B: "FUnaryOps", 0x1C: "F16", 0x1D: "F16 packed", 0x1E: "F64", 0x1F: "F64 div/sqrt",
    0x27: "BitOps", 0x28: "ICmp", 0x29: "UCmp", 0x2A: "FCmp", 0x2C: "Cvt", 0x2D: "BF16",
    0x2E: "BF16 packed", 0x30: "LocalLoad", 0x31: "LocalStore", 0x38: "DeviceLoad",
    0x39: "DeviceStore", 0x3C: "LocalAtomic", 0x3D: "DeviceAtomic", 0x3E: "WaveOp",
    0x3F: "Control", 0x40: "Mma", 0x41: "Misc",
}


def lookup(mnemonic: str) -> InstructionSpec | None:
    """The spec of an exact (lower-case) mnemonic, or None."""
    return INSTRUCTIONS.get(mnemonic)
