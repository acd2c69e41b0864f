"""NaN results of the float instructions, chosen bit by bit as upstream's emulator gives them.

Measured with upstream's `wave-emu` (its f32 arithmetic is x86-64 SSE, its f16 the `half` crate):
- an operation with NaN operands returns the first of them in the instruction's order of
  precedence, made quiet (the order of its operands, but b, a, c for the multiply-adds and b, a
  for `hadd`/`hmul`/`hadd2`/`hmul2`: alu.FUNCTIONS passes it); signalling or quiet does not
  matter;
- an invalid operation (inf - inf, 0 * inf, 0 / 0, sqrt(-1)) returns the negative default NaN;
- `ffloor`, `fceil` and `ftrunc` return a NaN operand as it is (a signalling one stays so);
- f16 -> f32 and f32 -> f16 make a NaN quiet, its payload shifted (`half_nan_to_f32`,
  `f32_nan_to_half`); f32 <-> f64 the same (the processor's casts); bf16 shifts bits.

numpy's own loops answer two NaNs by the array's length and the element's place (a vector body
and a scalar tail pass the operands differently) and convert f16 NaNs in software or with F16C, so
the numpy engine computes the ordinary result and then `settle`s the NaN lanes here. The native
core applies the same rules (native/exec.h `nan_settle`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class NanFormat:
    """A float format's NaN bits on integer words: magnitude mask, infinity, quiet bit and the
    default NaN of an invalid operation."""

    magnitude: int
    infinity: int
    quiet: int
    default: int
    word: type = np.uint32

    def is_nan(self, x: np.ndarray) -> np.ndarray:
        return (x & self.word(self.magnitude)) > self.word(self.infinity)


F32 = NanFormat(0x7FFFFFFF, 0x7F800000, 0x00400000, 0xFFC00000)
F16 = NanFormat(0x7FFF, 0x7C00, 0x0200, 0xFE00)
BF16 = NanFormat(0x7FFF, 0x7F80, 0x0040, 0xFFC0)
F64 = NanFormat(0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000, 1 << 51, 0xFFF8000000000000, np.uint64)

def has_nan(x: np.ndarray) -> bool:
    """Whether the float array holds a NaN (a sum first: one pass, no temporary array)."""
    total = np.add.reduce(x if x.ndim == 1 else x.reshape(-1))
    return not math.isfinite(total) and bool(np.isnan(x).any())


def settle(fmt: NanFormat, result: np.ndarray, operands) -> np.ndarray:
    """`result` (bit patterns) with its NaN lanes as upstream's: the first NaN of `operands` (bit
    patterns in order of precedence, broadcastable) made quiet, else the default NaN."""
    nan = fmt.is_nan(result)
    if not nan.any():
        return result
    word = fmt.word
    out = np.where(nan, word(fmt.default), result)
    for x in reversed(operands):
        out = np.where(nan & fmt.is_nan(x), x | word(fmt.quiet), out)
    return out.astype(word, copy=False)


def settle_f32(result: np.ndarray, operands) -> np.ndarray:
    """`settle` of an f32 array over f32 operand arrays, as an f32 array."""
    if not has_nan(result):
        return result
    bits = [np.asarray(x, dtype=np.float32).view(np.uint32) for x in operands]
    return settle(F32, np.asarray(result, dtype=np.float32).view(np.uint32), bits).view(np.float32)


def settle_f64(result: np.ndarray, operands) -> np.ndarray:
    """`settle` of an f64 array over f64 operand arrays, as an f64 array."""
    if not has_nan(result):
        return result
    bits = [np.asarray(x, dtype=np.float64).view(np.uint64) for x in operands]
    return settle(F64, np.asarray(result, dtype=np.float64).view(np.uint64), bits).view(np.float64)


def keep_nan(result: np.ndarray, a: np.ndarray) -> np.ndarray:
    """A rounding (floor, ceil, trunc) of the f32 bit patterns `a`: a NaN operand as it is."""
    return np.where(F32.is_nan(a), a, result).astype(np.uint32, copy=False)


def half_nan_to_f32(h: np.ndarray, converted: np.ndarray) -> np.ndarray:
    """f16 -> f32 bit patterns `converted` of the low halves of `h`, NaNs made quiet."""
    h = h & np.uint32(0xFFFF)
    nan = F16.is_nan(h)
    if not nan.any():
        return converted
    quiet = ((h & np.uint32(0x8000)) << np.uint32(16)) | np.uint32(0x7FC00000) \
        | ((h & np.uint32(0x3FF)) << np.uint32(13))
    return np.where(nan, quiet, converted).astype(np.uint32, copy=False)


def f32_nan_to_half(x: np.ndarray, converted: np.ndarray) -> np.ndarray:
    """f32 -> f16 results `converted` of the bit patterns `x`, NaNs made quiet with the high 10
    bits of their payload."""
    nan = F32.is_nan(x)
    if not nan.any():
        return converted
    quiet = ((x >> np.uint32(16)) & np.uint32(0x8000)) | np.uint32(0x7E00) \
        | ((x >> np.uint32(13)) & np.uint32(0x3FF))
    return np.where(nan, quiet, converted).astype(np.uint32, copy=False)


def mma_step(acc: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One k step of `mma_compute` on f32 arrays: acc + a * b, each rounded to f32, with the
    product's first NaN factor (a's, then b's) and then the sum's first NaN of the product and
    acc, as upstream."""
    p = a * b
    s = p + acc
    if not has_nan(s):
        return s
    p = settle_f32(p, (a, b))
    return settle_f32(s, (p, acc))
