"""Structured control flow, calls, halt and barriers over a lock-step batch (DESIGN.md §1).

Each wave keeps its own lanes' state in the batch-wide masks; frames are shared because every
wave of a batch is at the same instruction. Per-lane semantics:
- `if`/`else`/`endif` switch between the then and else lanes and restore the entry lanes;
- `break pN` removes lanes from the innermost loop until it exits; `continue pN` removes them
  for the rest of the iteration only; `endloop` iterates again while any lane remains;
- `halt` ends the executing lanes for good; nothing ever revives them;
- `call`/`return` save and restore the active lanes; a guarded call runs the callee with the
  guard-passing lanes only.
A wave is *present* while it would still be stepping through the current region if it ran on
its own (it left a loop when none of its lanes remained); statistics count present waves.
"""

from __future__ import annotations

import numpy as np

from ..asm.ir import DecodedInstruction
from ..isa import MAX_CALL_DEPTH, MIN_DIVERGENCE_DEPTH, PREDICATE_COUNT, OperandKind
from . import messages
from .context import RunContext
from .state import Batch, Fault


class IfFrame:
    __slots__ = ("entry", "else_mask", "loop")

    def __init__(self, entry, else_mask, loop):
        self.entry, self.else_mask, self.loop = entry, else_mask, loop


class LoopFrame:
    __slots__ = ("entry", "broken", "out", "start", "entry_present", "loop")

    def __init__(self, entry, n, start, entry_present, loop):
        self.entry = entry
        self.broken = np.zeros(n, dtype=bool)
        self.out = np.zeros(n, dtype=bool)        # broken or continued in this iteration
        self.start = start
        self.entry_present = entry_present
        self.loop = loop                          # enclosing loop frame


class CallFrame:
    __slots__ = ("ret", "active", "present", "depth", "loop")

    def __init__(self, ret, active, present, depth, loop):
        self.ret, self.active, self.present, self.depth, self.loop = (
            ret, active, present, depth, loop)


def innermost_loop(b: Batch):
    for frame in reversed(b.ctrl):
        if isinstance(frame, LoopFrame):
            return frame
    return None


def restore(b: Batch, mask: np.ndarray, loop) -> None:
    """Make `mask` active minus halted lanes and lanes that left the enclosing loop."""
    m = mask & b.alive
    if loop is not None:
        m &= ~loop.out
    b.set_active(m)


def _push(b: Batch, frame) -> None:
    if len(b.ctrl) >= MIN_DIVERGENCE_DEPTH:
        raise Fault("control_stack_overflow",
                    messages.control_stack_overflow(MIN_DIVERGENCE_DEPTH),
                    np.flatnonzero(b.active))
    b.ctrl.append(frame)


def _structure_error(b: Batch, message: str):
    return Fault("invalid_instruction", message, np.flatnonzero(b.alive))


