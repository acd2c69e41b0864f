"""The numpy engine's run of a prepared launch: `run_prepared(prepared, options, observers) ->
RunReport`.

The one entry for callers is `pipeline.run`, which prepares the launch, picks the engine and
falls back to this one when the native core cannot run a launch. Everything that happens while
running is in the report.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .compiler import compile_kernel
from .context import RunContext
from .engine import Limits, SequentialNeeded, execute
from .kernel_launch import LaunchError, new_device_memory
from .observer import RunSetup, of_kind
from .options import RunOptions
from .report import EmuError, RunReport
from .state import Batch, Fault

if TYPE_CHECKING:
    from .prepared import PreparedLaunch

# The stepping observers a profiled run may have besides the profile: what the editor shows
# (the per-line record and the store writers), which change nothing the profile counts.
WITH_PROFILE = ("lines", "writers")


def run_prepared(prepared: PreparedLaunch, options: RunOptions, observers: list,
                 started: float | None = None) -> RunReport:
    """Run a prepared launch on the numpy engine with `observers` (see `observer`: those of
    `observer.observers_of(options)` and any others) and report what happened. The time limit
    counts from `started` (a `time.monotonic()` reading; default: now), and covers setting the
    run up (device memory and its fills, instrumenting) as well as the emulation: a limit met
    there is the report's `time_limit` error as well."""
    launch, kernel, geo = prepared.launch, prepared.kernel, prepared.geometry
    profile = of_kind(observers, "profile")
    if profile is not None and any(o.steps and o is not profile and o.kind not in WITH_PROFILE
                                   for o in observers):
        raise LaunchError("the profile is recorded by a run without a trace, a memory trace "
                          "or breakpoints")
    started = time.monotonic() if started is None else started
    deadline = started + options.time_limit if options.time_limit else None
    limits = Limits(options.max_instructions, deadline, options.cancel)
    report = RunReport(kernel=kernel.name, device=None, engine="numpy")
    wanted = {int(t) for t in launch.register_threads}

    def collect(b: Batch) -> None:
        if wanted:
            report.registers.update(_registers_of(b, wanted))

    set_regs = {int(k): int(v) for k, v in launch.set_regs.items()}
    skip_empty = not any(o.sees_empty for o in observers)
    ctx = error = None
    ready = False
    try:
        device = report.device = new_device_memory(launch, limits.poll)
        sequential, alone_from = False, None
        for _ in range(3):      # batched; again from a batch that met an error; one at a time
            ctx = RunContext([i.offset for i in kernel.instructions],
                             [i.line for i in kernel.instructions])
            compiled = compile_kernel(kernel, geo.registers, ctx, kernel.instructions,
                                      skip_empty=skip_empty)
            setup = RunSetup(compiled, geo, ctx, launch, kernel, options, device.size,
                             set_regs)
            for observer in observers:
                observer.start(setup)
            ready = True
            limits.poll()
            try:
                with np.errstate(all="ignore"):
                    error = execute(compiled, geo, device, set_regs, ctx, limits,
                                    options.max_batch_lanes, observers, collect, sequential,
                                    alone_from, options.racecheck == "strict")
                break
            except SequentialNeeded as need:     # batched workgroups met: redo one at a time
                if need.alone_from is not None and alone_from is None and not sequential:
                    alone_from = need.alone_from   # an error in a batch: redo it one by one
                else:
                    sequential, alone_from = True, None
                report.registers.clear()
                # fresh zeroed memory, not `device[:] = 0`: untouched pages of a large device
                # memory then cost nothing (the first run wrote only what the kernel stores)
                device = report.device = new_device_memory(launch, limits.poll)
    except Fault as stop:       # the time limit or a cancel, met while setting the run up
        error = EmuError(stop.kind, stop.message)
        if report.device is None:
            report.device = new_device_memory(replace(launch, memory_init=()))
    if ctx is None:
        report.errors.append(error)
        report.launch_summary = prepared.summary()
        return report
    if error is not None:
        report.errors.append(error)
        if ctx.batch is not None:
            collect(ctx.batch)
    report.stats = ctx.stats
    report.warnings = ([ctx.workgroup_race] if ctx.workgroup_race else []) \
        + ctx.ordered_warnings()
    if ready:
        for observer in observers:
            observer.fill(report)
    report.launch_summary = prepared.summary()
    return report


def _registers_of(b: Batch, wanted: set[int]) -> dict[int, dict[str, int]]:
    out = {}
    first = b.first_wg * b.geo.threads_per_wg
    last = (b.first_wg + b.wg_count) * b.geo.threads_per_wg
    for tid in sorted(t for t in wanted if first <= t < last):
        wg, local = divmod(tid, b.geo.threads_per_wg)
        lane = (wg - b.first_wg) * b.lanes_per_wg + local
        values = {f"r{i}": int(v) for i, v in enumerate(b.R[:, lane].tolist())}
        values.update({f"p{i}": int(v) for i, v in enumerate(b.P[:, lane].tolist())})
        out[tid] = values
    return out
