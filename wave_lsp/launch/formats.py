"""Text formats of upstream `wave-emu` output: Rust `{:?}` floats, the hex dump, the value dumps,
the statistics block, and the one-line description of a run-time error.

Floats: Rust prints the shortest decimal that reads back to the same f32, and where two such
decimals of that length are equally close (the value lies exactly halfway between them) it takes
the one farther from zero (`-5.47265625` prints `-5.4726563`); numpy's shortest digits take the
even one. `rust_debug_f32_many` takes numpy's digits, finds the halfway cases with exact integer
arithmetic and a float64 filter, and bumps the last digit away from zero where numpy took the
decimal nearer zero; `rust_debug_f32` (one value) confirms each with `decimal`.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Iterator

import numpy as np

from .run_text import describe_error, stats_block  # noqa: F401 - re-exported

_SMALL = np.float32(1e-4)
_LARGE = np.float32(1e16)
CHUNK = 1 << 16            # values formatted per step when streaming a dump


_CONTEXT = Context(prec=80)


def _away_from_zero(x: np.float32, text: str) -> str:
    """`text` (shortest digits for `x`, positional or `MANTISSAeEXP`) with a halfway last digit
    rounded away from zero instead, where that decimal still reads back as `x`."""
    mantissa, e, exponent = text.partition("e")
    shift = int(exponent) if e else 0
    last = max((i for i, c in enumerate(mantissa) if c in "123456789"), default=None)
    if last is None:
        return text
    point = mantissa.find(".")
    point = len(mantissa) if point < 0 else point
    power = point - last - 1 if last < point else point - last
    unit = Decimal(1).scaleb(power + shift)
    exact = Decimal(float(x))
    rounded = exact.quantize(unit, rounding=ROUND_HALF_UP, context=_CONTEXT)
    current = Decimal(mantissa).scaleb(shift)
    if abs(rounded) - abs(current) != unit or np.float32(float(rounded)) != x:
        return text
    return _bump_last_digit(text)


def _bump_last_digit(text: str) -> str:
    """`text` (positional or `MANTISSAeEXP`) with one unit added at its last non-zero digit
    (away from zero), carrying left; unchanged where the carry would need a new digit."""
    mantissa, e, exponent = text.partition("e")
    last = max((i for i, c in enumerate(mantissa) if c in "123456789"), default=None)
    if last is None:
        return text
    chars = list(mantissa)
    i = last
    while i >= 0:                        # add one unit at the last digit, carrying left
        if chars[i] == ".":
            i -= 1
            continue
        if chars[i] == "9":
            chars[i] = "0"
            i -= 1
            continue
        if chars[i] == "-":
            return text
        chars[i] = str(int(chars[i]) + 1)
        return "".join(chars) + (e + exponent if e else "")
    return text


def rust_debug_f32(value) -> str:
    """An f32 as Rust's `{:?}` prints it: shortest round-trip digits (halfway: away from zero),
    `3.0`, `1e-7`, `NaN`, `inf`."""
    x = np.float32(value)
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "-0.0" if np.signbit(x) else "0.0"
    magnitude = abs(x)
    if magnitude < _SMALL or magnitude >= _LARGE:
        digits = np.format_float_scientific(x, unique=True, trim="-", exp_digits=1)
        mantissa, exponent = digits.split("e")
        return _away_from_zero(x, f"{mantissa}e{int(exponent)}")
    text = repr(float(str(x)))          # shortest f32 digits in Python's (= Rust's) layout
    return _away_from_zero(x, text)


_POW10 = 10.0 ** np.arange(23)


def _halfway_candidates(values: np.ndarray) -> np.ndarray:
    """Indices of the values halfway between their two shortest decimals where the one above
    (in magnitude) reads back. x = m * 2**e (m odd) with e < 0 has the exact decimal
    I * 10**e with I = m * 5**-e, whose last digit is 5; it is halfway between its two shortest
    decimals exactly when those have one digit fewer than I: a decimal next to x with one digit
    fewer reads back as x and none with two digits fewer does. That is tested here in float64
    (exact integers, one rounding each); integers and long expansions never qualify."""
    bits = values.view(np.uint32).astype(np.int64)
    field = (bits >> 23) & 0xFF
    significand = np.where(field > 0, (bits & 0x7FFFFF) | 0x800000, bits & 0x7FFFFF)
    usable = (field < 0xFF) & (significand != 0)
    sig = np.where(usable, significand, 1)
    tz = np.log2((sig & -sig).astype(np.float64)).astype(np.int64)
    k = 150 - np.maximum(field, 1) - tz                  # x = (sig >> tz) * 2**-k
    maybe = usable & (k >= 1) & (k <= 22)
    maybe &= np.log10((sig >> tz).astype(np.float64)) + k * np.log10(5.0) < 15.5
    index = np.flatnonzero(maybe)
    if not index.size:
        return index
    kk = k[index]
    exact = (sig[index] >> tz[index]) * (5 ** kk)          # I < 10**15.5 < 2**53
    x = np.abs(values[index])

    def reads_back(drop: int) -> tuple[np.ndarray, np.ndarray]:
        """Whether the decimals with `drop` digits fewer than I just below and just above x
        (in magnitude) read back as x."""
        q = (exact // 10 ** drop).astype(np.float64)
        power = kk - drop
        scale = _POW10[np.abs(power)]
        below = np.where(power >= 0, q / scale, q * scale)
        above = np.where(power >= 0, (q + 1) / scale, (q + 1) * scale)
        return below.astype(np.float32) == x, above.astype(np.float32) == x

    # a tie at the shortest length: one digit fewer reads back, two digits fewer do not; Rust
    # takes the decimal above (away from zero) where it reads back
    shorter_below, shorter_above = reads_back(2)
    return index[reads_back(1)[1] & ~shorter_below & ~shorter_above]


def _rust_layout(text: str) -> str:
    """numpy's `str` of a finite f32 in exponent form (`1.5e-07`) laid out as Rust does: an
    exponent without `+` or leading zeros outside 1e-4 <= |x| < 1e16, positional inside."""
    mantissa, _, exponent = text.partition("e")
    power = int(exponent)
    if -4 <= power < 16:
        return repr(float(text))
    return f"{mantissa}e{power}"


def rust_debug_f32_many(values: np.ndarray) -> list[str]:
    """`rust_debug_f32` for a whole array. numpy's `str` of an f32 has the shortest round-trip
    digits (Dragon4); exponent forms are laid out as Rust does, and the halfway cases (found by
    `_halfway_candidates`) are rounded away from zero."""
    values = np.asarray(values, dtype=np.float32).reshape(-1)
    out = list(map(str, values))
    with np.errstate(invalid="ignore"):
        magnitude = np.abs(values)
        # numpy writes an exponent outside 1e-4 <= |x| < 1e6 for an f32 (this mask holds more
        # than those: the text decides)
        odd = np.flatnonzero(~(magnitude < 1e5) | ((magnitude < 1e-3) & (magnitude != 0)))
    for i in odd.tolist():
        t = out[i]
        if "e" in t or t[-1] in "fn":
            out[i] = ("NaN" if t == "nan" else t) if t[-1] in "fn" else _rust_layout(t)
    ties = _halfway_candidates(values)
    for i, magnitude in zip(ties.tolist(), np.abs(values[ties].astype(np.float64)).tolist()):
        # numpy broke the tie to the even digit: where that is the decimal below, take the one
        # above (exact: the two decimals are half a unit of their last digit from x, far more
        # than a float64 rounding of either)
        if abs(float(out[i])) < magnitude:
            out[i] = _bump_last_digit(out[i])
    return out


def hex_dump(memory: np.ndarray, start: int, end: int) -> Iterator[str]:
    """Upstream's `--dump-memory START:END` lines, produced a chunk at a time."""
    for chunk in hex_dump_chunks(memory, start, end):
        yield from chunk


