"""Do the workgroups of a batch touch the same device memory? (exactness of batching, and races)

The engine runs many workgroups of a launch in lock-step, but the result must be that of running
them one at a time, in order (DESIGN.md §1). That holds unless one workgroup of a batch reads or
writes a device word another one writes. `AccessLog` records, per batch, the device words each
load, store and atomic touches with the workgroup and instruction of every lane; `find_conflict`
says whether two workgroups met on a word with at least one write. The engine then runs the
launch again one workgroup at a time; the race itself is found and reported from the accesses
of that run (`workgroup_races`), so that the report does not depend on the batches.
Granularity is the 32-bit word (two workgroups writing different bytes of one word count too:
the fallback is then merely slower, never wrong). A batch that logs more than `MAX_LOGGED` words
(long loops over device memory) gives up batching the same way, so memory stays bounded.
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


MAX_LOGGED = 8 << 20      # words logged per batch before batching is given up (memory bound)
DENSE_WORDS = 1 << 26     # device words up to which conflicts are found with a per-word table


class LogFull(Exception):
    """A batch touched too many device words to keep track of: run one workgroup at a time."""


class AccessLog:
    """Device words touched in one batch: (instruction, words, lanes, atomic) per access, reads
    and writes apart (atomics count as writes). `lanes` None means every lane of the batch, in
    order."""

    def __init__(self, n_words: int, wg_of_lane: np.ndarray, on_full=None):
        """`on_full`: called with the log when it passes `MAX_LOGGED` words (it is then
        emptied); None raises `LogFull`."""
        self.n_words = n_words
        self.wg_of_lane = wg_of_lane.astype(np.int32) + 1      # 1-based: 0 means "nobody"
        self.reads: list[tuple[int, np.ndarray, np.ndarray | None, bool, int]] = []
        self.writes: list[tuple[int, np.ndarray, np.ndarray | None, bool, int]] = []
        self.size = 0
        self.sequence = 0       # per record: its place in the order the accesses were made
        self.on_full = on_full

    def record_words(self, index: int, words: np.ndarray, lanes: np.ndarray | None,
                     write: bool, atomic: bool = False) -> None:
        """Lane `lanes[i]` (lane i when None) accessed the 4-byte word `words[i]`."""
        (self.writes if write else self.reads).append((index, words, lanes, atomic,
                                                       self.sequence))
        self.sequence += 1
        self.size += words.size
        if self.size > MAX_LOGGED:
            if self.on_full is None:
                raise LogFull()
            self.on_full(self)
            self.reads, self.writes, self.size = [], [], 0

    def record(self, index: int, byte_addresses: np.ndarray, width: int,
               lanes: np.ndarray | None, write: bool, atomic: bool = False) -> None:
        """`byte_addresses[i]` is lane `lanes[i]`'s (lane i when None) access of `width` bytes."""
        a = np.asarray(byte_addresses, dtype=np.int64)
        first = a >> 2
        last = (a + width - 1) >> 2
        self.record_words(index, first, lanes, write, atomic)
        for extra in range(1, int((last - first).max(initial=0)) + 1):
            more = first + extra
            keep = np.flatnonzero(more <= last)
            self.record_words(index, more[keep], keep if lanes is None else lanes[keep], write,
                              atomic)

    def groups(self, lanes: np.ndarray | None) -> np.ndarray:
        return self.wg_of_lane if lanes is None else self.wg_of_lane[lanes]


def find_conflict(log: AccessLog, lanes_per_wg: int) -> Conflict | None:
    """The first conflict between two workgroups of the batch (the batch is then not exact),
    or None."""
    return _conflict(log, log.writes, log.writes + log.reads)


def _conflict(log: AccessLog, writes, accesses) -> Conflict | None:
    """A word written by one workgroup in `writes` and accessed by another in `accesses`.
    One pass with a per-word owner (the 1-based workgroup that wrote it last)."""
    if not writes or not accesses:
        return None
    if log.n_words > DENSE_WORDS:
        return _conflict_sorted(log, writes, accesses)
    owner = np.zeros(log.n_words, dtype=np.int32)
    for index, words, lanes, *_ in writes:
        owner[words] = log.groups(lanes)
    for index, words, lanes, *_ in accesses:
        seen = owner[words]
        clash = (seen != 0) & (seen != log.groups(lanes))
        if clash.any():
            i = int(np.flatnonzero(clash)[0])
            return _describe(log, writes, index, words, lanes, i,
                             any(a is words for _, a, *_ in writes))
    return None


def _conflict_sorted(log: AccessLog, writes, accesses) -> Conflict | None:
    """`_conflict` for a device memory too large for a per-word table: the written words are
    sorted once, with the lowest and highest workgroup that wrote each."""
    words = np.concatenate([np.asarray(w, dtype=np.int64) for _, w, *_ in writes])
    groups = np.concatenate([log.groups(l) for _, _, l, *_ in writes])
    order = np.lexsort((groups, words))
    words, groups = words[order], groups[order]
    starts = np.flatnonzero(np.r_[True, words[1:] != words[:-1]])
    unique = words[starts]
    low = groups[starts]
    high = groups[np.r_[starts[1:], words.size] - 1]
    for index, w, lanes, *_ in accesses:
        if not w.size:
            continue
        at = np.minimum(np.searchsorted(unique, w), unique.size - 1)
        g = log.groups(lanes)
        clash = (unique[at] == w) & ((low[at] != g) | (high[at] != g))
        if clash.any():
            i = int(np.flatnonzero(clash)[0])
            return _describe(log, writes, index, w, lanes, i,
                             any(a is w for _, a, *_ in writes))
    return None


def _describe(log: AccessLog, writes, index, words, lanes, i: int, write: bool) -> Conflict:
    """The conflict at access `i` of one record, with a write of another workgroup to the same
    word from `writes`."""
    word = int(words[i])
    lane = i if lanes is None else int(lanes[i])
    group = int(log.groups(lanes)[i])
    for windex, wwords, wlanes, *_ in writes:
        hits = np.flatnonzero((wwords == word) & (log.groups(wlanes) != group))
        if hits.size:
            other = int(hits[0]) if wlanes is None else int(wlanes[hits[0]])
            return Conflict(word * 4, (windex, other), (index, lane), write)
    return Conflict(word * 4, (index, lane), (index, lane), write)
