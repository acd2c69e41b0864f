"""Comparing two device memory images word by word, with the store line that wrote the first
differing word: the emulator against a real GPU (`wave-lsp run --device cuda --compare`) and
one wave width against another (`wave_widths`).

`StoreWriters` is the record of which line stored each byte: an observer of an emulator run
(see `recording`) that keeps, per byte of device memory, the line of the last store or atomic
that wrote it; `run_with_writers` runs a launch with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .api import run
from .launch import Launch
from .report import RunReport


class StoreWriters:
    """Observer that remembers, for every byte of device memory a store or atomic wrote, the
    source line (or pc for `.wbin` input) of the last one. Kept in pages of `PAGE` bytes made
    when first written, so the memory it takes follows what the kernel wrote, not the size of
    device memory (4 bytes per written byte; nothing for the rest)."""

    single_workgroup = False
    PAGE_BITS = 16

    def __init__(self, compiled, size: int):
        self.size = size
        self.pages: dict[int, np.ndarray] = {}
        self.plans = []
        for ins in compiled.instructions:
            access = ins.spec.memory
            wanted = access is not None and access.space == "device" and access.kind != "load"
            where = ins.line if ins.line is not None else ins.offset
            self.plans.append((ins, access.width, where) if wanted else None)

    def attach(self, b) -> None:
        pass

    def before(self, index: int, b):
        plan = self.plans[index]
        if plan is None:
            return None
        ins = plan[0]
        mask = b.guard_mask(ins.pred_reg, ins.pred_neg) if ins.guarded else b.active
        return b.R[ins.rs1][mask].astype(np.int64)

    def after(self, index: int, b, addresses) -> None:
        if addresses is None or not addresses.size:
            return
        _ins, width, where = self.plans[index]
        bits, size = self.PAGE_BITS, self.size
        low = (1 << bits) - 1
        for k in range(width):
            at = addresses + k
            at = at[(at >= 0) & (at < size)]
            pages = at >> bits
            for page in np.unique(pages).tolist():
                table = self.pages.get(page)
                if table is None:
                    table = self.pages[page] = np.full(1 << bits, -1, dtype=np.int32)
                table[at[pages == page] & low] = where

    def last(self, address: int, count: int) -> int | None:
        """The largest line (pc) that wrote one of `count` bytes from `address`, or None."""
        found = [int(table[(a & ((1 << self.PAGE_BITS) - 1))])
                 for a in range(address, min(address + count, self.size))
                 if (table := self.pages.get(a >> self.PAGE_BITS)) is not None]
        found = [f for f in found if f >= 0]
        return max(found) if found else None

    def at(self, address: int) -> int:
        """The line (pc) of the last store that wrote the byte at `address`; -1: never."""
        table = self.pages.get(address >> self.PAGE_BITS)
        return -1 if table is None else int(table[address & ((1 << self.PAGE_BITS) - 1)])


def run_with_writers(program, launch: Launch, cancel=None) -> tuple[RunReport, StoreWriters | None]:
    """(report, the record of which line or pc last stored each byte of device memory) of an
    emulator run of `launch` (the numpy engine: an observed run)."""
    observers: list[StoreWriters] = []

    def observe(compiled, geo):
        observers.append(StoreWriters(compiled, launch.device_memory))
        return observers[-1]

    report = run(program, launch, cancel=cancel, observe=observe)
    return report, observers[-1] if observers else None


@dataclass(frozen=True)
class MemoryDifference:
    """The first 32-bit word (lowest address) where two images differ, and how many differ."""

    address: int                 # byte address of the word
    expected: int                # the word in the first image (the emulator's)
    actual: int                  # the word in the second image (the GPU's)
    writer: int | None           # 0-based line (or pc) of the store that wrote it, None: never
    words: int                   # differing words in all
    by_pc: bool = False          # `writer` is a byte offset (`.wbin` input)

    def where(self, path: str = "") -> str:
        if self.writer is None:
            return "no store in the emulator wrote it"
        if self.by_pc:
            return f"stored by {path + ': ' if path else ''}pc 0x{self.writer:04x}"
        return f"stored by {path + ':' if path else 'line '}{self.writer + 1}"

    def text(self, first: str, second: str, path: str = "") -> str:
        return (f"first difference at device address 0x{self.address:x}: {first} "
                f"0x{self.expected:08x}, {second} 0x{self.actual:08x} ({self.where(path)}); "
                f"{self.words} word(s) differ")

    def as_dict(self) -> dict:
        return {"address": self.address, "expected": self.expected, "actual": self.actual,
                "line" if not self.by_pc else "pc": self.writer, "words": self.words}


def first_difference(expected: np.ndarray, actual: np.ndarray,
                     writers: StoreWriters | None = None,
                     by_pc: bool = False) -> MemoryDifference | None:
    """The first differing word of two uint8 images of one size (None: equal), attributed to the
    writer of its first differing byte in `writers` (None: no record)."""
    if expected.size != actual.size:
        raise ValueError(f"images of {expected.size} and {actual.size} bytes")
    differs = np.flatnonzero(expected != actual)
    if not differs.size:
        return None
    pad = -expected.size % 4
    words = np.unique(differs >> 2)
    byte = int(differs[0])
    address = byte & ~3

    def word(image: np.ndarray) -> int:
        return int.from_bytes(np.pad(image, (0, pad))[address:address + 4].tobytes(), "little")

    who = writers.at(byte) if writers is not None else -1
    return MemoryDifference(address, word(expected), word(actual), who if who >= 0 else None,
                            int(words.size), by_pc)
