"""The native core's kernel profile (native/profile.c) as a `profile.ProfileRecord`: the same
record the numpy engine's `profiler.Profiler` fills, so `profile_for` reads either."""

from __future__ import annotations

import numpy as np

from .profile import (MAX_PATTERN_WORDS, MAX_PATTERNS, AccessPattern, ProfileRecord, new_record,
                      record_widths)


def native_spec(wave_width: int) -> tuple:
    """What the core profiles: the widths it records executions at (those of
    `profile.record_widths`) and the bounds on the patterns it keeps (`profile`'s)."""
    return record_widths(wave_width), MAX_PATTERNS, MAX_PATTERN_WORDS


def native_record(kernel, geo, raw) -> ProfileRecord:
    """`raw` = (executions, divergent, lanes, pattern data, entries, dropped) as profile_py.c
    returns them."""
    executions, divergent, lanes, data, entries, dropped = raw
    record = new_record(geo.wave_width, kernel.instructions)
    count = len(record.keys)
    record.executions += np.frombuffer(executions, dtype=np.int64).reshape(count, -1)
    record.divergent += np.frombuffer(divergent, dtype=np.int64).reshape(count, -1)
    record.active_lanes += np.frombuffer(lanes, dtype=np.int64)
    words = np.frombuffer(data or b"", dtype=np.uint32)
    table = np.frombuffer(entries, dtype=np.int64).reshape(-1, 3)
    n = geo.lanes_per_wg
    for offset, length, times in table.tolist():
        index, active, full = (int(v) for v in words[offset:offset + 3])
        body = words[offset + 3:offset + length]
        lanes_of = None if full else body[:active].astype(np.int64)
        addresses = body[active:] if not full else body
        record.accesses[index].patterns[offset] = AccessPattern(
            lanes_of, addresses.copy(), n, n, int(times))
        record.pattern_words += length - 3
    counted = np.frombuffer(dropped, dtype=np.int64).reshape(-1, 2)
    for index in np.flatnonzero(counted[:, 0]).tolist():
        acc = record.accesses[index]
        acc.dropped, acc.dropped_lanes = (int(v) for v in counted[index])
    return record
