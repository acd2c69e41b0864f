"""`InstructionSpec`: one record per mnemonic, built from the rows of `table.py`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from .classes import SPEC_SECTION, Capability, InstructionClass
from .operands import LAYOUTS, Field, Layout, OperandKind, OperandSpec
from .records import MemoryAccess, Row
from .table import REGISTER_WIDTHS, ROWS, UPSTREAM_LABEL_PASS_8, UPSTREAM_MODIFIER


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
    memory: MemoryAccess | None = None          # loads, stores and atomics
    conversion: tuple[str, str] | None = None   # (destination, source) type of a cvt_*
    wave_role: str | None = None                # a wave operation's role (records.WAVE_ROLES)

    def register_width(self, operand: OperandSpec) -> int:
        """How many consecutive registers a register operand covers (2 for f64/u64 pairs)."""
        return REGISTER_WIDTHS.get(self.mnemonic, {}).get(operand.name, 1)

    def written_operands(self, count: int) -> tuple[OperandSpec, ...] | None:
        """The operand specs of an instruction written with `count` operands, in order (a
        leading optional operand left out when one is missing); None when `count` fits no
        form."""
        specs = self.operands
        if specs and specs[0].optional and count == len(specs) - 1:
            specs = specs[1:]
        return specs if len(specs) == count else None

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


def _build(row: Row) -> InstructionSpec:
    layout = LAYOUTS[row.layout]
    operands = layout.operands
    if row.operand_names:
        new_names = [n.strip() for n in row.operand_names.split(",")]
        operands = tuple(replace(op, name=n) for op, n in zip(operands, new_names))
    capability = None
    if row.iclass is InstructionClass.F64 or "f64" in (row.converts or ()):
        capability = Capability.F64
    elif row.iclass is InstructionClass.MMA:
        capability = Capability.MMA
    return InstructionSpec(
        mnemonic=row.mnemonic, opcode=row.opcode, modifier=row.modifier, layout=layout,
        operands=operands, iclass=row.iclass, summary=row.summary, semantics=row.semantics,
        spec_section=SPEC_SECTION[row.iclass], capability=capability,
        upstream_modifier=UPSTREAM_MODIFIER.get(row.mnemonic, row.modifier),
        upstream_label_size=8 if row.mnemonic in UPSTREAM_LABEL_PASS_8 else 4,
        memory=row.access, conversion=row.converts, wave_role=row.wave,
    )


INSTRUCTIONS: dict[str, InstructionSpec] = {row.mnemonic: _build(row) for row in ROWS}

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
