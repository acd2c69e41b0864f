"""The static structure of a kernel's instruction list, shared by the numpy engine (compiler.py)
and the native core (native/program.py): matching if/else/endif and loop/endloop (where an
empty region may be skipped) and the statistics category of each instruction. No numpy."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..isa import DELIMITERS
from ..isa import InstructionClass as IC
from ..isa.values import register_uses, signature  # noqa: F401 - the engines' interface
from ..syntax.blocks import match_blocks

# Statistics category of each instruction class, as upstream counts (reference §4.12: moves
# count as control; every mma_* counts as float).
CATEGORY = {
    IC.INTEGER: "integer", IC.BITWISE: "integer", IC.COMPARE: "integer",
    IC.FLOAT: "float", IC.F16: "float", IC.BF16: "float", IC.F64: "float", IC.CONVERT: "float",
    IC.LOCAL_MEMORY: "memory", IC.DEVICE_MEMORY: "memory", IC.MMA: "float",
    IC.ATOMIC: "atomic", IC.WAVE: "wave",
    IC.CONTROL: "control", IC.SYNC: "control", IC.MISC: "control",
}


@dataclass
class Plan:
    """Static structure of a kernel's instruction list."""

    end: int
    index_of_offset: dict[int, int]
    if_skip: dict[int, int] = field(default_factory=dict)     # if -> its else or endif
    else_skip: dict[int, int] = field(default_factory=dict)   # else -> its endif
    loop_skip: dict[int, int] = field(default_factory=dict)   # loop -> after its endloop


def make_plan(instructions, skip_empty: bool = True) -> Plan:
    """The kernel's structure; with `skip_empty` False no region is ever skipped (every
    instruction is stepped through, as upstream does; the trace needs that)."""
    plan = Plan(len(instructions), {ins.offset: i for i, ins in enumerate(instructions)})
    if not skip_empty:
        return plan
    # Regions holding a call are never skipped (the callee may lie anywhere), nor regions
    # holding a barrier (upstream counts a barrier release even with no active lane).
    stops = [i for i, ins in enumerate(instructions) if ins.spec.mnemonic in ("call", "barrier")]

    def clean(a: int, b: int) -> bool:
        return not any(a <= c < b for c in stops)

    # the block matching of the syntax layer; a guarded block delimiter delimits nothing
    matching = match_blocks(
        (i, None if ins.guarded and ins.spec.mnemonic in DELIMITERS else ins.spec.mnemonic)
        for i, ins in enumerate(instructions))
    for block in matching.blocks:
        start, else_at, end = block.open, block.else_, block.close
        if end is None or block.closed_by_outer:
            if else_at is not None and clean(start, else_at):
                plan.if_skip[start] = else_at
            continue
        if block.kind == "loop":
            if clean(start, end):
                plan.loop_skip[start] = end + 1
        elif else_at is None:
            if clean(start, end):
                plan.if_skip[start] = end
        else:
            if clean(start, else_at):
                plan.if_skip[start] = else_at
            if clean(else_at, end):
                plan.else_skip[else_at] = end
    return plan
