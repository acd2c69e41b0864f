"""How a register's value reads, wherever it is shown: in the inline hints, the hovers and the
debugger alike (DESIGN.md §2: one formatter), by the class of the instruction that produced it.
It lives in `isa` (what it knows is the instruction classes) so every layer may use it.

f32/f16/bf16/f64 results as numbers, integer results as signed decimal, bitwise results in hex,
predicates as lane masks, and untyped moves (loads, shuffles, `mov`) as a float when the bits
look like one, else as an integer. Lists of per-lane values are compacted: `0, 1, 2 … 63` for a
progression, `7 (all lanes)` for one value everywhere.
"""

from __future__ import annotations

import math
import struct


from . import INSTRUCTIONS
from . import InstructionClass as IC

MAX_LISTED = 5          # values listed before an ellipsis
ACTIVE, INACTIVE = "✓", "·"   # how a lane is marked in the hover table and the debugger
MAX_LABEL = 40          # characters of an inline label (VS Code cuts labels beyond 43)
_FLOAT_KINDS = ("f32", "f16", "bf16", "f64")
_SIGNED_CLASSES = (IC.INTEGER, IC.ATOMIC, IC.COMPARE)
_HEX_MNEMONICS = ("wave_ballot",)
_SIGNED_MNEMONICS = ("mov_sr", "wave_prefix_sum", "wave_reduce_add", "wave_reduce_min",
                     "wave_reduce_max")
_UNTYPED_MNEMONICS = ("select",)


def display_kind(mnemonic: str, record_kind: str) -> str:
    """How values written by `mnemonic` read: int, hex, auto, pred or a float kind."""
    if record_kind == "pred":
        return "pred"
    if record_kind in _FLOAT_KINDS or record_kind in ("f64lo", "f64hi"):
        return "f64" if record_kind.startswith("f64") else record_kind
    if record_kind == "i32":
        return "int"
    spec = INSTRUCTIONS.get(mnemonic)
    if spec is None:
        return "auto"
    if mnemonic in _HEX_MNEMONICS or spec.iclass is IC.BITWISE:
        return "hex"
    if mnemonic in _SIGNED_MNEMONICS:
        return "int"
    if mnemonic in _UNTYPED_MNEMONICS:
        return "auto"
    if spec.iclass in _SIGNED_CLASSES:
        return "int"
    if spec.conversion is not None:
        return "uint"
    return "auto"


def _signed(bits: int) -> int:
    bits &= 0xFFFFFFFF
    return bits - (1 << 32) if bits & 0x80000000 else bits


