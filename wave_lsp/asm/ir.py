"""The decoded form of an instruction, shared by the encoder, decoder, disassembler and emulator.

One `DecodedInstruction` per encoded instruction: the spec it came from, every field value, the
raw words, its byte offset within its kernel and (when assembled from source) its source line.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..isa import InstructionSpec


@dataclass(frozen=True, slots=True)
class DecodedInstruction:
    spec: InstructionSpec
    offset: int              # byte offset from the start of the kernel's code
    rd: int = 0
    rs1: int = 0
    rs2: int = 0
    rs3: int = 0
    rs4: int = 0
    scope: int = 0
    imm: int = 0             # word1 as a whole: mov_imm's immediate or call's target
    pred_reg: int = 0
    pred_neg: bool = False
    word0: int = 0
    word1: int | None = None
    line: int | None = None  # source line (0-based) when assembled from source

    @property
    def size(self) -> int:
        return 8 if self.word1 is not None else 4

    @property
    def guarded(self) -> bool:
        """Whether a guard applies at run time (`@p0` encodes as no guard, reference §2.5)."""
        return self.pred_reg != 0 or self.pred_neg


@dataclass(frozen=True, slots=True)
class KernelCode:
    """One kernel as it appears in a `.wbin`: metadata plus decoded instructions."""

    name: str
    register_count: int
    local_memory: int
    workgroup_size: tuple[int, int, int]
    code_offset: int         # relative to the start of the code section
    code: bytes
    instructions: tuple[DecodedInstruction, ...]
