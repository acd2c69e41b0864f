"""The emulator's one entry point: `run(program, launch) -> RunReport`.

`program` is `.wave` source text, `.wbin` bytes, an `Assembly`, or a list of `KernelCode`.
Launch problems (unknown kernel, bad sizes, initial memory out of range, source that does not
assemble) raise `LaunchError`; everything that happens while running is in the report.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from ..asm.ir import KernelCode
from .compiler import compile_kernel
from .context import RunContext
from .engine import Limits, SequentialNeeded, execute
from .initcheck import check_launch
from .launch import (Launch, check_device_memory, launch_error,
                     new_device_memory)
from .report import RunReport
from .geometry import Geometry, geometry, load_kernels, select_kernel  # noqa: F401
from .state import Batch



def run(program, launch: Launch | None = None, *,
        cancel: Callable[[], bool] | None = None, observe=None,
        profile: bool = False) -> RunReport:
    """Run one kernel of `program` as described by `launch` and report what happened.
    `observe(compiled, geometry)`, when given, returns an extra observer of the run (see
    `recording`), used instead of the launch's recording. `profile`: record the kernel profile
    (`report.profile`, a `profile.ProfileRecord`; not with tracing or recording)."""
    launch = launch or Launch()
    kernel = select_kernel(load_kernels(program), launch.kernel)
    geo = geometry(kernel, launch)
    check_device_memory(launch)
    device = new_device_memory(launch)
    instructions = kernel.instructions
    report = RunReport(kernel=kernel.name, device_memory=device)
    wanted = {int(t) for t in launch.register_threads}

    def collect(b: Batch) -> None:
        if wanted:
            report.registers.update(_registers_of(b, wanted))

    _check_limits(launch)
    deadline = time.monotonic() + launch.time_limit if launch.time_limit else None
    limits = Limits(launch.max_instructions, deadline, cancel)
    set_regs = {int(k): int(v) for k, v in launch.set_regs.items()}
    races = []
    for sequential in (False, True):
        ctx = RunContext([i.offset for i in instructions], [i.line for i in instructions])
        compiled = compile_kernel(kernel, geo.registers, ctx, instructions,
                                  skip_empty=not launch.trace)
        check_launch(compiled, ctx, launch, geo.registers, device.size, set_regs)
        if profile:
            from .profiler import Profiler
            observer = Profiler(compiled, geo)
            ctx.on_skip = observer.skipped
        else:
            observer = observe(compiled, geo) if observe else _observer(launch, geo, compiled)
        try:
            with np.errstate(all="ignore"):
                error = execute(compiled, geo, device, set_regs, ctx, limits,
                                launch.max_batch_lanes, observer, collect, sequential)
            break
        except SequentialNeeded as need:     # batched workgroups met: redo one at a time
            races += [need.race] if need.race is not None else []
            report.registers.clear()
            # fresh zeroed memory, not `device[:] = 0`: untouched pages of a large device
            # memory then cost nothing (the first run wrote only what the kernel stores)
            device = report.device_memory = new_device_memory(launch)
    ctx.warnings[:0] = races
    if error is not None:
        report.errors.append(error)
        collect(ctx.batch)
    report.stats = ctx.stats
    report.warnings = ctx.warnings
    if profile:
        report.profile = observer.record
    if observer is not None and hasattr(observer, "records"):
        report.line_records = observer.records
        report.recorded_threads = observer.threads
    report.launch_summary = launch_summary(kernel, geo, device)
    return report


def _check_limits(launch: Launch) -> None:
    """The instruction and time limits of an API launch, as the flags check them."""
    if launch.max_instructions < 0:
        raise launch_error(f"--max-instructions: must be 0 (unlimited) or positive, got "
                           f"{launch.max_instructions}", "--max-instructions")
    limit = launch.time_limit
    if limit is not None and not (math.isfinite(limit) and limit > 0):
        raise launch_error(f"--time-limit: must be a positive number of seconds, got {limit}",
                           "--time-limit")


def launch_summary(kernel: KernelCode, geo: Geometry, device: np.ndarray) -> dict:
    """The resolved launch as the report carries it."""
    return {
        "grid": list(geo.grid), "workgroup": list(geo.workgroup), "wave_width": geo.wave_width,
        "registers": geo.registers, "local_memory": geo.local_memory,
        "device_memory": int(device.size), "kernel": kernel.name,
    }


def _observer(launch: Launch, geo: Geometry, compiled):
    if launch.record_threads is None and not launch.trace:
        return None
    from .recording import LineRecorder
    from .trace import Tracer
    if launch.trace:
        return Tracer(compiled, geo, launch.trace if callable(launch.trace) else None,
                      detailed=launch.trace != "upstream")
    if launch.record_threads == "first_wave":
        threads = tuple(range(min(geo.wave_width, geo.threads_per_wg)))
    else:
        threads = tuple(int(t) for t in launch.record_threads)
    return LineRecorder(compiled, geo, threads, launch.record_limit)


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
