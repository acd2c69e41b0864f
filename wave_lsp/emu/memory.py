"""Device and local memory accesses over whole lane arrays: bounds checks, unaligned accesses,
loads and stores of 1, 2, 4, 8 and 16 bytes, atomics in thread order and the mma tiles.

Addresses are the 32-bit register value zero-extended. Local memory of every workgroup of a
batch lives in one flat array; `Batch.local_base` gives each lane's workgroup slice.
"""

from __future__ import annotations

import numpy as np

from . import messages
from .state import Batch, Fault



class Space:
    """One memory space seen from a batch: flat byte array, u32 view, per-lane base, size."""

    __slots__ = ("name", "mem", "mem32", "base", "size")

    def __init__(self, name, mem, mem32, base, size):
        self.name, self.mem, self.mem32, self.base, self.size = name, mem, mem32, base, size


def device_space(b: Batch) -> Space:
    return Space("device", b.device, b.device32, None, b.device_size)


def local_space(b: Batch) -> Space:
    return Space("local", b.local, b.local32, b.local_base, b.local_size)


def addresses(space: Space, addr: np.ndarray, lanes: np.ndarray | None, width: int,
              warn) -> np.ndarray:
    """Absolute byte indices for the lanes (all lanes when `lanes` is None); checks bounds."""
    a = addr.astype(np.int64) if lanes is None else addr[lanes].astype(np.int64)
    if a.size:
        top = int(a.max())
        if top + width > space.size:
            bad = np.nonzero(a + width > space.size)[0]
            first = bad[0]
            lane_ids = bad if lanes is None else lanes[bad]
            raise Fault("out_of_bounds",
                        messages.out_of_bounds(int(a[first]), width, space.name, space.size),
                        lane_ids, address=int(a[first]), space=space.name, width=width)
        if width > 1 and (a & (min(width, 4) - 1)).any():
            bad = np.nonzero(a & (min(width, 4) - 1))[0]
            warn("unaligned_access", messages.unaligned(width, space.name, int(a[bad[0]])),
                 bad if lanes is None else lanes[bad])
    if space.base is not None:
        a = a + (space.base if lanes is None else space.base[lanes])
    return a


