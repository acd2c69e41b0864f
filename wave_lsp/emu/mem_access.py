"""One lane's memory access of the `--mem-trace` log (`MemAccess`), its text, and the native
core's log read back (`from_native`). Both engines make these records: the numpy engine's
observer (`mem_trace`) and the native core (`native/memlog.c`). No numpy.

Each record becomes one stderr line:

    mem step=S wg(X,Y,Z) wave[W] lane[L] pc=0xPPPP line N: SPACE KIND SIZE @0xADDR value=0xV

SPACE is `device` or `local` (a local address is the offset in the workgroup's local memory),
KIND `load`, `store` or the atomic's operation (`atomic_add`, …, `atomic_cas`), SIZE the bytes
(1, 2, 4, 8, 16), `line N` the 1-based source line (left out for `.wbin` input). `value` is
the value loaded or stored (SIZE bytes, little-endian, in hex); for an atomic it is the value
memory held before it (what the atomic returns), followed by `operand=0xV` (the register
operand), and for `atomic_cas` `compare=0xC swap=0xV` instead (memory takes `swap` where it held
`compare`). With `--json` the records are the report's `mem_trace` list instead, one object
per line with the same fields (`line` 1-based or null). `mma_load_a`/`_b` and `mma_store_c`
log each lane's 4x4 tile as 16 4-byte local loads or stores, row by row.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass

from ..isa import MemoryAccess
from .trace_filter import TraceFilter

# the mma instructions' tile accesses, logged as 4-byte local loads and stores
MMA_TILES = {"mma_load_a": MemoryAccess("local", "load", 4),
             "mma_load_b": MemoryAccess("local", "load", 4),
             "mma_store_c": MemoryAccess("local", "store", 4)}


@dataclass(frozen=True)
class MemAccess:
    """One lane's access (see the module doc)."""

    step: int
    workgroup: tuple[int, int, int]
    wave: int
    lane: int
    pc: int
    line: int | None            # 1-based source line, None for .wbin input
    space: str                  # "device" or "local"
    kind: str                   # "load", "store", "atomic_add", ...
    size: int
    address: int
    value: int                  # loaded / stored / memory's old value for atomics
    operand: int | None = None  # atomics: the register operand (cas: the compare value)
    swap: int | None = None     # atomic_cas: the value stored where memory held `operand`

    def text(self) -> str:
        x, y, z = self.workgroup
        line = f" line {self.line}" if self.line is not None else ""
        digits = 2 * self.size
        head = (f"mem step={self.step} wg({x},{y},{z}) wave[{self.wave}] lane[{self.lane}] "
                f"pc=0x{self.pc:04x}{line}: {self.space} {self.kind} {self.size} "
                f"@0x{self.address:x} value=0x{self.value:0{digits}x}")
        if self.swap is not None:
            return f"{head} compare=0x{self.operand:08x} swap=0x{self.swap:08x}"
        if self.operand is not None:
            return f"{head} operand=0x{self.operand:08x}"
        return head


def atomic_result(operation: str, old: int, value: int, swap: int | None) -> int:
    """An atomic's new word (the operations of `memory.atomic`, unsigned min/max)."""
    return {"add": lambda: old + value, "sub": lambda: old - value,
            "min": lambda: min(old, value), "max": lambda: max(old, value),
            "and": lambda: old & value, "or": lambda: old | value, "xor": lambda: old ^ value,
            "exchange": lambda: value,
            "cas": lambda: swap if old == value else old}[operation]() & 0xFFFFFFFF


NATIVE_FIELDS = 8           # core.h MEMLOG_FIELDS


def from_native(raw: bytes, instructions, geo, where: TraceFilter | None = None
                ) -> list[MemAccess]:
    """The native core's log (core.h `MemLog`: int64 step, workgroup, lane in the workgroup,
    instruction index, address, value low and high, operand << 32 | swap) as records, the
    filter applied."""
    where = where or TraceFilter()
    W = geo.wave_width
    out = []
    for step, wg, lane, index, address, low, high, operands in struct.iter_unpack(
            f"<{NATIVE_FIELDS}q", raw):
        wave, in_wave = divmod(lane, W)
        ins = instructions[index]
        if not where.keeps_pc(ins.offset) or not where.keeps_wave(wave) or (
                where.lane is not None and in_wave != where.lane):
            continue
        access = MMA_TILES.get(ins.spec.mnemonic, ins.spec.memory)
        value = (low & 0xFFFFFFFFFFFFFFFF) | (high & 0xFFFFFFFFFFFFFFFF) << 64
        operand = swap = None
        kind = access.kind
        if kind not in ("load", "store"):
            kind = f"atomic_{access.operation}"
            operand = (operands >> 32) & 0xFFFFFFFF
            swap = operands & 0xFFFFFFFF if access.operation == "cas" else None
        line = ins.line + 1 if ins.line is not None else None
        out.append(MemAccess(step, geo.workgroup_id(wg), wave, in_wave, ins.offset, line,
                             access.space, kind, access.width, address, value, operand, swap))
    return out


def write(records, sink=None) -> None:
    """Each record's line to `sink` (default: stderr)."""
    sink = sink or (lambda text: sys.stderr.write(text + "\n"))
    for record in records:
        sink(record.text())
