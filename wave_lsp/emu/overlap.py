"""Do the workgroups of a batch touch the same device memory? (exactness of batching, and races)

The engine runs many workgroups of a launch in lock-step, but the result must be that of running
them one at a time, in order (DESIGN.md §1). That holds unless one workgroup of a batch reads or
writes a device word another one writes. `AccessLog` records, per batch, the device words each
load, store and atomic touches with the workgroup and instruction of every lane; `find_conflict`
says whether two workgroups met on a word with at least one write. The engine then runs the
launch again one workgroup at a time, and the conflict is reported as a `data_race` warning:
workgroups have no way to order their accesses but atomics, so such a pair is a race on a GPU.
Granularity is the 32-bit word (two workgroups writing different bytes of one word count too:
the fallback is then merely slower, never wrong).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Conflict:
    """Two accesses of different workgroups to one device word, at least one a write."""

    address: int               # byte address of the word
    first: tuple[int, int]     # (instruction index, batch lane) of the write
    second: tuple[int, int]    # (instruction index, batch lane) of the other access
    second_writes: bool


class AccessLog:
    """Device words touched in one batch: (words, lanes, instruction) per access, reads and
    writes apart. Atomics count as writes."""

    def __init__(self, n_words: int):
        self.n_words = n_words
        self.reads: list[tuple[np.ndarray, np.ndarray | None, int]] = []
        self.writes: list[tuple[np.ndarray, np.ndarray | None, int]] = []

    def record(self, index: int, byte_addresses: np.ndarray, width: int,
               lanes: np.ndarray | None, write: bool) -> None:
        """`byte_addresses[i]` is lane `lanes[i]`'s (all lanes when None) access of `width`."""
        a = np.asarray(byte_addresses, dtype=np.int64)
        first = a >> 2
        last = (a + width - 1) >> 2
        target = self.writes if write else self.reads
        target.append((first, lanes, index))
        for extra in range(1, int((last - first).max(initial=0)) + 1):
            more = first + extra
            keep = more <= last
            target.append((more[keep], None if lanes is None and keep.all() else
                           (np.flatnonzero(keep) if lanes is None else lanes[keep]), index))

    def clear(self) -> None:
        self.reads.clear()
        self.writes.clear()


def _flatten(entries, lanes_per_wg: int):
    words, lanes, ops = [], [], []
    for w, l, index in entries:
        if not w.size:
            continue
        lane = np.arange(w.size, dtype=np.int64) if l is None else np.asarray(l, np.int64)
        words.append(w)
        lanes.append(lane)
        ops.append(np.full(w.size, index, dtype=np.int64))
    if not words:
        return None
    w, l, o = np.concatenate(words), np.concatenate(lanes), np.concatenate(ops)
    return w, l, o, l // lanes_per_wg


def find_conflict(log: AccessLog, lanes_per_wg: int) -> Conflict | None:
    """The first conflict between two workgroups of the batch, or None."""
    writes = _flatten(log.writes, lanes_per_wg)
    if writes is None:
        return None
    w, l, o, g = writes
    owner = np.empty(log.n_words, dtype=np.int64)       # which write last hit each word
    order = np.arange(w.size, dtype=np.int64)
    owner[w] = order
    clash = np.flatnonzero(g[owner[w]] != g)
    if clash.size:
        i = int(clash[0])
        j = int(owner[w[i]])
        return Conflict(int(w[i]) * 4, (int(o[j]), int(l[j])), (int(o[i]), int(l[i])), True)
    reads = _flatten(log.reads, lanes_per_wg)
    if reads is None:
        return None
    rw, rl, ro, rg = reads
    written = np.zeros(log.n_words, dtype=bool)
    written[w] = True
    hit = np.flatnonzero(written[rw])
    if not hit.size:
        return None
    writer = owner[rw[hit]]
    bad = np.flatnonzero(g[writer] != rg[hit])
    if not bad.size:
        return None
    i = int(hit[bad[0]])
    j = int(writer[bad[0]])
    return Conflict(int(rw[i]) * 4, (int(o[j]), int(l[j])), (int(ro[i]), int(rl[i])), False)