def _f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def number_text(x: float) -> str:
    """A float with the fewest digits that read back as the same f32, `3.0`, `NaN`, `-inf`."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    import numpy as np        # f32's shortest digits; loaded with the first float, not at start
    text = str(np.float32(x)) if abs(x) < 3.5e38 else repr(x)
    if "e" not in text and "." not in text and "n" not in text:
        text += ".0"
    return text


def _half(bits: int, kind: str) -> float:
    bits &= 0xFFFF
    if kind == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    return _f32(bits << 16)


def _looks_like_float(bits: int) -> bool:
    """Whether untyped bits are more plausibly an f32 than an integer."""
    bits &= 0xFFFFFFFF
    if bits < (1 << 24) or bits > 0xFFFFFFFF - (1 << 24):
        return False
    x = _f32(bits)
    return math.isfinite(x) and 1e-6 <= abs(x) < 1e9


def format_value(bits: int, kind: str) -> str:
    """One 32-bit value (or f64 given as a 64-bit pattern) in display kind `kind`."""
    if kind == "int":
        return str(_signed(bits))
    if kind == "uint":
        return str(bits & 0xFFFFFFFF)
    if kind == "hex":
        return f"0x{bits & 0xFFFFFFFF:x}"
    if kind == "pred":
        return "1" if bits else "0"
    if kind == "f32":
        return number_text(_f32(bits))
    if kind == "f64":
        return number_text(struct.unpack("<d", struct.pack("<Q", bits & (2**64 - 1)))[0])
    if kind in ("f16", "bf16"):
        low = number_text(_half(bits, kind))
        high = (bits >> 16) & 0xFFFF
        return f"{low}|{number_text(_half(high, kind))}" if high else low
    if _looks_like_float(bits):
        return number_text(_f32(bits))
    return str(_signed(bits))


def resolve_kind(kind: str, values: list[int]) -> str:
    """For untyped values ("auto"), one choice for the whole list: f32 when every value is zero
    or looks like a float and at least one does, else int."""
    if kind != "auto":
        return kind
    looks = [_looks_like_float(v) for v in values]
    if any(looks) and all(on or (v & 0x7FFFFFFF) == 0 for on, v in zip(looks, values)):
        return "f32"
    return "int"


def lane_ranges(lanes: list[int]) -> str:
    """`0-3,8,10-11` for a sorted list of lane numbers."""
    parts, i = [], 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        parts.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    return ",".join(parts)


def _progression(texts: list[str]) -> bool:
    try:
        values = [float(t) for t in texts]
    except ValueError:
        return False
    if len(values) < 3 or not all(math.isfinite(v) for v in values):
        return False
    step = values[1] - values[0]
    return step != 0 and all(b - a == step for a, b in zip(values, values[1:]))


def compact(texts: list[str], level: int = 0) -> str:
    """Per-lane value texts in lane order, compacted for one line; a higher `level` (0-3) lists
    fewer values, for a label that must stay short (`0, 1, 2 … 63`, `0, 1 … 63`, `0 … 63`,
    `64 values`)."""
    if not texts:
        return "–"
    if len(set(texts)) == 1 and len(texts) > 1:
        return texts[0]
    if level >= 3 and len(texts) > 1:
        return f"{len(texts)} values"
    if len(texts) <= MAX_LISTED - level and level < 2:
        return ", ".join(texts)
    if level >= 2:
        return f"{texts[0]} … {texts[-1]}"
    if _progression(texts):
        return ", ".join(texts[:3 - level]) + f" … {texts[-1]}"
    return ", ".join(texts[:MAX_LISTED - 1 - level]) + f" … {texts[-1]}"


def lane_texts(bits: list[int], kind: str) -> tuple[str, list[str]]:
    """The display kind resolved for these lanes' values (see `resolve_kind`) and each lane's
    text: the one way lanes read, in the inline hints, the hovers and the debugger alike."""
    kind = resolve_kind(kind, bits)
    return kind, [format_value(b, kind) for b in bits]


# the type a display kind stands for, as the debugger names it
TYPE_NAMES = {"int": "i32", "uint": "u32", "hex": "u32", "f32": "f32", "f16": "f16",
              "bf16": "bf16", "f64": "f64", "pred": "pred"}


def register_lanes(values: list[int], kind: str, highs: list[int | None] | None = None,
                   hex_format: bool = False) -> tuple[str, list[str]]:
    """The type and per-lane texts of one register (`kind`: the display kind of its last
    writer, or `f64lo`/`f64hi` for a half of an f64 pair, `highs` then being the next
    register's lanes); `hex_format` shows the raw words."""
    if kind in ("f64lo", "f64hi"):
        if hex_format or kind == "f64hi" or highs is None or None in highs:
            return kind, [f"0x{v & 0xFFFFFFFF:08x}" for v in values]
        return "f64", [format_value((v & 0xFFFFFFFF) | (h & 0xFFFFFFFF) << 32, "f64")
                       for v, h in zip(values, highs)]
    kind, texts = lane_texts(values, kind)
    if hex_format:
        texts = [f"0x{v & 0xFFFFFFFF:08x}" for v in values]
    return TYPE_NAMES.get(kind, kind), texts


def lane_list(mask) -> str:
    """`0,2-3` for the lanes (positions) whose entry of `mask` is true; `none` when none is."""
    return lane_ranges([i for i, on in enumerate(mask) if on]) or "none"


def lanes_summary(texts: list[str], shown: int = 8) -> str:
    """The lanes of one wave in a line: `7 (all lanes)`, or `[0, 1, 2, …]` (the first `shown`)."""
    if not texts:
        return "[]"
    if len(set(texts)) == 1 and len(texts) > 1:
        return f"{texts[0]} (all lanes)"
    return f"[{', '.join(texts[:shown])}{', …' if len(texts) > shown else ''}]"


def mask_text(bits) -> str:
    """A predicate over the shown lanes: hex mask (bit i = i-th shown lane) and its lanes."""
    bits = [bool(b) for b in bits]
    mask = sum(1 << i for i, on in enumerate(bits) if on)
    on = [i for i, b in enumerate(bits) if b]
    if not on:
        return "0x0 (no lanes)"
    if len(on) == len(bits):
        return f"0x{mask:x} (all lanes)"
    return f"0x{mask:x} (lane{'s' if len(on) > 1 else ''} {lane_ranges(on)})"
