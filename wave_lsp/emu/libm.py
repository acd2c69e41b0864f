"""`fsin`, `fcos`, `fexp2` and `flog2` as upstream computes them: the C library's `sinf`, `cosf`,
`exp2f` and `log2f`.

Upstream's emulator computes them with Rust's `f32::sin`, `cos`, `exp2` and `log2`, which call the
platform's C library. numpy's own loops are other approximations: on an x86-64 machine they
answer about one value in six (`fsin`, `fexp2`) with a different last bit. So both engines call
the C library: the native core directly (alu.c's `transcendental`), the numpy engine through the
core's loop over an array (`_wavecore.transcendental`), or through ctypes one value at a time
where the core is not built or is turned off (`WAVE_LSP_NATIVE=0`). Where no C library can be
loaded at all, numpy's functions are the last resort.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache

import numpy as np

from .native import core

# The C library's function of each instruction, and numpy's (the last resort).
FUNCTIONS = {"fsin": "sinf", "fcos": "cosf", "fexp2": "exp2f", "flog2": "log2f"}
_NUMPY = {"fsin": np.sin, "fcos": np.cos, "fexp2": np.exp2, "flog2": np.log2}


@cache
def _library() -> ctypes.CDLL | None:
    """The C library with the single-precision maths functions, or None."""
    names = ["ucrtbase"] if sys.platform == "win32" else [ctypes.util.find_library("m"),
                                                          "libm.so.6"]
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


@cache
def _ctypes_function(mnemonic: str):
    """`mnemonic`'s C function through ctypes, as a numpy ufunc over objects; None without one."""
    library = _library()
    function = getattr(library, FUNCTIONS[mnemonic], None) if library is not None else None
    if function is None:
        return None
    function.restype = ctypes.c_float
    function.argtypes = [ctypes.c_float]
    return np.frompyfunc(function, 1, 1)


def through_ctypes(mnemonic: str, x: np.ndarray) -> np.ndarray | None:
    """`mnemonic` of each f32 of `x` through ctypes, or None where the C library is missing."""
    ufunc = _ctypes_function(mnemonic)
    if ufunc is None:
        return None
    with np.errstate(all="ignore"):        # the C library's flags (log2f(-1): invalid)
        return np.asarray(ufunc(x), dtype=np.float32)


def apply(mnemonic: str, x: np.ndarray) -> np.ndarray:
    """`mnemonic` (fsin, fcos, fexp2 or flog2) of each f32 of `x`, as a new f32 array."""
    out = np.array(x, dtype=np.float32, copy=True)
    native = core()
    if native is not None:
        native.transcendental(mnemonic, out)
        return out
    slow = through_ctypes(mnemonic, out)
    return slow if slow is not None else _NUMPY[mnemonic](out)
