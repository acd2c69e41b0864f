"""WAVE's wave operations in PTX, as `wave-lsp emit` writes them by default (`--compat upstream`
keeps upstream's templates; lints P812, P819-P822 name each difference):

- **Member masks** (P822). Upstream passes the full mask 0xFFFFFFFF to every `shfl.sync` and
  `vote.sync`; inside an `if` branch or a loop iteration that not every lane takes, the lanes
  named but not executing never arrive, which is undefined. A kernel with wave operations
  tracks WAVE's active set as member masks instead (`MaskPlan`): `%wm0` holds the warp's
  launched lanes (from `%tid`/`%ntid`), an `if` ballots its condition over the enclosing mask,
  `else` takes the rest, a loop keeps the lanes still iterating in `%wl<N>`. A lane that
  leaves by `break` or `continue` inside an `if` sets `%wx<N>` (and `%wb<N>` for `break`) and
  passes through each enclosing `endif` (`$L_join_<N>`), where all the branch's lanes meet
  again and ballot who left, down to the loop's tail (`$L_cont_<N>`), where the whole
  iteration meets, drops the lanes that broke and sends them to `$L_endloop_<N>`. So a mask
  never names a lane waiting elsewhere. It may name lanes that have exited (`halt`), which
  `shfl.sync`/`vote.sync` ignore ("all non-exited threads in membermask"); each operation first
  ballots the lanes still running and names exactly those in its other syncs.
- **Inactive and out-of-range sources** (P820). A shuffle or broadcast whose source lane is
  out of range (upstream: the lane's own value for `up`/`down`, `lane & 31` for `idx`/`bfly`) or
  not active reads 0, as in the emulator (DESIGN.md §1).
- **Broadcast** (P821). The lane index comes from the first active lane (upstream: each lane
  uses its own `rs2`, which is a shuffle).
- **Reductions and prefix sums** (P819, P822). `wave_reduce_min/max` are unsigned (upstream:
  `min.s32`/`max.s32`); a butterfly tree reads lanes outside the active set, so the reduction and
  the exclusive prefix sum walk the 32 lanes in order and combine the active ones.
- **Guards** (P812). A guard narrows the active set to the lanes whose guard holds (a ballot of
  the guard) and applies to the write of the result; the `shfl.sync`/`vote.sync` themselves are
  never guarded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...isa import InstructionClass as IC
from ..ir import DecodedInstruction, KernelCode
from .templates import fill

# scratch registers: %w0 the lanes running the operation, %w6 the active ones (those whose guard
# holds), %w1 lane id, %w2 source lane, %w3..%w5 temporaries
LIVE, LANE, SOURCE = "%w0", "%w1", "%w2"
DECLARATIONS = (".reg .b32 %w<7>;", ".reg .pred %wp<3>;")
_IDENTITY = {"wave_reduce_add": "0", "wave_prefix_sum": "0", "wave_reduce_min": "0xFFFFFFFF",
             "wave_reduce_max": "0"}
_COMBINE = {"wave_reduce_add": "add.u32", "wave_prefix_sum": "add.u32",
            "wave_reduce_min": "min.u32", "wave_reduce_max": "max.u32"}


def uses_wave_operations(kernel: KernelCode) -> bool:
    return any(ins.spec.iclass is IC.WAVE for ins in kernel.instructions)


# ---- the member masks of structured control flow ------------------------------------------------
@dataclass
class MaskPlan:
    """Where each `if` and `loop` of a kernel stands, for the mask bookkeeping: `exits[n]` is
    True when the `if` numbered n holds a `break`/`continue` of an enclosing loop (its `endif`
    then ballots who left); numbers are upstream's label numbers."""

    depth: int = 0
    loops: list[int] = field(default_factory=list)
    exits: dict[int, bool] = field(default_factory=dict)
    max_depth: int = 0

    @classmethod
    def of(cls, kernel: KernelCode) -> "MaskPlan":
        plan = cls()
        stack: list[tuple[str, int]] = []
        counter = 0
        for ins in kernel.instructions:
            m = ins.spec.mnemonic
            if m in ("if", "loop"):
                stack.append((m, counter))
                if m == "loop":
                    plan.loops.append(counter)
                else:
                    plan.exits[counter] = False
                counter += 1
                plan.max_depth = max(plan.max_depth, len(stack))
            elif m in ("endif", "endloop") and stack:
                stack.pop()
            elif m in ("break", "continue"):
                for kind, number in reversed(stack):
                    if kind == "loop":
                        break
                    plan.exits[number] = True
        return plan

    def declarations(self) -> list[str]:
        out = list(DECLARATIONS) + [f".reg .b32 %wm<{self.max_depth + 1}>;"]
        if self.loops:
            n = max(self.loops) + 1
            out += [f".reg .b32 %wl<{n}>;", f".reg .pred %wb<{n}>;", f".reg .pred %wx<{n}>;"]
        return out


