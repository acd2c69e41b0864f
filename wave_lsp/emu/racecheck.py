"""Data races between the waves of one workgroup (compute-sanitizer's racecheck is the model).

Between two barriers (an *epoch*), the waves of a workgroup may run in any order on a GPU, so two
accesses to the same 32-bit word of local or device memory by different waves of one workgroup,
at least one a write and neither an atomic, are a race — unless benign: every wave touching the
word stores one same value to it. In `strict` mode (`RunOptions.racecheck`, the
specification's races, spec v0.1 §9.3) nothing is benign and atomics are logged too: a plain
store or read meeting another wave's atomic races, two atomics do not. `EpochLog` records every
access it checks of an epoch (instruction, words, lanes, kind); `races` finds, per workgroup, one
such pair when the epoch ends (at a barrier and at the end of the batch): the one on the lowest
word, whatever the batch, so that the report is that of running the workgroups one at a time.
An epoch of one workgroup that logs more than `race_report.MAX_LOGGED` words is checked then and
logged afresh (a race spanning that point goes unreported); in a batch of several it runs the
launch again one workgroup at a time (`overlap.LogFull`), where it is that. Lanes of one wave run
in lock-step and are never in a race with each other. The native core decides alike
(native/waverace.c), with the same limits. Races between workgroups: `workgroup_races`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import race_report
from .overlap import LogFull


READ, WRITE, ATOMIC = 0, 1, 2          # kinds of access in the log
KIND_NAMES = ("read", "write", "atomic")


@dataclass(frozen=True)
class Race:
    """Two accesses of different waves of one workgroup to one word, the first a write or (in
    strict mode) an atomic; `same_value`: two stores of one same value."""

    space: str                  # "local" or "device"
    word: int                   # word index (absolute in the batch's local array, or device)
    write: tuple[int, int]      # (instruction index, batch lane)
    other: tuple[int, int]
    kinds: tuple[str, str] = ("write", "read")     # KIND_NAMES of `write` and `other`
    same_value: bool = False

    @property
    def other_writes(self) -> bool:
        return self.kinds[1] != "read"


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
    """The non-atomic accesses (in strict mode all) of the current epoch to one memory space of
    a batch."""

    def __init__(self, space: str, wave_width: int, lanes_per_wg: int, wg_count: int,
                 words: int | None = None, strict: bool = False):
        """`words`: size of the space in words, where known (sizes the screen's table);
        `strict`: the specification's races (see the module doc)."""
        self.space = space
        self.strict = strict
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
        writes = [(w, self._waves(l)) for _, w, l, kind, _ in entries if kind and w.size]
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
            for _, w, l, kind, _ in entries:
                if kind or not w.size:
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
                     write: bool, values: np.ndarray | None = None,
                     atomic: bool = False) -> None:
        """`values`: the 32-bit values a write stores (None: unknown); `atomic`: an atomic's
        (logged in strict mode only)."""
        kind = ATOMIC if atomic else WRITE if write else READ
        self.entries.append((index, words, lanes, kind,
                             None if values is None else values.copy()))
        self.size += words.size
        if self.size > race_report.MAX_LOGGED:       # bound memory: check what we have, start afresh
            if self.wg_count > 1:
                raise LogFull()
            self.pending = self.pending or self._check()

    def record(self, index: int, byte_addresses: np.ndarray, width: int,
               lanes: np.ndarray | None, write: bool, atomic: bool = False) -> None:
        for words, part in split_words(byte_addresses, width, lanes):
            self.record_words(index, words, part, write, atomic=atomic)

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
        words, lanes, ops, kinds, values = [], [], [], [], []
        for k, (index, w, l, kind, v) in enumerate(entries):
            if not w.size:
                continue
            words.append(np.asarray(w, dtype=np.int64))
            lanes.append(np.arange(w.size, dtype=np.int64) if l is None
                         else np.asarray(l, dtype=np.int64))
            ops.append(np.full(w.size, index, dtype=np.int64))
            kinds.append(np.full(w.size, kind, dtype=np.int8))
            values.append(np.asarray(v, dtype=np.int64) if v is not None and kind == WRITE
                          else np.full(w.size, -1 - k, dtype=np.int64))
        if not words:
            return []
        w, l, o, kd, val = (np.concatenate(x) for x in (words, lanes, ops, kinds, values))
        wr = kd == WRITE
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
        if self.strict:              # plain accesses meeting atomics race too
            atomic = kd[order] == ATOMIC
            written |= (np.logical_or.reduceat(atomic, starts)
                        & np.logical_or.reduceat(~atomic, starts))
        bad = np.flatnonzero(mixed & written)
        found, examined = {}, {}
        for g in bad.tolist():
            group_wg = int(gs[starts[g]])
            if group_wg in found or examined.get(group_wg, 0) >= race_report.MAX_GROUPS:
                continue
            examined[group_wg] = examined.get(group_wg, 0) + 1
            group = order[int(starts[g]):int(ends[g]) + 1]
            if self.strict or not _benign(group, wr, val, wave):
                found[group_wg] = self._race(group, w, l, o, kd, val, wave)
        return [found[k] for k in sorted(found)]

    def _race(self, group, w, l, o, kd, val, wave) -> Race:
        """A pair of `group` (accesses of several waves to one word) that races: a plain store
        and another wave's access (a store first, one of another value first), else (strict
        mode) an atomic and another wave's plain read."""
        stores = group[kd[group] == WRITE]
        if stores.size:
            first = stores[0]
            others = group[wave[group] != wave[first]]
            other_stores = others[kd[others] == WRITE]
            if self.strict:            # a pair of different values where there is one
                other_stores = np.r_[other_stores[val[other_stores] != val[first]],
                                     other_stores].astype(np.int64)
            other = other_stores[0] if other_stores.size else others[0]
        else:
            atomics, reads = group[kd[group] == ATOMIC], group[kd[group] == READ]
            first = atomics[0]
            apart = reads[wave[reads] != wave[first]]
            if apart.size:
                other = apart[0]
            else:                      # every read by the first atomic's wave: another's
                other, first = reads[0], atomics[wave[atomics] != wave[reads[0]]][0]
        same = self.strict and bool(kd[other] == WRITE and val[first] >= 0
                                    and val[first] == val[other])
        return Race(self.space, int(w[first]), (int(o[first]), int(l[first])),
                    (int(o[other]), int(l[other])),
                    (KIND_NAMES[kd[first]], KIND_NAMES[kd[other]]), same)


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