def gather(space: Space, a: np.ndarray, width: int) -> list[np.ndarray]:
    """Read `width` bytes at each absolute index: a list of uint32 words (zero-extended)."""
    if width >= 4 and space.mem32 is not None and not (a & 3).any():
        w = a >> 2
        return [space.mem32[w + i] for i in range(width // 4)]
    if width < 4:
        value = np.zeros(a.shape, dtype=np.uint32)
        for k in range(width):
            value |= space.mem[a + k].astype(np.uint32) << np.uint32(8 * k)
        return [value]
    words = []
    for i in range(width // 4):
        value = np.zeros(a.shape, dtype=np.uint32)
        for k in range(4):
            value |= space.mem[a + 4 * i + k].astype(np.uint32) << np.uint32(8 * k)
        words.append(value)
    return words


def scatter(space: Space, a: np.ndarray, words: list[np.ndarray], width: int) -> None:
    """Write `width` bytes at each absolute index; lanes in thread order, so where accesses
    overlap (one word, or an unaligned or wide access over a neighbour's) later lanes win,
    byte by byte (one assignment of every lane's bytes, lane after lane)."""
    if width >= 4 and space.mem32 is not None and not (a & 3).any():
        w = a >> 2
        if width == 4:
            space.mem32[w] = words[0]
        else:
            count = width // 4
            space.mem32[(w[:, None] + np.arange(count)).reshape(-1)] = \
                np.stack(words, axis=1).reshape(-1)
        return
    parts = [(words[i] >> np.uint32(8 * k)).astype(np.uint8)
             for i in range(max(1, width // 4)) for k in range(min(width, 4))]
    space.mem[(a[:, None] + np.arange(width)).reshape(-1)] = np.stack(parts, axis=1).reshape(-1)


# ---- atomics -------------------------------------------------------------------------------------
ATOMIC_OPERATIONS = ("add", "sub", "min", "max", "and", "or", "xor", "exchange", "cas")


def atomic_operation(spec) -> str:
    """The read-modify-write of an atomic instruction (its table record's `memory.operation`:
    "add" for `atomic_add`, "cas" for `local_atomic_cas`)."""
    operation = spec.memory.operation
    assert operation in ATOMIC_OPERATIONS, spec.mnemonic
    return operation


def _atomic_new(operation: str, old, value, third):
    if operation == "add":
        return old + value
    if operation == "sub":
        return old - value
    if operation == "min":
        return np.minimum(old, value)
    if operation == "max":
        return np.maximum(old, value)
    if operation == "and":
        return old & value
    if operation == "or":
        return old | value
    if operation == "xor":
        return old ^ value
    if operation == "exchange":
        return value.copy()
    # compare-and-swap: store `third` (desired) where memory equals `value` (expected)
    return np.where(old == value, third, old)


def atomic(space: Space, a: np.ndarray, operation: str, value: np.ndarray,
           third: np.ndarray | None) -> np.ndarray:
    """Apply an atomic for lanes in thread order; returns the old values (uint32)."""
    if a.size == 0:
        return np.zeros(0, dtype=np.uint32)
    if (a & 3).any():         # unaligned: lane after lane, each reading what the one before left
        old = np.empty(a.size, dtype=np.uint32)
        for k in range(a.size):
            at = a[k:k + 1]
            cur = gather(space, at, 4)[0]
            scatter(space, at, [_atomic_new(operation, cur, value[k:k + 1],
                                            None if third is None else third[k:k + 1])], 4)
            old[k] = cur[0]
        return old
    order = np.argsort(a, kind="stable")
    sa = a[order]
    starts = np.ones(sa.size, dtype=bool)
    starts[1:] = sa[1:] != sa[:-1]
    if starts.all():                                   # no collisions: one vectorised step
        old = gather(space, a, 4)[0]
        scatter(space, a, [_atomic_new(operation, old, value, third)], 4)
        return old
    group = np.cumsum(starts) - 1
    first_index = np.nonzero(starts)[0]
    rank = np.arange(sa.size) - first_index[group]
    old = np.empty(a.size, dtype=np.uint32)
    if operation in ("add", "sub"):                    # segmented exclusive scan
        v = value[order].astype(np.uint64)
        csum = np.cumsum(v)
        before = csum - v
        base = before[first_index][group]
        excl = (before - base) & np.uint64(0xFFFFFFFF)
        heads = sa[first_index]
        init = gather(space, heads, 4)[0].astype(np.uint64)[group]
        add = operation == "add"
        sold = ((init + excl) if add else (init - excl)) & np.uint64(0xFFFFFFFF)
        old[order] = sold.astype(np.uint32)
        last = np.append(first_index[1:], sa.size) - 1
        total = (excl[last] + v[last]) & np.uint64(0xFFFFFFFF)
        init_heads = init[first_index]
        final = (init_heads + total) if add else (init_heads - total)
        scatter(space, heads, [(final & np.uint64(0xFFFFFFFF)).astype(np.uint32)], 4)
        return old
    for r in range(int(rank.max()) + 1):               # one step per collision depth
        pick = order[rank == r]
        cur = gather(space, a[pick], 4)[0]
        scatter(space, a[pick], [_atomic_new(operation, cur, value[pick],
                                             None if third is None else third[pick])], 4)
        old[pick] = cur
    return old


# ---- mma (4x4x4 f32 tiles in local memory, per lane) --------------------------------------------
def mma_tile_addresses(space: Space, addr, stride, lanes, warn) -> np.ndarray:
    """(lanes, 16) absolute byte indices of a 4x4 tile: addr + row*stride + col*4."""
    base = addr[lanes].astype(np.int64)
    step = stride[lanes].astype(np.int64)
    rows = np.arange(4, dtype=np.int64)
    offs = base[:, None, None] + rows[None, :, None] * step[:, None, None] \
        + 4 * rows[None, None, :]
    flat = offs.reshape(len(lanes), 16)
    per_lane = np.repeat(lanes, 16)
    absolute = addresses(space, flat.reshape(-1).astype(np.uint32), None, 4, warn) \
        if space.base is None else None
    if absolute is None:
        # local: bounds-check the relative addresses, then add each lane's base
        rel = flat.reshape(-1)
        if rel.size and (rel.max() + 4 > space.size or rel.min() < 0):
            bad = np.nonzero((rel + 4 > space.size) | (rel < 0))[0]
            raise Fault("out_of_bounds", messages.mma_tile_out_of_bounds(int(rel[bad[0]]),
                                                                        space.size),
                        np.unique(per_lane[bad]), address=int(rel[bad[0]]), space="local",
                        width=4)
        absolute = rel + space.base[per_lane]
    return absolute.reshape(len(lanes), 16)
