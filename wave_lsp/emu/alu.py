"""Value semantics of the arithmetic, bitwise, compare, convert and move instructions, as numpy
functions over whole lane arrays (DESIGN.md §1, reference §4.10).

`FUNCTIONS[mnemonic] = fn`; what the operands hold comes from the instruction table
(`signature(spec)`: one letter per source field in the order rs1, rs2, rs3, rs4 and one for
the destination — `u` a 32-bit register, `d` an f64 register pair, `p` a predicate). `fn` takes
the source arrays (uint32 for `u`, float64 for `d`, bool for `p`) and returns the destination
array. Nothing here knows about masks or lanes.
"""

from __future__ import annotations

import numpy as np

from . import libm
from . import nan_results as nans
from .plan import signature  # noqa: F401 - part of the ALU's interface

U32, I32, F32 = np.uint32, np.int32, np.float32
MASK32 = 0xFFFFFFFF


def f(a: np.ndarray) -> np.ndarray:
    return a.view(F32)


def s(a: np.ndarray) -> np.ndarray:
    return a.view(I32)


def bits(x: np.ndarray) -> np.ndarray:
    """f32 array -> its uint32 bit patterns."""
    return np.asarray(x, dtype=F32).view(U32)


def wrap(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, dtype=np.int64) & MASK32).astype(U32)


# ---- integer -----------------------------------------------------------------------------------
def _idiv(a, b):
    a64, b64 = s(a).astype(np.int64), s(b).astype(np.int64)
    zero = b64 == 0
    safe = np.where(zero, 1, b64)
    q = np.abs(a64) // np.abs(safe)
    q = np.where((a64 < 0) != (safe < 0), -q, q)
    return wrap(np.where(zero, 0, q))


def _imod(a, b):
    a64, b64 = s(a).astype(np.int64), s(b).astype(np.int64)
    zero = b64 == 0
    safe = np.where(zero, 1, b64)
    r = np.abs(a64) % np.abs(safe)
    r = np.where(a64 < 0, -r, r)
    return wrap(np.where(zero, 0, r))


def _imul_hi(a, b):
    return wrap((s(a).astype(np.int64) * s(b).astype(np.int64)) >> 32)


def _shift(b):
    return b & U32(31)


# ---- bit operations ------------------------------------------------------------------------------
_BYTE_REVERSE = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def _bitrev(a):
    b = a.astype("<u4").view(np.uint8).reshape(-1, 4)
    return _BYTE_REVERSE[b[:, ::-1]].reshape(-1).view("<u4").astype(U32)


def _bitfind(a):
    exponent = np.frexp(a.astype(np.float64))[1]       # bit length for a > 0
    return np.where(a == 0, U32(MASK32), (32 - exponent).astype(U32))


def _low_mask(width):
    return ((np.uint64(1) << (width & U32(31)).astype(np.uint64)) - np.uint64(1))


def _bfe(src, off, width):
    return ((src.astype(np.uint64) >> (off & U32(31)).astype(np.uint64))
            & _low_mask(width)).astype(U32)


def _bfi(base, ins, off, width):
    sh = (off & U32(31)).astype(np.uint64)
    m = (_low_mask(width) << sh) & np.uint64(MASK32)
    out = (base.astype(np.uint64) & ~m) | ((ins.astype(np.uint64) << sh) & m)
    return (out & np.uint64(MASK32)).astype(U32)


# ---- f32 -----------------------------------------------------------------------------------------
def _fround(a):
    x = f(a).astype(np.float64)
    return bits(np.trunc(x + np.copysign(0.5, x)).astype(F32))


_BELOW_F32 = np.uint64((1 << 29) - 1)   # f64 significand bits below f32's ...
_F32_HALF = np.uint64(1 << 28)          # ... holding exactly half an f32 ulp: a tie


