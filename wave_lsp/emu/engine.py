"""The execution loop: runs a compiled kernel over the grid, batch by batch, each batch being
many workgroups executed in lock-step as one lane array.

Workgroups are ordered x fastest, then y, then z. Within one instruction, lanes act in global
thread order, so colliding stores keep the last thread's value and colliding atomics return old
values in thread order. Batches where two workgroups touch one device word (see `overlap`) are
run again one workgroup at a time, and a batch of several that stops at an error (not a limit)
is run again from its first workgroup one at a time (the batches before it are exact), so that
the error, memory and statistics are those of running workgroups one at a time. Limits:
`max_instructions` counts the wave-instructions of the whole launch (all workgroups), polled
every 256 steps and at every step near the limit; the wall-time limit and the cancellation hook
are polled every 256 steps and before every batch of workgroups (a short kernel on a huge grid
would never reach a poll inside one).
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .compiler import CompiledKernel
from . import messages
from .context import RunContext
from .observer import stepper
from .overlap import AccessLog, LogFull, find_conflict
from .racecheck import EpochLog
from .report import EmuError
from .state import Batch, Fault, Geometry
from .race_report import race_warning
from .workgroup_races import LaunchShadow

POLL_EVERY = 256


class Limits:
    def __init__(self, max_instructions: int, deadline: float | None,
                 cancel: Callable[[], bool] | None):
        self.max_instructions = max_instructions
        self.deadline = deadline
        self.cancel = cancel

    def poll(self) -> None:
        """Raise `Fault` when the wall-time limit has passed or the run was cancelled: called
        between the steps of setting a run up (memory, instrumenting), which count in the
        limit as much as the emulation does."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise Fault("time_limit", messages.TIME_LIMIT)
        if self.cancel is not None and self.cancel():
            raise Fault("cancelled", messages.CANCELLED)


class SequentialNeeded(Exception):
    """Workgroups of one batch met on device memory: the launch must run one workgroup at a
    time (its races are then found, `workgroup_races`). With `alone_from`, a batch that starts
    at that workgroup stopped at an error: the launch must run again with the workgroups from
    there one at a time (the batches before are exact), so that the error, memory and
    statistics are those of running workgroups one at a time."""

    def __init__(self, alone_from: int | None = None):
        super().__init__("workgroups of a batch met" if alone_from is None
                         else "a batch of several workgroups met an error")
        self.alone_from = alone_from


# errors met where they are met whatever the batches: the time and a cancel, at no defined
# point. The instruction limit is not one of them: a batch runs its workgroups in lock-step, so
# one that would stop at an error may wait behind another's loop until the batch passes the
# limit; met in a batch of several, it is run again one workgroup at a time, as every error.
BATCH_ERRORS = ("time_limit", "cancelled")


