"""Local-memory layouts re-evaluated from a profile record: what a change of an
array's layout would do to its bank conflicts, under every preset, before anyone suggests it.

The record keeps every distinct local access pattern of every instruction with its count
(`emu.profile`); a layout change is a function from the bytes the kernel addresses now to the
bytes it would address (`Remap`), applied to every lane of every pattern, whose passes are then
counted exactly as the profile counts them (`profile.local_passes`). Two layouts:

- `padded(stride, words)`: a row of `stride` bytes grows by `words` words; the byte at
  row * stride + col moves to row * (stride + 4 * words) + col;
- `swizzled(stride)`: rows of a power of two of words (a padded row loses its padding), the
  word column of each row XORed with the row modulo those words, so that a column of the tile
  falls on as many banks as a row does.

Rows are counted from the pattern's 4096-byte-aligned base (`PATTERN_ALIGN`): exact where the
local memory fits in 4096 bytes; for a larger one the figures hold where the row stride divides
4096 (a pattern based higher only moves by whole rows, which shifts every lane alike).
`array_of` takes the accesses of one array to be those whose address spans overlap.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Callable

import numpy as np

from ..isa.profile_presets import PROFILE_TARGETS, profile_preset
from .profile import PATTERN_ALIGN, ProfileRecord, local_passes

Remap = Callable[[np.ndarray], np.ndarray]
Passes = tuple[int, int]                         # (wavefronts, ideal wavefronts)


def padded(stride: int, words: int) -> Remap:
    """Rows of `stride` bytes padded by `words` words."""
    def remap(a: np.ndarray) -> np.ndarray:
        return a // stride * (stride + 4 * words) + a % stride
    return remap


def swizzle_words(stride: int) -> int:
    """The words of a swizzled row: the largest power of two in a row of `stride` bytes (a
    padded row loses its padding)."""
    return 1 << ((stride // 4).bit_length() - 1) if stride >= 8 else 0


def swizzled(stride: int) -> Remap:
    """Rows of `swizzle_words(stride)` words, the word column XOR (row mod those words): the
    byte at row * stride + col moves to row * 4w + ((col / 4) ^ (row % w)) * 4 + col % 4."""
    words = swizzle_words(stride)

    def remap(a: np.ndarray) -> np.ndarray:
        row, col = a // stride, a % stride
        return row * 4 * words + ((col // 4) ^ (row % words)) * 4 + col % 4
    return remap


def widest_column(record: ProfileRecord, indices, stride: int) -> int:
    """One past the highest byte of a row of `stride` bytes the accesses reach."""
    top = 0
    for index in indices:
        acc = record.accesses[index]
        for p in acc.patterns.values():
            top = max(top, int((p.addresses.astype(np.int64) % stride).max()) + acc.width)
    return top


def spans_within_align(extent: int, stride: int) -> bool:
    """Whether rows counted from a pattern's base are the array's own rows (module doc)."""
    return extent <= PATTERN_ALIGN or PATTERN_ALIGN % stride == 0


def local_indices(record: ProfileRecord) -> list[int]:
    """The instructions that accessed local memory in the run, in program order."""
    return sorted(i for i, acc in record.accesses.items()
                  if acc.space == "local" and acc.patterns)


def span(record: ProfileRecord, index: int) -> tuple[int, int]:
    """[lowest, highest + width) of the bytes an instruction accessed (pattern-relative)."""
    acc = record.accesses[index]
    low = min(int(p.addresses.min()) for p in acc.patterns.values())
    high = max(int(p.addresses.max()) for p in acc.patterns.values())
    return low, high + acc.width


def array_of(record: ProfileRecord, index: int) -> list[int]:
    """The local accesses of the array `index` accesses: those whose spans overlap its own,
    and theirs in turn."""
    members = {index}
    low, high = span(record, index)
    grew = True
    while grew:
        grew = False
        for other in local_indices(record):
            if other in members:
                continue
            a, b = span(record, other)
            if a < high and low < b:
                members.add(other)
                low, high = min(low, a), max(high, b)
                grew = True
    return sorted(members)


def extent(record: ProfileRecord, indices, remap: Remap | None = None) -> int:
    """One past the highest byte the accesses reach (after `remap`)."""
    top = 0
    for index in indices:
        acc = record.accesses[index]
        for p in acc.patterns.values():
            a = p.addresses.astype(np.int64)
            top = max(top, int((remap(a) if remap else a).max()) + acc.width)
    return top


def row_stride(record: ProfileRecord, index: int) -> int | None:
    """The distance in bytes between neighbouring lanes' addresses that occurs most often in
    the instruction's waves (the launch's width), when it is a whole number of words and more
    than one: the row of the array a column access walks down."""
    acc = record.accesses[index]
    steps: Counter = Counter()
    for p in acc.patterns.values():
        a = p.addresses.astype(np.int64)
        lanes = (np.arange(p.lane_count) if p.lanes is None else p.lanes)
        same = (lanes[1:] // record.wave_width == lanes[:-1] // record.wave_width) & \
            (lanes[1:] - lanes[:-1] == 1)
        values, counts = np.unique(np.diff(a)[same], return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist()):
            steps[v] += c * p.count
    if not steps:
        return None
    stride, _ = steps.most_common(1)[0]
    return stride if stride > 4 and stride % 4 == 0 else None


def rows_per_wave(record: ProfileRecord, index: int, stride: int) -> int:
    """How many rows of `stride` bytes the first wave of the instruction's commonest access
    touches."""
    acc = record.accesses[index]
    p = max(acc.patterns.values(), key=lambda p: p.count)
    lanes = np.arange(p.lane_count) if p.lanes is None else p.lanes
    first = p.addresses[lanes // record.wave_width == lanes[0] // record.wave_width]
    return int(np.unique(first.astype(np.int64) // stride).size)


def _geometry(record: ProfileRecord, target: str) -> tuple[int, int, int]:
    preset = profile_preset(target)
    return preset.wave_width or record.wave_width, preset.banks, preset.bank_bytes


def local_ways(record: ProfileRecord, indices, remap: Remap | None = None,
               targets=PROFILE_TARGETS, check: Callable[[], None] | None = None
               ) -> dict[str, dict[int, Passes]]:
    """Per preset, per instruction of `indices`: its (passes, ideal passes) in the run, with
    its addresses remapped by `remap` (None: as they were); `check` is called before each
    counting (it raises to stop). The figures are those of the patterns kept: where the
    record kept a sample (`profile`), of the sample, which a ratio of ways reads alike."""
    out: dict[str, dict[int, Passes]] = {}
    known: dict = {}
    for target in targets:
        width, banks, bank_bytes = _geometry(record, target)
        per: dict[int, Passes] = {}
        for index in indices:
            key = (width, banks, bank_bytes, index)
            if key not in known:
                if check is not None:
                    check()
                acc = record.accesses[index]
                patterns = list(acc.patterns.values())
                if remap is not None:
                    patterns = [replace(p, addresses=remap(p.addresses.astype(np.int64)))
                                for p in patterns]
                known[key] = local_passes(patterns, acc.width, width, banks, bank_bytes)
            per[index] = known[key]
        out[target] = per
    return out