def fma_scratch(shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Work arrays for `fma_f32` results of `shape` (reused, no allocation per instruction)."""
    return (np.empty(shape, dtype=np.float64), np.empty(shape, dtype=np.uint64),
            np.empty(shape, dtype=bool))


def fma_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray,
            scratch=None, out: np.ndarray | None = None) -> np.ndarray:
    """Fused multiply-add of f32 arrays with a single rounding (into `out` when given). The
    operands may have any shapes that broadcast together (`fusion` runs several fma at once on
    (instructions, lanes) arrays); `scratch`: `fma_scratch(shape)` of the result's shape, or
    a float64 array of it.

    a*b is exact in f64, so the only error of `f32(f64(a*b) + c)` is a double rounding: the f64
    sum lands exactly halfway between two f32 values although the exact sum does not. Only those
    lanes are redone: the sum's exact error is found with TwoSum and the sum is rounded to odd
    (of its two f64 neighbours, the one with an odd last bit), which then rounds to the correct
    f32 (Boldo and Melquiond's round-to-odd theorem). Results in the f32 subnormal range, where
    the tie test does not apply, keep the f64 sum's rounding: spec v0.2 §6.4 lets
    implementations flush them to zero altogether."""
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape) if out is None else out.shape
    if not isinstance(scratch, tuple):
        scratch = (scratch, None, None)
    s, low, tie = scratch
    if s is None or s.shape != shape:
        s, low = np.empty(shape, dtype=np.float64), None
    np.multiply(a, b, out=s, dtype=np.float64)
    np.add(s, c, out=s, dtype=np.float64)
    if low is None or low.shape != shape:
        low, tie = np.empty(shape, dtype=np.uint64), np.empty(shape, dtype=bool)
    np.bitwise_and(s.view(np.uint64), _BELOW_F32, out=low)
    np.equal(low, _F32_HALF, out=tie)
    if tie.any():
        i = np.nonzero(tie)
        x = np.broadcast_to(a, shape)[i].astype(np.float64) * \
            np.broadcast_to(b, shape)[i].astype(np.float64)
        y = np.broadcast_to(c, shape)[i].astype(np.float64)
        t = s[i]
        v = t - x
        err = (x - (t - v)) + (y - v)
        even = (t.view(np.uint64) & np.uint64(1)) == 0
        fix = (err != 0) & even & np.isfinite(t)
        t[fix] = np.nextafter(t[fix], np.where(err[fix] > 0, np.inf, -np.inf))
        s[i] = t
    if nans.has_nan(s):                 # upstream's NaN: b's, a's or c's, else the default
        np.copyto(s, nans.settle_f32(s.astype(F32), (b, a, c)).astype(np.float64))
    if out is not None:
        if out is not s:
            np.copyto(out, s, casting="same_kind")
        return out
    return s.astype(F32)


def _fma(a, b, c):
    return bits(fma_f32(f(a), f(b), f(c)))


def _libm(mnemonic):
    """fsin, fcos, fexp2 or flog2: the C library's function, NaNs as it answers (libm.py)."""
    return lambda a: bits(libm.apply(mnemonic, f(a)))


def _f32_binary(fn):
    def run(a, b):
        r = fn(f(a), f(b))
        return bits(r) if not nans.has_nan(r) else nans.settle(nans.F32, bits(r), (a, b))
    return run


def f32_binary_into(ufunc, R, F, a: int, c: int, rd: int) -> None:
    """Row rd = `ufunc`(row a, row c) of a whole batch (R its words, F the same as f32), in
    place unless rd is an operand, NaN lanes settled from the operands (still intact)."""
    alias = rd in (a, c)
    r = ufunc(F[a], F[c]) if alias else ufunc(F[a], F[c], out=F[rd])
    if nans.has_nan(r):
        R[rd] = nans.settle(nans.F32, r.view(U32), (R[a], R[c]))
    elif alias:
        F[rd] = r


def _f32_unary(fn):
    """A one-operand f32 instruction: a NaN operand made quiet, an invalid one the default NaN."""
    return lambda a: nans.settle(nans.F32, bits(fn(f(a))), (a,))


def _f32_rounding(fn):
    """ffloor / fceil / ftrunc: a NaN operand as it is (upstream rounds in software)."""
    return lambda a: nans.keep_nan(bits(fn(f(a))), a)


# fmin, fmax, fclamp and fsat as upstream computes them (Rust's f32 min, max and clamp): a NaN
# operand of min/max gives the other (both NaN: the second), equal operands (+0 and -0) the
# first; clamp keeps x unless it compares below lo or above hi (a NaN x stays, bits and all).
# Chosen bit patterns, never arithmetic: np.fmin/np.fmax/np.clip answer these cases by the
# array's length and the element's place (their vector loops differ from the scalar tail).
def _pick(take_second, second, first):
    return np.where(take_second, second, first).astype(U32, copy=False)


def _clamp(a, lo, hi):
    low = _pick(f(a) < f(lo), lo, a)
    return _pick(f(low) > f(hi), hi, low)


# ---- f16 / bf16 ----------------------------------------------------------------------------------
def half_to_f32(h):
    return (h & U32(0xFFFF)).astype(np.uint16).view(np.float16).astype(F32)


def f32_to_half(x):
    return np.asarray(x, dtype=F32).astype(np.float16).view(np.uint16).astype(U32)


def bf16_to_f32(h):
    return ((h & U32(0xFFFF)) << U32(16)).view(F32)


def f32_to_bf16(x):
    return bits(x) >> U32(16)


def _value16(to32, from32, op, nan, order, halves):
    """`op` on the 16-bit values `halves` (low halves of words), NaN lanes as upstream's."""
    halves = [h & U32(0xFFFF) for h in halves]
    r = op(*(to32(h) for h in halves))
    if not nans.has_nan(r):
        return from32(r)
    return nans.settle(nan, from32(r), [halves[i] for i in order])


def _scalar16(to32, from32, op, nan, order):
    return lambda *regs: _value16(to32, from32, op, nan, order, regs)


def _packed16(to32, from32, op, nan, order):
    def run(*regs):
        lo = _value16(to32, from32, op, nan, order, regs)
        hi = _value16(to32, from32, op, nan, order, [r >> U32(16) for r in regs])
        return lo | (hi << U32(16))
    return run


def _f64(fn, order):
    return lambda *xs: nans.settle_f64(fn(*xs), [xs[i] for i in order])


_H, _B, _AB, _BA, _BAC = nans.F16, nans.BF16, (0, 1), (1, 0), (1, 0, 2)
_ADD = lambda a, b: a + b          # noqa: E731
_SUB = lambda a, b: a - b          # noqa: E731
_MUL = lambda a, b: a * b          # noqa: E731
_MA = lambda a, b, c: a * b + c    # noqa: E731


# ---- conversions ---------------------------------------------------------------------------------
def _cvt_i32_f32(a):
    x = np.nan_to_num(np.trunc(f(a).astype(np.float64)), nan=0.0)
    return wrap(np.clip(x, -2.0**31, 2.0**31 - 1).astype(np.int64))


def _cvt_u32_f32(a):
    x = np.nan_to_num(np.trunc(f(a).astype(np.float64)), nan=0.0)
    return np.clip(x, 0.0, 2.0**32 - 1).astype(np.uint64).astype(U32)


FUNCTIONS: dict[str, object] = {
    # integer
    "iadd": lambda a, b: a + b,
    "isub": lambda a, b: a - b,
    "imul": lambda a, b: a * b,
    "imul_hi": _imul_hi,
    "imad": lambda a, b, c: a * b + c,
    "idiv": _idiv,
    "imod": _imod,
    "ineg": lambda a: U32(0) - a,
    "iabs": lambda a: np.abs(s(a)).view(U32),
    "imin": lambda a, b: np.minimum(s(a), s(b)).view(U32),
    "imax": lambda a, b: np.maximum(s(a), s(b)).view(U32),
    "iclamp": lambda a, lo, hi: np.minimum(np.maximum(s(a), s(lo)), s(hi)).view(U32),
    # f32
    "fadd": _f32_binary(np.add),
    "fsub": _f32_binary(np.subtract),
    "fmul": _f32_binary(np.multiply),
    "fma": _fma,
    "fdiv": _f32_binary(np.divide),
    "fneg": lambda a: a ^ U32(0x80000000),
    "fabs": lambda a: a & U32(0x7FFFFFFF),
    "fmin": lambda a, b: _pick(np.isnan(f(a)) | (f(b) < f(a)), b, a),
    "fmax": lambda a, b: _pick(np.isnan(f(a)) | (f(b) > f(a)), b, a),
    "fclamp": lambda a, lo, hi: _clamp(a, lo, hi),
    "fsqrt": _f32_unary(np.sqrt),
    "frsqrt": _f32_unary(lambda x: F32(1) / np.sqrt(x)),
    "frcp": _f32_unary(lambda x: F32(1) / x),
    "ffloor": _f32_rounding(np.floor),
    "fceil": _f32_rounding(np.ceil),
    "fround": _fround,
    "ftrunc": _f32_rounding(np.trunc),
    "ffract": _f32_unary(lambda x: x - np.trunc(x)),
    "fsat": lambda a: _clamp(a, U32(0), U32(0x3F800000)),
    **{mnemonic: _libm(mnemonic) for mnemonic in libm.FUNCTIONS},
    # f16 / bf16 (computed in f32, rounded to f16 / truncated to bf16)
    "hadd": _scalar16(half_to_f32, f32_to_half, _ADD, _H, _BA),
    "hsub": _scalar16(half_to_f32, f32_to_half, _SUB, _H, _AB),
    "hmul": _scalar16(half_to_f32, f32_to_half, _MUL, _H, _BA),
    "hma": _scalar16(half_to_f32, f32_to_half, _MA, _H, _BAC),
    "hadd2": _packed16(half_to_f32, f32_to_half, _ADD, _H, _BA),
    "hmul2": _packed16(half_to_f32, f32_to_half, _MUL, _H, _BA),
    "hma2": _packed16(half_to_f32, f32_to_half, _MA, _H, _BAC),
    "badd": _scalar16(bf16_to_f32, f32_to_bf16, _ADD, _B, _AB),
    "bsub": _scalar16(bf16_to_f32, f32_to_bf16, _SUB, _B, _AB),
    "bmul": _scalar16(bf16_to_f32, f32_to_bf16, _MUL, _B, _AB),
    "bma": _scalar16(bf16_to_f32, f32_to_bf16, _MA, _B, _BAC),
    "badd2": _packed16(bf16_to_f32, f32_to_bf16, _ADD, _B, _AB),
    "bmul2": _packed16(bf16_to_f32, f32_to_bf16, _MUL, _B, _AB),
    "bma2": _packed16(bf16_to_f32, f32_to_bf16, _MA, _B, _BAC),
    # f64 on register pairs
    "dadd": _f64(np.add, _AB),
    "dsub": _f64(np.subtract, _AB),
    "dmul": _f64(np.multiply, _AB),
    "dma": _f64(lambda a, b, c: a * b + c, _BAC),
    "ddiv": _f64(np.divide, _AB),
    "dsqrt": _f64(np.sqrt, (0,)),
    # bitwise
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "not": np.invert,
    "shl": lambda a, b: a << _shift(b),
    "shr": lambda a, b: a >> _shift(b),
    "sar": lambda a, b: (s(a) >> _shift(b).view(I32)).view(U32),
    "bitcount": lambda a: np.bitwise_count(a).astype(U32),
    "bitfind": _bitfind,
    "bitrev": _bitrev,
    "bfe": _bfe,
    "bfi": _bfi,
    # compares and select
    "icmp_eq": lambda a, b: a == b,
    "icmp_ne": lambda a, b: a != b,
    "icmp_lt": lambda a, b: s(a) < s(b),
    "icmp_le": lambda a, b: s(a) <= s(b),
    "icmp_gt": lambda a, b: s(a) > s(b),
    "icmp_ge": lambda a, b: s(a) >= s(b),
    "ucmp_lt": lambda a, b: a < b,
    "ucmp_le": lambda a, b: a <= b,
    "fcmp_eq": lambda a, b: f(a) == f(b),
    "fcmp_ne": lambda a, b: f(a) != f(b),
    "fcmp_lt": lambda a, b: f(a) < f(b),
    "fcmp_le": lambda a, b: f(a) <= f(b),
    "fcmp_gt": lambda a, b: f(a) > f(b),
    "fcmp_ord": lambda a, b: ~(np.isnan(f(a)) | np.isnan(f(b))),
    "fcmp_unord": lambda a, b: np.isnan(f(a)) | np.isnan(f(b)),
    "select": lambda p, a, b: np.where(p, a, b),
    # conversions (cvt_A_B converts B to A)
    "cvt_f32_i32": lambda a: bits(s(a).astype(F32)),
    "cvt_f32_u32": lambda a: bits(a.astype(F32)),
    "cvt_i32_f32": _cvt_i32_f32,
    "cvt_u32_f32": _cvt_u32_f32,
    "cvt_f32_f16": lambda a: nans.half_nan_to_f32(a, bits(half_to_f32(a))),
    "cvt_f16_f32": lambda a: nans.f32_nan_to_half(a, f32_to_half(f(a))),
    "cvt_f32_f64": lambda d: bits(d.astype(F32)),
    "cvt_f64_f32": lambda a: f(a).astype(np.float64),
    "cvt_f32_bf16": lambda a: bits(bf16_to_f32(a)),
    "cvt_bf16_f32": lambda a: a >> U32(16),
    # moves
    "mov": lambda a: a.copy(),
}


def pair_to_f64(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return ((hi.astype(np.uint64) << np.uint64(32)) | lo.astype(np.uint64)).view(np.float64)


def f64_to_pair(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b = np.asarray(x, dtype=np.float64).view(np.uint64)
    return (b & np.uint64(MASK32)).astype(U32), (b >> np.uint64(32)).astype(U32)