def execute(compiled: CompiledKernel, geo: Geometry, device: np.ndarray,
            set_regs: dict[int, int], ctx: RunContext, limits: Limits, max_lanes: int,
            observers=(), on_batch_end=None, sequential: bool = False,
            alone_from: int | None = None, strict_races: bool = False) -> EmuError | None:
    """Run every workgroup with `observers` (started: see `observer`); returns the first error
    (the run stops there) or None. Raises `SequentialNeeded` when batched workgroups touched
    the same device words (the caller restores memory and runs again with `sequential`) or a
    batch of several stopped at an error (again, with the workgroups from `alone_from` one at a
    time). `strict_races`: the race check between waves in strict mode (`racecheck`)."""
    observer = stepper(observers)
    single = sequential or bool(observer and observer.single_workgroup)
    per_batch = geo.batch_size(max_lanes, single)
    ctx.counts = [0] * len(compiled.ops)
    total = geo.workgroup_count
    n_words = (device.size + 3) // 4
    shadow = LaunchShadow(n_words, geo.threads_per_wg) if total > 1 else None
    first = 0
    while first < total:
        count = min(per_batch, total - first)
        if alone_from is not None:
            count = 1 if first >= alone_from else min(count, alone_from - first)
        b = Batch(geo, first, count, device, set_regs)
        if count > 1:
            b.log = AccessLog(n_words, b.wg_of_lane)
        elif shadow is not None:     # one workgroup: a long log goes into the shadow early
            b.log = AccessLog(n_words, b.wg_of_lane,
                              on_full=lambda log, b=b: shadow.fold(log, b))
        if geo.waves_per_wg > 1:
            b.epochs = {"local": EpochLog("local", b.W, b.lanes_per_wg, count,
                                          b.local32.size, strict=strict_races),
                        "device": EpochLog("device", b.W, b.lanes_per_wg, count,
                                           strict=strict_races)}
        ctx.batch = b
        for each in observers:
            each.attach(b)
        index = 0
        try:
            if first:       # between batches too: a short kernel on a huge grid never
                ctx.index = 0       # reaches a poll inside one
                _limit_fault(ctx, limits, 0, 0)
            if observer is None:
                _loop(compiled, b, ctx, limits, geo.waves_per_wg)
            else:
                _observed_loop(compiled, b, ctx, limits, geo.waves_per_wg, observer)
        except LogFull:
            raise SequentialNeeded() from None
        except Fault as fault:
            _check_overlap(b, shadow, last=True)
            _report_meeting(ctx, shadow, geo, compiled.instructions)
            if count > 1 and fault.kind not in BATCH_ERRORS:
                raise SequentialNeeded(alone_from=first) from None
            index = ctx.index
            _finish_stats(compiled, ctx)
            _finish(observers)
            return to_error(fault, b, compiled, index)
        _check_overlap(b, shadow, last=first + count >= total)
        ctx.end_epoch(b)
        ctx.stats.workgroups += count
        ctx.stats.waves += count * geo.waves_per_wg
        if on_batch_end is not None:
            on_batch_end(b)
        first += count
    _report_meeting(ctx, shadow, geo, compiled.instructions)
    _finish_stats(compiled, ctx)
    _finish(observers)
    return None


def _report_meeting(ctx: RunContext, shadow: LaunchShadow | None, geo: Geometry,
                    instructions) -> None:
    """The race between workgroups the run met, as the report's first warning."""
    if shadow is not None and shadow.meeting is not None:
        ctx.workgroup_race = race_warning(shadow.meeting, geo, ctx.pcs, ctx.lines, instructions)


def _finish(observers) -> None:
    for observer in observers:
        observer.finish()


def _check_overlap(b: Batch, shadow: LaunchShadow | None, last: bool = False) -> None:
    """A batch of several whose workgroups met runs again one at a time; the accesses of one
    that did not (or of one workgroup) go into the launch's shadow of races between
    workgroups."""
    if b.log is None:
        return
    log, b.log = b.log, None
    if b.wg_count > 1 and find_conflict(log, b.lanes_per_wg) is not None:
        raise SequentialNeeded()
    shadow.fold(log, b, keep=not last)


def _limit_fault(ctx: RunContext, limits: Limits, steps: int, step_limit: float) -> None:
    """Stop the run when the launch's wave-instructions (all workgroups so far) pass the limit,
    the wall-time limit has passed or the run was cancelled."""
    if limits.max_instructions > 0:
        executed = ctx.executed + sum(ctx.counts)
        if executed > limits.max_instructions:
            raise Fault("instruction_limit",
                        messages.instruction_limit(executed, limits.max_instructions),
                        np.flatnonzero(ctx.batch.active))
    if limits.deadline is not None and time.monotonic() > limits.deadline:
        raise Fault("time_limit", messages.TIME_LIMIT, np.flatnonzero(ctx.batch.active))
    if limits.cancel is not None and limits.cancel():
        raise Fault("cancelled", messages.CANCELLED, np.flatnonzero(ctx.batch.active))


def _step_limit(limits: Limits, waves_per_wg: int) -> float:
    """Steps of one workgroup that surely pass the limit (the limit is checked at polls)."""
    if limits.max_instructions <= 0:
        return float("inf")
    return limits.max_instructions / waves_per_wg


