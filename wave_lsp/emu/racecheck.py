"""Data races between the waves of one workgroup (compute-sanitizer's racecheck is the model).

Between two barriers (an *epoch*), the waves of a workgroup may run in any order on a GPU, so two
accesses to the same 32-bit word of local or device memory by different waves of one workgroup,
at least one a write and neither an atomic, are a race. `EpochLog` records every non-atomic
access of an epoch (instruction, words, lanes, write); `races` finds, per workgroup, one such
pair when the epoch ends (at a barrier and at the end of the batch): the one on the lowest word,
whatever the batch, so that the report is that of running the workgroups one at a time. An epoch
of one workgroup that logs more than `MAX_LOGGED` words is checked then and logged afresh (a race
spanning that point goes unreported); in a batch of several it runs the launch again one
workgroup at a time (`overlap.LogFull`), where it is that. Lanes of one wave run in lock-step
and are never in a race with each other. Races between workgroups: `workgroup_races`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .overlap import LogFull


@dataclass(frozen=True)
class Race:
    """Two accesses of different waves of one workgroup to one word, the first a write."""

    space: str                  # "local" or "device"
    word: int                   # word index (absolute in the batch's local array, or device)
    write: tuple[int, int]      # (instruction index, batch lane)
    other: tuple[int, int]
    other_writes: bool


def split_words(byte_addresses: np.ndarray, width: int, lanes: np.ndarray | None):
    """(words, lanes) pairs covering accesses of `width` bytes at `byte_addresses`."""
    a = np.asarray(byte_addresses, dtype=np.int64)
    first = a >> 2
    last = (a + width - 1) >> 2
    yield first, lanes
    for extra in range(1, int((last - first).max(initial=0)) + 1):
        more = first + extra
        keep = np.flatnonzero(more <= last)
        yield more[keep], (keep if lanes is None else lanes[keep])


class EpochLog:
    """The non-atomic accesses of the current epoch to one memory space of a batch."""

    def __init__(self, space: str, wave_width: int, lanes_per_wg: int, wg_count: int,
                 words: int | None = None):
        """`words`: size of the space in words, where known (sizes the screen's table)."""
        self.space = space
        self.W = wave_width
        self.lanes_per_wg = lanes_per_wg
        self.wg_count = wg_count
        self.entries: list = []
        self.size = 0
        self.pending: list[Race] = []             # found when the log was flushed early
        self.wave_of_lane = np.arange(lanes_per_wg * wg_count, dtype=np.int32) // wave_width
        size = SCREEN_SLOTS if words is None else min(SCREEN_SLOTS, _pow2(words))
        self.slots = size - 1
        self.writer: np.ndarray | None = None       # allocated at the first epoch with writes

    def _waves(self, lanes):
        return self.wave_of_lane if lanes is None else self.wave_of_lane[lanes]

    def _screen(self, entries) -> bool:
        """Whether the epoch may hold a race: one pass over a table of the last writing wave
        per word (words folded onto its slots, so a collision only costs the exact check) that
        rules out almost every epoch cheaply."""
        writes = [(w, self._waves(l)) for _, w, l, write, _ in entries if write and w.size]
        if not writes:
            return False
        if self.writer is None:
            self.writer = np.full(self.slots + 1, -1, dtype=np.int32)
        writer, slots = self.writer, self.slots
        keys = np.concatenate([w for w, _ in writes]) & slots
        waves = np.concatenate([v for _, v in writes])
        writer[keys] = waves
        clash = bool((writer[keys] != waves).any())
        if not clash:
            for _, w, l, write, _ in entries:
                if write or not w.size:
                    continue
                seen = writer[w & slots]
                if seen.max() < 0:            # reads no word written in the epoch
                    continue
                if ((seen >= 0) & (seen != self._waves(l))).any():
                    clash = True
                    break
        writer[keys] = -1
        return clash

    def record_words(self, index: int, words: np.ndarray, lanes: np.ndarray | None,
                     write: bool, values: np.ndarray | None = None) -> None:
        """`values`: the 32-bit values a write stores (None: unknown)."""
        self.entries.append((index, words, lanes, write,
                             None if values is None else values.copy()))
        self.size += words.size
        if self.size > MAX_LOGGED:       # bound memory: check what we have, start afresh
            if self.wg_count > 1:
                raise LogFull()
            self.pending = self.pending or self._check()

    def record(self, index: int, byte_addresses: np.ndarray, width: int,
               lanes: np.ndarray | None, write: bool) -> None:
        for words, part in split_words(byte_addresses, width, lanes):
            self.record_words(index, words, part, write)

    def races(self) -> list[Race]:
        """The races of the epoch, at most one per workgroup, in workgroup order; the epoch is
        then over (the log is emptied)."""
        found, self.pending = self.pending, []
        checked = self._check()
        return found or checked

    def _check(self) -> list[Race]:
        """Check the logged entries and forget them."""
        entries, self.entries, self.size = self.entries, [], 0
        if not any(entry[3] for entry in entries) or not self._screen(entries):
            return []
        words, lanes, ops, writes, values = [], [], [], [], []
        for k, (index, w, l, write, v) in enumerate(entries):
            if not w.size:
                continue
            words.append(np.asarray(w, dtype=np.int64))
            lanes.append(np.arange(w.size, dtype=np.int64) if l is None
                         else np.asarray(l, dtype=np.int64))
            ops.append(np.full(w.size, index, dtype=np.int64))
            writes.append(np.full(w.size, write, dtype=bool))
            values.append(np.asarray(v, dtype=np.int64) if v is not None and write
                          else np.full(w.size, -1 - k, dtype=np.int64))
        if not words:
            return []
        w, l, o, wr, val = (np.concatenate(x) for x in (words, lanes, ops, writes, values))
        wave = l // self.W
        wg = l // self.lanes_per_wg
        order = np.lexsort((wave, w, wg))         # per workgroup, per word, per wave
        gs, ws, vs = wg[order], w[order], wave[order]
        starts = np.flatnonzero(np.r_[True, (ws[1:] != ws[:-1]) | (gs[1:] != gs[:-1])])
        ends = np.r_[starts[1:], ws.size] - 1
        mixed = vs[starts] != vs[ends]
        if not mixed.any():
            return []
        written = np.logical_or.reduceat(wr[order], starts)
        bad = np.flatnonzero(mixed & written)
        found, examined = {}, {}
        for g in bad.tolist():
            group_wg = int(gs[starts[g]])
            if group_wg in found or examined.get(group_wg, 0) >= MAX_GROUPS:
                continue
            examined[group_wg] = examined.get(group_wg, 0) + 1
            group = order[int(starts[g]):int(ends[g]) + 1]
            if not _benign(group, wr, val, wave):
                found[group_wg] = self._race(group, w, l, o, wr, wave)
        return [found[k] for k in sorted(found)]

    def _race(self, group, w, l, o, wr, wave) -> Race:
        first_write = group[np.flatnonzero(wr[group])[0]]
        others = group[wave[group] != wave[first_write]]
        other = others[np.argmax(wr[others])] if wr[others].any() else others[0]
        return Race(self.space, int(w[first_write]), (int(o[first_write]), int(l[first_write])),
                    (int(o[other]), int(l[other])), bool(wr[other]))


MAX_GROUPS = 256          # words examined for a non-benign race per epoch and workgroup
MAX_LOGGED = 4 << 20      # words logged per epoch before they are checked early (memory bound)
SCREEN_SLOTS = 1 << 22    # slots of the screen's table (16 MiB of int32)


def _pow2(n: int) -> int:
    return 1 << max(4, int(n - 1).bit_length())


def _benign(group, wr, val, wave) -> bool:
    """Every wave touching the word writes it, all with the same known value (say a uniform
    parameter stored by every thread): the order of the waves cannot change what anyone sees."""
    writes = group[wr[group]]
    values = val[writes]
    if values.min() < 0 or values.min() != values.max():
        return False
    return set(wave[group].tolist()) == set(wave[writes].tolist())
