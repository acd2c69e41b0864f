"""What the user types into `setVariable`, parsed into a register's bits. The debugger shows
lanes, lists of lanes and lane masks with the one formatter of the inline hints and hovers
(`isa.value_format`: `lanes_summary`, `lane_list`, `mask_text`)."""

from __future__ import annotations

import numpy as np

from .expressions import Expression, ExpressionError

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