def hex_dump_chunks(memory: np.ndarray, start: int, end: int) -> Iterator[list[str]]:
    """`hex_dump`'s lines as lists of at most CHUNK / 16 + 1 lines."""
    yield [f"Device memory 0x{start:08x}-0x{end:08x}:"]
    step = CHUNK - CHUNK % 16
    for base in range(start, end, step):
        data = memory[base:min(end, base + step)].tobytes()
        lines = []
        for row in range(0, len(data), 16):
            chunk = data[row:row + 16]
            cells = " ".join(f"{c:02x}" for c in chunk[:8])
            if len(chunk) > 8:
                cells += "  " + " ".join(f"{c:02x}" for c in chunk[8:])
            cells = (cells + " ").ljust(50)
            text = "".join(chr(c) if 0x20 <= c < 0x7F else "." for c in chunk)
            lines.append(f"{base + row:08x}: {cells}|{text}|")
        yield lines


def dump_values(memory: np.ndarray, offset: int, count: int, kind: str) -> Iterator[str]:
    """`--dump-u32/-f32/-f16/-bf16 OFFSET:COUNT`: one value per line, a chunk at a time (so a
    dump of any size needs memory for one chunk of text only)."""
    for chunk in dump_value_chunks(memory, offset, count, kind):
        yield from chunk


def dump_value_chunks(memory: np.ndarray, offset: int, count: int,
                      kind: str) -> Iterator[list[str]]:
    """`dump_values`'s lines as lists of at most CHUNK lines."""
    width = 4 if kind in ("u32", "f32") else 2
    for first in range(0, count, CHUNK):
        n = min(CHUNK, count - first)
        start = offset + width * first
        raw = memory[start:start + width * n].tobytes()
        if kind == "u32":
            yield list(map(str, np.frombuffer(raw, dtype="<u4").tolist()))
            continue
        if kind == "f32":
            values = np.frombuffer(raw, dtype="<f4")
        elif kind == "f16":
            values = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        else:
            values = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        yield rust_debug_f32_many(values)
