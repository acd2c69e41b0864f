"""Data races between workgroups, as running them one at a time, in order, finds them.

The engine runs workgroups in batches (`overlap` makes a batch whose workgroups met run again
one at a time), but which race a launch reports must not depend on those batches. `LaunchShadow`
keeps, per device word, the first plain write, the first atomic and the first plain read of the
launch so far (thread and instruction); `fold` adds a batch's accesses (`overlap.AccessLog`) in
the order running one workgroup at a time makes them: by workgroup, then access (the words a
lane's access spans past its first come as a later access), then thread. The first access that
meets another workgroup's earlier one is the launch's race (one a launch), checked in this order:
- another workgroup's plain write of the word (any access meets it): that write, this access;
- another workgroup's atomic (a plain access meets it): that atomic, this access;
- another workgroup's plain read (a plain write or an atomic meets it): this access, that read.
Atomics meeting atomics are no race. Within a batch no two workgroups meet (`overlap` checked it,
or the batch runs again), so an access only meets workgroups of earlier batches, and the first
access of each kind is all a word needs. The shadow's arrays are zeroed pages, touched only
where the kernel accesses memory.
"""

from __future__ import annotations

import numpy as np

from .race_report import Meeting

PLAIN, ATOMIC, READ = 0, 1, 2
INDEX_BITS = 24             # a record: (thread << INDEX_BITS | instruction index) + 1; 0: nobody
                            # (native/meeting.c keeps the same records)


class LaunchShadow:
    """The first access of each kind per device word, over the workgroups run so far."""

    def __init__(self, n_words: int, threads_per_wg: int):
        self.n_words = n_words
        self.per_wg = threads_per_wg
        self.first: dict[int, np.ndarray] = {}
        self.meeting: Meeting | None = None

    def fold(self, log, b, keep: bool = True) -> None:
        """Add the accesses of `log` (batch `b`'s); the first that meets another workgroup's
        becomes `meeting` (after which nothing more is tracked). `keep` False: no workgroup
        runs after these (they are only checked)."""
        if self.meeting is not None or not (keep or self.first):
            return
        parts = [(r, ATOMIC if r[3] else PLAIN) for r in log.writes]
        parts += [(r, READ) for r in log.reads]
        parts = [(r, kind) for r, kind in parts if r[1].size]
        if not parts:
            return
        words = np.concatenate([np.asarray(r[1], dtype=np.int64) for r, _ in parts])
        lanes = np.concatenate([np.arange(r[1].size, dtype=np.int64) if r[2] is None
                                else np.asarray(r[2], dtype=np.int64) for r, _ in parts])
        index = np.concatenate([np.full(r[1].size, r[0], dtype=np.int64) for r, _ in parts])
        kind = np.concatenate([np.full(r[1].size, k, dtype=np.int8) for r, k in parts])
        sequence = np.concatenate([np.full(r[1].size, r[4], dtype=np.int64) for r, _ in parts])
        thread = ((b.first_wg + lanes // b.lanes_per_wg) * self.per_wg
                  + lanes % b.lanes_per_wg)
        wg = thread // self.per_wg
        record = ((thread << INDEX_BITS) | index) + 1
        met = np.zeros(words.size, dtype=bool)
        met_kind = np.zeros(words.size, dtype=np.int8)
        seen_at = np.zeros(words.size, dtype=np.int64)
        for earlier, meets in ((PLAIN, None), (ATOMIC, kind != ATOMIC), (READ, kind != READ)):
            table = self.first.get(earlier)
            if table is None:
                continue
            seen = table[words]
            hit = (seen > 0) & (((seen - 1) >> INDEX_BITS) // self.per_wg != wg) & ~met
            if meets is not None:
                hit &= meets
            met_kind[hit] = earlier
            seen_at[hit] = seen[hit]
            met |= hit
        if not (keep or met.any()):
            return
        order = np.lexsort((thread, sequence, wg))
        if met.any():
            i = int(order[met[order]][0])
            seen = int(seen_at[i]) - 1
            mine = (int(index[i]), int(thread[i]))
            theirs = (seen & ((1 << INDEX_BITS) - 1), seen >> INDEX_BITS)
            if met_kind[i] == READ:
                self.meeting = Meeting(int(words[i]) * 4, mine, theirs, False)
            else:
                self.meeting = Meeting(int(words[i]) * 4, theirs, mine, bool(kind[i] != READ))
            return
        for each in (PLAIN, ATOMIC, READ):
            chosen = order[kind[order] == each]
            if not chosen.size:
                continue
            unique, at = np.unique(words[chosen], return_index=True)
            source = chosen[at]
            table = self.first.get(each)
            if table is None:
                table = self.first[each] = np.zeros(self.n_words, dtype=np.int64)
            empty = table[unique] == 0
            table[unique[empty]] = record[source[empty]]
