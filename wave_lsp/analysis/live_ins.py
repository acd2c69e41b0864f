"""A kernel's arguments: the general registers it may read before writing (its live-ins).

A WAVE dispatch hands a kernel its arguments in registers (spec §2.6; `wave-emu --set-reg`),
so every register that some path from the kernel's start reads before any write is an
argument: `wave-lsp emit` makes each one a kernel parameter, and `run --device cuda` passes
the `--set-reg` values there.

The analysis is static and conservative (it may name a register that no run reads first, never
miss one that a run does): a forward pass over the structured control flow that keeps the
registers *certainly written* on every path to the current instruction.

- An instruction's reads (`isa.values.register_uses`: f64/u64 pairs and u128 quads as every
  register they cover) that are not certainly written are live-ins. Its writes count for every
  later instruction without a guard; a guarded write counts only for later instructions under
  the same guard (`@p1 mov_imm r1, 0` then `@p1 atomic_cas r4, r1, ...`), until the predicate
  is written or a block delimiter is reached.
- `if` ... `else` ... `endif`: after the block, what both sides wrote (without `else`, what was
  written before the `if`).
- `loop` ... `endloop` (`while (true)`, left only by `break`): the body is walked once from what
  was written before the loop (a later iteration has written at least that much), and after
  the loop what every `break` had written (what was written before the loop when none has).
- A guarded `if`/`else`/`endif`/`loop`/`endloop` delimits nothing (as in the emulator).
- An unguarded `halt` or `return` outside any block ends the path: what follows is reached
  only by `call`, so nothing counts as written there.
"""

from __future__ import annotations

from typing import Iterable

from ..isa import DELIMITERS, OperandKind
from ..isa import InstructionClass as IC
from ..isa.values import register_uses
from .reaching import close_block, innermost_block


def live_ins(instructions: Iterable) -> tuple[int, ...]:
    """The registers some path reads before writing, ascending. `instructions`: a kernel's
    decoded instructions in order (`asm.ir.DecodedInstruction`: `spec`, `guarded` and the
    operand fields)."""
    written: set[int] = set()
    guarded: dict[tuple[int, bool], set[int]] = {}    # (predicate, negated) -> written under it
    found: set[int] = set()
    blocks: list[dict] = []
    for ins in instructions:
        m = ins.spec.mnemonic
        if m in DELIMITERS and ins.guarded:
            continue
        if ins.spec.iclass is IC.CONTROL or m in DELIMITERS:
            guarded.clear()
        if m == "if":
            blocks.append({"kind": "if", "before": set(written), "then": None})
        elif m == "else":
            block = innermost_block(blocks, "if")
            if block is not None:
                block["then"], written = written, set(block["before"])
        elif m == "endif":
            block = innermost_block(blocks, "if")
            if block is not None:
                close_block(blocks, block)
                other = block["then"] if block["then"] is not None else block["before"]
                written = written & other
        elif m == "loop":
            blocks.append({"kind": "loop", "before": set(written), "exits": []})
        elif m == "break":
            block = innermost_block(blocks, "loop")
            if block is not None:
                block["exits"].append(set(written))
        elif m == "endloop":
            block = innermost_block(blocks, "loop")
            if block is not None:
                close_block(blocks, block)
                exits = block["exits"]
                written = set.intersection(*exits) if exits else set(block["before"])
        elif m in ("halt", "return") and not ins.guarded and not blocks:
            written = set()
        reads, writes = register_uses(ins)
        guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
        also = guarded.get(guard, ()) if guard else ()
        found.update(r for r in reads if r not in written and r not in also)
        if guard is None:
            written.update(writes)
        elif writes:
            guarded.setdefault(guard, set()).update(writes)
        for p in _predicates_written(ins):
            guarded.pop((p, False), None)
            guarded.pop((p, True), None)
    return tuple(sorted(found))


def _predicates_written(ins) -> list[int]:
    return [getattr(ins, o.field.value) for o in ins.spec.operands
            if o.kind is OperandKind.PREDICATE and o.field.value == "rd"]