def _next_poll(ctx: RunContext, limits: Limits, b: Batch, steps: int) -> int:
    """The step of the next limit check: every POLL_EVERY steps, sooner near the limit."""
    gap = POLL_EVERY
    if limits.max_instructions > 0:
        remaining = limits.max_instructions - ctx.executed - sum(ctx.counts)
        gap = min(gap, max(1, remaining // max(1, b.present_count)))
    return steps + gap


def _loop(compiled: CompiledKernel, b: Batch, ctx: RunContext, limits: Limits,
          waves_per_wg: int) -> None:
    ops = compiled.ops
    fused = compiled.fused or [None] * len(ops)
    n = len(ops)
    counts = ctx.counts
    step_limit = _step_limit(limits, waves_per_wg)
    ctx.extra_steps = 0
    steps = 0
    check = _next_poll(ctx, limits, b, 0)
    index = 0
    try:
        while index < n:
            present = b.present_count
            run = fused[index]
            if run is not None and b.full and steps + run[1] < check:
                # a fused run (see fusion.py): no poll would fall inside it one by one either
                run[0](b)
                span = run[1]
                for j in range(index, index + span):
                    counts[j] += present
                steps += span
                index += span
                continue
            nxt = ops[index](b)
            counts[index] += present
            steps += 1
            if steps >= check:
                ctx.index = index
                _limit_fault(ctx, limits, steps, step_limit)
                check = _next_poll(ctx, limits, b, steps)
            index = index + 1 if nxt is None else nxt
    except Fault:
        ctx.index = index
        raise


def _observed_loop(compiled: CompiledKernel, b: Batch, ctx: RunContext, limits: Limits,
                   waves_per_wg: int, observer) -> None:
    ops = compiled.ops
    n = len(ops)
    # fused runs where the observers see them whole (as `_loop` runs them)
    fused = compiled.fused if compiled.fused and observer.sees_fused else [None] * n
    counts = ctx.counts
    step_limit = _step_limit(limits, waves_per_wg)
    ctx.extra_steps = 0
    steps = 0
    check = _next_poll(ctx, limits, b, 0)
    index = 0
    try:
        while index < n:
            present = b.present_count
            run = fused[index]
            if run is not None and b.full and steps + run[1] < check:
                run[0](b)
                span = run[1]
                observer.after_fused(index, span, b)
                for j in range(index, index + span):
                    counts[j] += present
                steps += span
                index += span
                ctx.index = index - 1
                continue
            before = observer.before(index, b)
            nxt = ops[index](b)
            observer.after(index, b, before)
            counts[index] += present
            steps += 1
            ctx.index = index
            if steps >= check:
                _limit_fault(ctx, limits, steps, step_limit)
                check = _next_poll(ctx, limits, b, steps)
            index = index + 1 if nxt is None else nxt
    except Fault:
        ctx.index = index
        raise


def _finish_stats(compiled: CompiledKernel, ctx: RunContext) -> None:
    stats = ctx.stats
    ctx.executed += sum(ctx.counts)
    for count, category in zip(ctx.counts, compiled.categories):
        stats.total += count
        setattr(stats, category, getattr(stats, category) + count)
    ctx.counts = [0] * len(ctx.counts)


def to_error(fault: Fault, b: Batch, compiled: CompiledKernel, index: int) -> EmuError:
    """Attach workgroup, wave, lanes, PC and source line to a fault."""
    lanes = fault.lanes
    workgroup = wave = None
    in_wave: tuple[int, ...] = ()
    if lanes is not None and len(lanes):
        lanes = np.asarray(lanes)
        workgroup, wave, _ = b.describe_lane(int(lanes[0]))
        first_wave = int(lanes[0]) // b.W
        same = lanes[(lanes // b.W) == first_wave]
        in_wave = tuple(int(x) % b.W for x in same)
    pc = compiled.pcs[index] if index < len(compiled.pcs) else None
    line = compiled.lines[index] if index < len(compiled.lines) else None
    details = dict(fault.details)
    if lanes is not None and len(lanes):
        details["thread"] = b.global_thread(int(lanes[0]))
        details["mnemonic"] = compiled.instructions[index].spec.mnemonic
    return EmuError(fault.kind, fault.message, workgroup, wave, in_wave, pc, line, details)