def build_control(ins: DecodedInstruction, index: int, ctx: RunContext, plan) -> object:
    """The op for a control-flow or synchronisation instruction, chosen by mnemonic; fences,
    `wait` and `nop` do nothing (everything is immediately visible in the emulator)."""
    name = ins.spec.mnemonic
    guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
    ps = ins.rs1
    stats = ctx.stats

    def executing(b: Batch) -> np.ndarray:
        return b.guard_mask(*guard) if guard else b.active

    missing = [getattr(ins, o.field.value) for o in ins.spec.operands
               if o.kind is OperandKind.PREDICATE
               and getattr(ins, o.field.value) >= PREDICATE_COUNT]
    if missing:
        def bad(b: Batch):
            raise Fault("invalid_instruction", f"predicate p{missing[0]} does not exist",
                        np.flatnonzero(b.active))
        return bad

    if name == "if":
        skip_to = plan.if_skip.get(index)

        def op(b: Batch):
            m = executing(b)
            p = b.P[ps]
            then = m & p
            els = m & ~p
            _push(b, IfFrame(b.active, els, innermost_loop(b)))
            if b.present_count:
                stats.divergent_branches += int(
                    els.reshape(b.n_waves, b.W).any(axis=1).sum())
            b.set_active(then)
            if not b.any_active and skip_to is not None:
                ctx.skip(b, index + 1, skip_to)
                return skip_to
        return op
    if name == "else":
        skip_to = plan.else_skip.get(index)

        def op(b: Batch):
            frame = b.ctrl[-1] if b.ctrl else None
            if not isinstance(frame, IfFrame):
                raise _structure_error(b, messages.unmatched("else"))
            restore(b, frame.else_mask, frame.loop)
            if not b.any_active and skip_to is not None:
                ctx.skip(b, index + 1, skip_to)
                return skip_to
        return op
    if name == "endif":
        def op(b: Batch):
            frame = b.ctrl.pop() if b.ctrl else None
            if not isinstance(frame, IfFrame):
                raise _structure_error(b, messages.unmatched("endif"))
            restore(b, frame.entry, frame.loop)
        return op
    if name == "loop":
        skip_to = plan.loop_skip.get(index)

        def op(b: Batch):
            if not b.any_active and skip_to is not None:
                ctx.skip(b, index + 1, skip_to)
                return skip_to
            _push(b, LoopFrame(b.active, b.n, index + 1, b.present, innermost_loop(b)))
        return op
    if name in ("break", "continue"):
        breaks = name == "break"

        def op(b: Batch):
            loop = innermost_loop(b)
            if loop is None:
                raise _structure_error(b, messages.unmatched(name))
            leaving = executing(b) & b.P[ps]
            if leaving.any():
                if breaks:
                    loop.broken |= leaving
                loop.out |= leaving
                b.set_active(b.active & ~leaving)
        return op
    if name == "endloop":
        def op(b: Batch):
            frame = b.ctrl[-1] if b.ctrl else None
            if not isinstance(frame, LoopFrame):
                raise _structure_error(b, messages.unmatched("endloop"))
            remaining = frame.entry & b.alive & ~frame.broken
            if remaining.any():
                frame.out = frame.broken.copy()
                b.set_active(remaining)
                b.refresh_present(remaining)
                return frame.start
            b.ctrl.pop()
            restore(b, frame.entry, frame.loop)
            b.present = frame.entry_present & b.alive.reshape(b.n_waves, b.W).any(axis=1)
            b.present_count = int(b.present.sum())
        return op
    if name == "call":
        target = plan.index_of_offset.get(ins.imm)

        def op(b: Batch):
            m = executing(b)
            if guard and not m.any():
                return None
            if target is None:
                raise Fault("invalid_instruction", messages.call_target(ins.imm),
                            np.flatnonzero(m))
            if len(b.calls) >= MAX_CALL_DEPTH:
                raise Fault("call_stack_overflow", messages.call_stack_overflow(MAX_CALL_DEPTH),
                            np.flatnonzero(m))
            b.calls.append(CallFrame(index + 1, b.active, b.present, len(b.ctrl),
                                     innermost_loop(b)))
            b.set_active(m)
            if guard:
                b.refresh_present(m)
            return target
        return op
    if name == "return":
        def op(b: Batch):
            m = executing(b)
            if guard and not m.any():
                return None
            if not b.calls:
                return _halt(b, m, plan.end)
            frame = b.calls.pop()
            del b.ctrl[frame.depth:]
            restore(b, frame.active, frame.loop)
            b.present = frame.present & b.alive.reshape(b.n_waves, b.W).any(axis=1)
            b.present_count = int(b.present.sum())
            return frame.ret
        return op
    if name == "halt":
        def op(b: Batch):
            return _halt(b, executing(b), plan.end)
        return op
    if name == "barrier":
        def op(b: Batch):
            barrier(b, executing(b), stats, guard is not None)
            if b.epochs:
                ctx.end_epoch(b)
        return op
    return lambda b: None                                 # fences, wait, nop


def _halt(b: Batch, ending: np.ndarray, end: int):
    if not ending.any():
        return None
    b.alive = b.alive & ~ending
    b.set_active(b.active & ~ending)
    b.present = b.present & b.alive.reshape(b.n_waves, b.W).any(axis=1)
    b.present_count = int(b.present.sum())
    if not b.alive.any():
        return end
    return None


def barrier(b: Batch, m: np.ndarray, stats, guarded: bool = False) -> None:
    """Count one release per workgroup that reaches the barrier (as upstream: every wave still
    stepping through, even with no active lane; a guarded barrier only where a lane passes the
    guard) and check that every wave of each workgroup with executing lanes is here with all its
    live lanes."""
    W, nw = b.W, b.n_waves
    per_wg = b.geo.waves_per_wg
    reaching = (m.reshape(nw, W).any(axis=1) if guarded else b.present)
    stats.barriers += int(reaching.reshape(b.wg_count, per_wg).any(axis=1).sum())
    arriving = m.reshape(nw, W).any(axis=1)
    wg_here = arriving.reshape(b.wg_count, per_wg).any(axis=1)
    if not wg_here.any():
        return
    waves_here = np.repeat(wg_here, per_wg)
    alive = b.alive.reshape(nw, W)
    dead = waves_here & ~alive.any(axis=1)
    if dead.any():
        wave = int(np.flatnonzero(dead)[0])
        raise Fault("deadlock", messages.DEADLOCK, np.arange(wave * W, (wave + 1) * W))
    mismatch = (m.reshape(nw, W) != alive).any(axis=1) & waves_here
    if not mismatch.any():
        return
    wave = int(np.flatnonzero(mismatch)[0])
    lanes = np.arange(wave * W, (wave + 1) * W)
    active_bits = _bits(m[lanes])
    expected_bits = _bits(b.alive[lanes])
    raise Fault("divergent_barrier", messages.divergent_barrier(active_bits, expected_bits),
                lanes[b.alive[lanes]], active=active_bits, expected=expected_bits)


def _bits(mask: np.ndarray) -> int:
    return int(sum(1 << i for i, v in enumerate(mask.tolist()) if v))
