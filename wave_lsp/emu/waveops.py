"""Wave operations over a (waves, W) view of the lane array: shuffles, broadcast, ballot,
any/all, exclusive prefix sum and reductions, all honouring the active mask (reference §4.11,
DESIGN.md §1: a shuffle from an inactive or out-of-range lane reads 0 and warns)."""

from __future__ import annotations

import numpy as np

MASK32 = np.uint64(0xFFFFFFFF)


def shuffle(mnemonic: str, src: np.ndarray, sel: np.ndarray, active: np.ndarray, W: int):
    """`wave_shuffle`, `_up`, `_down`, `_xor` and `wave_broadcast`. Returns (values,
    bad_inactive, bad_range) as lane arrays."""
    n = src.size
    waves = n // W
    lane = np.tile(np.arange(W, dtype=np.int64), waves)
    sel64 = sel.astype(np.int64)
    if mnemonic == "wave_shuffle":          # absolute lane
        source = sel64
    elif mnemonic == "wave_shuffle_up":     # lane - delta
        source = lane - sel64
    elif mnemonic == "wave_shuffle_down":   # lane + delta
        source = lane + sel64
    elif mnemonic == "wave_shuffle_xor":
        source = lane ^ sel64
    else:                  # broadcast: lane index from the first active lane of the wave
        act = active.reshape(waves, W)
        first = np.argmax(act, axis=1)
        chosen = sel64.reshape(waves, W)[np.arange(waves), first]
        source = np.repeat(chosen, W)
    in_range = (source >= 0) & (source < W)
    wave_base = np.repeat(np.arange(waves, dtype=np.int64) * W, W)
    absolute = wave_base + np.where(in_range, source, 0)
    src_active = active[absolute] & in_range
    values = np.where(src_active, src[absolute], np.uint32(0)).astype(np.uint32)
    return values, active & in_range & ~src_active, active & ~in_range


def ballot(pred: np.ndarray, active: np.ndarray, W: int) -> np.ndarray:
    waves = pred.size // W
    bitsset = (pred & active).reshape(waves, W)
    weights = np.uint64(1) << np.arange(W, dtype=np.uint64)
    words = (bitsset.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64) & MASK32
    return np.repeat(words.astype(np.uint32), W)


def any_all(mnemonic: str, pred: np.ndarray, active: np.ndarray, W: int) -> np.ndarray:
    waves = pred.size // W
    p = pred.reshape(waves, W)
    act = active.reshape(waves, W)
    if mnemonic == "wave_any":
        result = (p & act).any(axis=1)
    else:
        result = (p | ~act).all(axis=1)
    return np.repeat(result, W)


def prefix_sum(src: np.ndarray, active: np.ndarray, W: int) -> np.ndarray:
    waves = src.size // W
    v = np.where(active, src, np.uint32(0)).astype(np.uint64).reshape(waves, W)
    incl = np.cumsum(v, axis=1, dtype=np.uint64)
    return ((incl - v) & MASK32).astype(np.uint32).reshape(-1)


def reduce(mnemonic: str, src: np.ndarray, active: np.ndarray, W: int) -> np.ndarray:
    """`wave_reduce_add` (wrapping), `_min` and `_max` (unsigned) over the active lanes."""
    waves = src.size // W
    if mnemonic == "wave_reduce_add":
        v = np.where(active, src, np.uint32(0)).astype(np.uint64).reshape(waves, W)
        r = (v.sum(axis=1, dtype=np.uint64) & MASK32).astype(np.uint32)
    elif mnemonic == "wave_reduce_min":
        r = np.where(active, src, np.uint32(0xFFFFFFFF)).reshape(waves, W).min(axis=1)
    else:
        r = np.where(active, src, np.uint32(0)).reshape(waves, W).max(axis=1)
    return np.repeat(r.astype(np.uint32), W)
