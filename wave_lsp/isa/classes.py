"""Semantic classes of instructions, their spec sections, and optional capabilities."""

from __future__ import annotations

import enum


class InstructionClass(enum.Enum):
    """The semantic class of a mnemonic: used for docs, semantic tokens and statistics."""

    __hash__ = object.__hash__   # members are singletons; Enum's own hashes the name (slow)

    INTEGER = "integer"
    FLOAT = "float"
    F16 = "f16"
    BF16 = "bf16"
    F64 = "f64"
    BITWISE = "bitwise"
    COMPARE = "compare"
    CONVERT = "convert"
    LOCAL_MEMORY = "local memory"
    DEVICE_MEMORY = "device memory"
    ATOMIC = "atomic"
    WAVE = "wave"
    CONTROL = "control"
    SYNC = "sync"
    MMA = "mma"
    MISC = "misc"


class Capability(enum.Enum):
    """Optional capabilities of spec v0.2 §7.2 that some instructions need."""

    F64 = "CAP_F64"
    MMA = "CAP_MMA"


# Spec v0.2 section each class is documented in (seeds/000, first half).
SPEC_SECTION: dict[InstructionClass, str] = {
    InstructionClass.INTEGER: "§6.2 Integer Arithmetic",
    InstructionClass.BITWISE: "§6.3 Bitwise Operations",
    InstructionClass.FLOAT: "§6.4 Floating-Point Arithmetic (F32)",
    InstructionClass.F16: "§6.5 Floating-Point Arithmetic (F16)",
    InstructionClass.BF16: "§6.5 Floating-Point Arithmetic (F16); bf16 is a toolchain extension",
    InstructionClass.F64: "§6.6 Floating-Point Arithmetic (F64)",
    InstructionClass.CONVERT: "§6.7 Type Conversion",
    InstructionClass.COMPARE: "§6.8 Comparison and Select",
    InstructionClass.LOCAL_MEMORY: "§6.9 Memory Operations (§4.2 Local Memory)",
    InstructionClass.DEVICE_MEMORY: "§6.9 Memory Operations (§4.3 Device Memory)",
    InstructionClass.ATOMIC: "§6.10 Atomic Operations (§4.5)",
    InstructionClass.WAVE: "§6.11 Wave Operations",
    InstructionClass.SYNC: "§6.12 Synchronization (§4.4 Memory Ordering)",
    InstructionClass.CONTROL: "§6.13 Control Flow Instructions (§5.1)",
    InstructionClass.MMA: "§6.14 Matrix Multiply-Accumulate (§7.3)",
    InstructionClass.MISC: "§6.14 Miscellaneous",
}
