"""How the debugger shows lists of lanes (`7 (all lanes)`, `[0, 1, 2, …]`) and lane masks
(`0x0e (lanes 1-3)`), and parses what the user types into `setVariable`. A register's lanes are
read by the one formatter of the inline hints and hovers (`isa.value_format`)."""

from __future__ import annotations

import numpy as np

from .expressions import Expression, ExpressionError

SUMMARY_LANES = 8


def summary(values: list[str]) -> str:
    """`7 (all lanes)` or `[0, 1, 2, …]` for the lanes of one wave."""
    if not values:
        return "[]"
    if len(set(values)) == 1 and len(values) > 1:
        return f"{values[0]} (all lanes)"
    shown = ", ".join(values[:SUMMARY_LANES])
    return f"[{shown}{', …' if len(values) > SUMMARY_LANES else ''}]"


def lane_list(mask) -> str:
    """`1-3, 6` for the true entries of a mask (`none` when empty)."""
    lanes = [i for i, on in enumerate(np.asarray(mask).tolist()) if on]
    if not lanes:
        return "none"
    runs, start = [], lanes[0]
    for prev, cur in zip(lanes, lanes[1:] + [None]):
        if cur != prev + 1:
            runs.append(str(start) if start == prev else f"{start}-{prev}")
            start = cur
    return ", ".join(runs)


def mask_text(mask) -> str:
    """`0x0e (lanes 1-3)` (bit i = lane i)."""
    values = np.asarray(mask).tolist()
    bits = sum(1 << i for i, on in enumerate(values) if on)
    digits = max(1, (len(values) + 3) // 4)
    return f"0x{bits:0{digits}x} (lanes {lane_list(mask)})"


def parse_value(text: str, kind: str, run=None, wave: int = 0, lane: int = 0) -> int:
    """The 32 bits for a typed value: a number (float for float kinds) or an expression."""
    text = text.strip()
    try:
        if kind in ("f32", "f16", "bf16") or any(c in text for c in ".eE") and \
                not text.lower().startswith("0x"):
            number = float(text)
            if kind == "f16":
                return int(np.float16(number).view(np.uint16))
            if kind == "bf16":
                return int(np.float32(number).view(np.uint32)) >> 16
            return int(np.float32(number).view(np.uint32))
        return int(text, 0) & 0xFFFFFFFF
    except ValueError:
        pass
    if run is None:
        raise ExpressionError(f"'{text}' is not a value")
    value = Expression(text).evaluate(run, wave)[lane]
    if isinstance(value, (float, np.floating)):
        return int(np.float32(value).view(np.uint32))
    return int(value) & 0xFFFFFFFF
