"""Filling an instruction template (`*_table.py`) with a decoded instruction's fields, and
choosing the template of an instruction (scope, special register and non-returning forms).

The tables hold, per backend, what upstream's translator emits for each instruction: one
template per mnemonic, and per scope (`atomic_add/device`), special register
(`mov_sr/sr_lane_id`) or non-returning atomic (`/nort`, rd = 0) where the text differs. They
were recorded from upstream's output on one-instruction kernels and are checked by the
differential tests. `$rd`, `$rs1`..`$rs4` (`+k`: the k-th register after it), `$pd`, `$ps` and
`$imm` are filled in by `fill`; indentation is relative to the enclosing block.
"""

from __future__ import annotations

import re

from ...isa import SCOPE_BY_VALUE, SPECIAL_BY_INDEX, OperandKind
from ..ir import DecodedInstruction

_PLACEHOLDER = re.compile(r"\$(rd|rs1|rs2|rs3|rs4|pd|ps|imm)(?:\+(\d))?")


def fill(template: str, ins: DecodedInstruction) -> str:
    """The template's text for `ins`: `$rd`..`$rs4` give register numbers (`+k` adds k),
    `$pd` / `$ps` predicate names (fields rd / rs1), `$imm` word1 as an unsigned number."""

    def value(m: re.Match) -> str:
        name, plus = m.group(1), int(m.group(2) or 0)
        if name == "pd":
            return f"p{ins.rd}"
        if name == "ps":
            return f"p{ins.rs1}"
        if name == "imm":
            return str(ins.imm & 0xFFFFFFFF)
        return str(getattr(ins, name) + plus)

    return _PLACEHOLDER.sub(value, template)


def template_key(ins: DecodedInstruction) -> tuple[str, ...]:
    """The table keys to try for `ins`, most specific first."""
    spec = ins.spec
    m = spec.mnemonic
    parts = [m]
    if any(o.kind is OperandKind.SPECIAL for o in spec.operands):
        special = SPECIAL_BY_INDEX.get(ins.rs1)
        parts.append(special.name if special else f"sr_{ins.rs1}")
    suffix = "/nort" if spec.operands and spec.operands[0].optional and ins.rd == 0 else ""
    keys = []
    if any(o.kind is OperandKind.SCOPE for o in spec.operands):
        scope = SCOPE_BY_VALUE.get(ins.scope)
        if scope is not None:
            keys.append("/".join(parts[:1] + [scope.name] + parts[1:]) + suffix)
    keys.append("/".join(parts) + suffix)
    return tuple(keys)


def lookup(table: dict[str, tuple[str, ...]], ins: DecodedInstruction) -> tuple[str, ...] | None:
    for key in template_key(ins):
        found = table.get(key)
        if found is not None:
            return found
    return None
