"""The records of the instruction table (`table.py`): one `Row` per mnemonic, with named fields,
and the facts a row states beyond its encoding — the memory it touches (`MemoryAccess`), the
types a conversion goes between, the role of a wave operation — so that no reader parses them
back out of the mnemonic's spelling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .classes import InstructionClass

LOCAL, DEVICE = "local", "device"
# Roles of the wave operations: a shuffle reads another lane, a broadcast one lane for all, a
# ballot and a reduction give one value per wave, a vote (any/all) a predicate per wave, a
# prefix sum a value per lane.
WAVE_ROLES = ("shuffle", "broadcast", "ballot", "vote", "prefix", "reduce")


@dataclass(frozen=True, slots=True)
class MemoryAccess:
    """What a load, store or atomic touches: `space` is "local" or "device", `kind` is "load",
    "store" or "atomic", `width` is in bytes (u8 ... u128; atomics are 32-bit), `operation` the
    read-modify-write of an atomic ("add", ..., "cas"; None otherwise)."""

    space: str
    kind: str
    width: int
    operation: str | None = None

    @property
    def words(self) -> int:
        """32-bit registers moved (a u64 uses a pair, a u128 four)."""
        return max(1, self.width // 4)

    @property
    def compare_and_swap(self) -> bool:
        """An atomic that takes a compare value (its third source register)."""
        return self.operation == "cas"


def load(space: str, width: int) -> MemoryAccess:
    return MemoryAccess(space, "load", width)


def store(space: str, width: int) -> MemoryAccess:
    return MemoryAccess(space, "store", width)


def atomic(space: str, operation: str) -> MemoryAccess:
    return MemoryAccess(space, "atomic", 4, operation)


class Row(NamedTuple):
    """One mnemonic of the table. `operand_names` (comma-separated) rename the layout's operands
    for the documentation; `converts` is (destination type, source type) of a conversion;
    `wave` one of WAVE_ROLES."""

    mnemonic: str
    opcode: int
    modifier: int
    layout: str
    iclass: InstructionClass
    operand_names: str | None
    summary: str
    semantics: str
    access: MemoryAccess | None = None
    converts: tuple[str, str] | None = None
    wave: str | None = None
