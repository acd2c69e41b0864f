"""Comparing two device memory images word by word, with the store line that wrote the first
differing word: the emulator against a real GPU (`wave-lsp run --device cuda --compare`) and
one wave width against another (`wave_widths`).

The writer of a word comes from the store-writer record of the emulator's run
(`RunOptions(writers=True)` → `report.writers`, see `writers`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .writers import StoreWriters


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

    who = writers.line_at(byte) if writers is not None else -1
    return MemoryDifference(address, word(expected), word(actual), who if who >= 0 else None,
                            int(words.size), by_pc)
