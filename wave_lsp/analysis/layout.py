"""Code layout of a document: where every instruction and label lands, from the ISA sizes alone.

One pass over the parsed lines gives each kernel's code offset, each instruction's byte offset
within its kernel, and the value of every label under both conventions (DESIGN.md §1):
the true byte offset (our default: `call` carries it relative to the calling kernel's start), and
upstream's label pass (reference §3.4: the 23-mnemonic size table, counted from the start of the
code section). No instruction is encoded here, so the pass is cheap and never fails.

The one layout: the assembler places instructions with it, the encoding views and hovers show
its offsets, and the analysis (`kernel_checks`) sizes instructions with `sizes()` for the label
offsets that `call` targets check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cancellation import checkpoint
from ..isa import INSTRUCTIONS, InstructionSpec
from ..isa.encoding import WORD1_VALUE
from ..syntax.ast import Directive, Instruction, Label, OperandSyntax
from ..syntax.document import Document
from ..syntax.program import Kernel

WORD_MASK = WORD1_VALUE.mask
UNKNOWN_UPSTREAM_SIZE = 4   # wave-asm's label pass counts an unknown mnemonic as 4 bytes


def spec_for(instr: Instruction) -> InstructionSpec | None:
    """The spec an instruction encodes as (`mov rd, sr_*` is `mov_sr`), or None if unknown."""
    spec = INSTRUCTIONS.get(instr.mnemonic.text)
    if spec is not None and spec.mnemonic == "mov" and len(instr.operands) == 2 \
            and instr.operands[1].syntax is OperandSyntax.SPECIAL:
        return INSTRUCTIONS["mov_sr"]
    return spec


def sizes(instr: Instruction) -> tuple[InstructionSpec | None, int, int]:
    """(spec it encodes as, bytes emitted, bytes wave-asm's label pass counts); an unknown
    mnemonic emits nothing (the assembler rejects it)."""
    written = INSTRUCTIONS.get(instr.mnemonic.text)
    if written is None:
        return None, 0, UNKNOWN_UPSTREAM_SIZE
    spec = written if written.mnemonic != "mov" else spec_for(instr)
    return spec, spec.size, written.upstream_label_size


@dataclass(slots=True)
class Placed:
    """An instruction and where it lands: `offset` from its kernel's start (or from the start of
    the code section for an instruction outside any kernel, which wave-asm rejects)."""

    line: int
    instruction: Instruction
    spec: InstructionSpec | None
    offset: int
    kernel: "KernelLayout | None"

    @property
    def size(self) -> int:
        return self.spec.size if self.spec else 0


@dataclass(slots=True)
class KernelLayout:
    """A kernel's place in the code section and its instructions in order."""

    kernel: Kernel
    index: int
    code_offset: int                 # from the start of the code section
    size: int = 0
    placed: list[Placed] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.kernel.name


@dataclass(slots=True)
class LabelPlace:
    """Where a label was defined: the true code offset and upstream's label-pass offset."""

    name: str
    line: int
    label: Label
    offset: int            # from the start of the code section
    upstream_offset: int   # what wave-asm's label pass computes (also code-section relative)
    kernel: KernelLayout | None


@dataclass(slots=True)
class CodeLayout:
    """Kernels, labels and instructions of a document, by position."""

    kernels: list[KernelLayout] = field(default_factory=list)
    labels: dict[str, LabelPlace] = field(default_factory=dict)   # first definition wins
    duplicate_labels: list[LabelPlace] = field(default_factory=list)
    stray: list[Placed] = field(default_factory=list)
    by_line: dict[int, list[Placed]] = field(default_factory=dict)
    code_size: int = 0

    def call_target(self, name: str, caller: KernelLayout | None, compat: bool) -> int | None:
        """The word1 of `call name` from `caller`, or None when the label is undefined."""
        place = self.labels.get(name)
        if place is None:
            return None
        if compat:
            return place.upstream_offset & WORD_MASK
        base = caller.code_offset if caller else 0
        return (place.offset - base) & WORD_MASK


def layout_document(document: Document) -> CodeLayout:
    """Lay out every kernel of the document (never raises)."""
    kernels = iter(document.program.kernels)
    layout = CodeLayout()
    by_line = layout.by_line
    cursor = 0            # true offset in the code section
    upstream = 0          # wave-asm's label-pass offset
    current: KernelLayout | None = None
    for number, syntax in enumerate(document.syntax):
        if not number & 4095:
            checkpoint()
        statements = syntax.statements
        if not statements:
            continue
        for stmt in statements:
            kind = type(stmt)
            if kind is Instruction:
                spec, size, upstream_size = sizes(stmt)
                upstream += upstream_size
                if current is not None:
                    placed = Placed(number, stmt, spec, cursor - current.code_offset, current)
                    current.placed.append(placed)
                    cursor += size
                else:
                    placed = Placed(number, stmt, spec, cursor, None)
                    layout.stray.append(placed)
                entry = by_line.get(number)
                if entry is None:
                    by_line[number] = [placed]
                else:
                    entry.append(placed)
            elif kind is Label:
                name = stmt.name.text
                place = LabelPlace(name, number, stmt, cursor, upstream, current)
                if name in layout.labels:
                    layout.duplicate_labels.append(place)
                else:
                    layout.labels[name] = place
            elif kind is Directive:
                if stmt.name.text == "kernel":
                    if current is not None:
                        current.size = cursor - current.code_offset
                    kernel = next(kernels, None)
                    if kernel is None:  # pragma: no cover - Program saw the same directives
                        continue
                    current = KernelLayout(kernel, len(layout.kernels), cursor)
                    layout.kernels.append(current)
                elif stmt.name.text == "end" and current is not None:
                    current.size = cursor - current.code_offset
                    current = None
    if current is not None:
        current.size = cursor - current.code_offset
    layout.code_size = cursor
    return layout