def launched_lanes() -> list[str]:
    """`%wm0` = the lanes of this warp that the launch created (a partial last warp has fewer)."""
    return ["mov.u32 %w0, %tid.x;", "mov.u32 %w1, %tid.y;", "mov.u32 %w2, %tid.z;",
            "mov.u32 %w3, %ntid.x;", "mov.u32 %w4, %ntid.y;", "mov.u32 %w5, %ntid.z;",
            "mad.lo.u32 %w1, %w2, %w4, %w1;", "mad.lo.u32 %w0, %w1, %w3, %w0;",
            "mul.lo.u32 %w4, %w4, %w3;", "mul.lo.u32 %w4, %w4, %w5;",
            "and.b32 %w0, %w0, 0xFFFFFFE0;", "sub.u32 %w4, %w4, %w0;", "min.u32 %w4, %w4, 32;",
            "mov.u32 %w5, 1;", "shl.b32 %w5, %w5, %w4;", "sub.u32 %wm0, %w5, 1;", ""]


def _drop(mask: str, left: str) -> list[str]:
    """`mask &= ~left` (left is clobbered)."""
    return [f"not.b32 {left}, {left};", f"and.b32 {mask}, {mask}, {left};"]


def if_lines(predicate: str, depth: int) -> list[str]:
    """Before `if`'s branch: the branch's lanes."""
    return [f"vote.sync.ballot.b32 %wm{depth + 1}, {predicate}, %wm{depth};"]


def else_lines(depth: int) -> list[str]:
    """At the start of `else`: the enclosing lanes not in the `if` branch."""
    return [f"not.b32 %wm{depth + 1}, %wm{depth + 1};",
            f"and.b32 %wm{depth + 1}, %wm{depth + 1}, %wm{depth};"]


def join_lines(number: int, depth: int, loop: int, outward: str) -> list[str]:
    """After the `endif` of an `if` holding a break/continue of loop `loop`: ballot the lanes
    that left, drop them, send them on to `outward` (the next join or the loop's tail)."""
    return ([f"$L_join_{number}:", f"vote.sync.ballot.b32 %w3, %wx{loop}, %wm{depth};"]
            + _drop(f"%wm{depth}", "%w3") + [f"@%wx{loop} bra {outward};"])


def loop_entry_lines(number: int, depth: int) -> list[str]:
    """Before `loop`'s head label: the lanes that enter, no exit pending."""
    return [f"mov.b32 %wl{number}, %wm{depth};",
            f"setp.ne.u32 %wb{number}, %wm{depth}, %wm{depth};",
            f"setp.ne.u32 %wx{number}, %wm{depth}, %wm{depth};"]


def loop_head_lines(number: int, depth: int) -> list[str]:
    """After the head label: this iteration's lanes are the loop's."""
    return [f"mov.b32 %wm{depth + 1}, %wl{number};"]


def exit_lines(kind: str, predicate: str, number: int, depth: int, target: str) -> list[str]:
    """`break`/`continue` pN at `depth` inside loop `number`: the lanes staying drop the leavers
    from their mask; the leavers mark why they left and go to `target`."""
    out = [f"vote.sync.ballot.b32 %w3, {predicate}, %wm{depth};"] + _drop(f"%wm{depth}", "%w3")
    if kind == "break":
        out.append(f"@{predicate} setp.eq.u32 %wb{number}, %wm{depth}, %wm{depth};")
    out += [f"@{predicate} setp.eq.u32 %wx{number}, %wm{depth}, %wm{depth};",
            f"@{predicate} bra {target};"]
    return out


def loop_tail_lines(number: int) -> list[str]:
    """Before `endloop`'s back edge: the iteration's lanes meet; those that broke leave."""
    return ([f"$L_cont_{number}:", f"vote.sync.ballot.b32 %w3, %wb{number}, %wl{number};"]
            + _drop(f"%wl{number}", "%w3")
            + [f"@%wb{number} bra $L_endloop_{number};",
               f"setp.ne.u32 %wx{number}, %wl{number}, %wl{number};"])


# ---- one wave operation ---------------------------------------------------------------------------
def wave_lines(ins: DecodedInstruction, region: str, label: str) -> list[str]:
    """One wave operation run by the lanes of `region` (a register naming the lanes of the
    enclosing block; it may still name lanes that have exited, which the first ballot leaves
    out, so every later sync names exactly the lanes running it); `label` is a fresh label for
    the loop of a reduction or prefix sum."""
    m = ins.spec.mnemonic
    g = f"@{'!' if ins.pred_neg else ''}%p{ins.pred_reg} " if ins.guarded else ""
    negated = "!" if ins.pred_neg else ""
    mask = LIVE
    out = [f"setp.ne.u32 %wp0, {region}, 0;", f"vote.sync.ballot.b32 {LIVE}, %wp0, {region};"]
    if ins.guarded:
        active = "%w6"
        out.append(f"vote.sync.ballot.b32 {active}, {negated}%p{ins.pred_reg}, {mask};")
    else:
        active = LIVE
    out.append(f"mov.u32 {LANE}, %laneid;")
    if m in ("wave_ballot", "wave_any", "wave_all"):
        out += [f"vote.sync.ballot.b32 %w4, %$ps, {mask};", f"and.b32 %w4, %w4, {active};"]
        if m == "wave_ballot":
            out.append(f"{g}mov.b32 %r$rd, %w4;")
        else:
            test = "setp.ne.u32 %wp1, %w4, 0;" if m == "wave_any" \
                else f"setp.eq.u32 %wp1, %w4, {active};"
            out += [test, f"{g}mov.pred %$pd, %wp1;"]
    elif m in _COMBINE:
        out += _combine(m, mask, active, label) + [f"{g}mov.b32 %r$rd, %w4;"]
    else:
        out += _source_lane(m, mask, active) + [
            f"shfl.sync.idx.b32 %w4, %r$rs1, {SOURCE}, 31, {mask};",
            f"shr.b32 %w3, {active}, {SOURCE};", "and.b32 %w3, %w3, 1;",
            "setp.ne.and.u32 %wp1, %w3, 0, %wp1;", "selp.b32 %w4, %w4, 0, %wp1;",
            f"{g}mov.b32 %r$rd, %w4;"]
    return [fill(t, ins) for t in out]


def _source_lane(m: str, mask: str, active: str) -> list[str]:
    """`%w2` = the lane to read, `%wp1` = whether it is within the wave."""
    if m == "wave_shuffle":
        return [f"mov.b32 {SOURCE}, %r$rs2;", f"setp.lt.u32 %wp1, {SOURCE}, 32;"]
    if m == "wave_shuffle_up":
        return [f"sub.u32 {SOURCE}, {LANE}, %r$rs2;", f"setp.le.u32 %wp1, %r$rs2, {LANE};"]
    if m == "wave_shuffle_down":
        return [f"add.u32 {SOURCE}, {LANE}, %r$rs2;", "mov.u32 %w3, 31;",
                f"sub.u32 %w3, %w3, {LANE};", "setp.le.u32 %wp1, %r$rs2, %w3;"]
    if m == "wave_shuffle_xor":
        return [f"xor.b32 {SOURCE}, {LANE}, %r$rs2;", f"setp.lt.u32 %wp1, {SOURCE}, 32;"]
    # wave_broadcast: the lane index of the first active lane
    return [f"neg.s32 %w3, {active};", f"and.b32 %w3, %w3, {active};", "bfind.u32 %w3, %w3;",
            f"shfl.sync.idx.b32 {SOURCE}, %r$rs2, %w3, 31, {mask};",
            f"setp.lt.u32 %wp1, {SOURCE}, 32;"]


def _combine(m: str, mask: str, active: str, label: str) -> list[str]:
    """`%w4` = the active lanes' values combined in lane order (for the prefix sum, those of
    the lanes below this one)."""
    out = [f"mov.u32 {SOURCE}, 0;", f"mov.u32 %w4, {_IDENTITY[m]};", f"{label}:",
           f"shfl.sync.idx.b32 %w5, %r$rs1, {SOURCE}, 31, {mask};",
           f"shr.b32 %w3, {active}, {SOURCE};", "and.b32 %w3, %w3, 1;",
           "setp.ne.u32 %wp1, %w3, 0;"]
    if m == "wave_prefix_sum":
        out.append(f"setp.lt.and.u32 %wp1, {SOURCE}, {LANE}, %wp1;")
    out += [f"@%wp1 {_COMBINE[m]} %w4, %w4, %w5;", f"add.u32 {SOURCE}, {SOURCE}, 1;",
            f"setp.lt.u32 %wp2, {SOURCE}, 32;", f"@%wp2 bra {label};"]
    return out
