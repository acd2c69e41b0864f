"""Running a prepared launch (`pipeline.prepare`) on the native core: device memory and its
initial contents, the core's run, its statistics as `Stats`, its warnings and error
(`findings`), in a `RunReport`.

`run_native(prepared, options, observers, started)` returns a `NativeRun`: `report` is the run's
`RunReport` (engine "native", equal to the numpy engine's: warnings, errors, memory, statistics),
or None and `reason` says why the numpy engine must run the launch instead. Only `pipeline.run`
calls it. No numpy.

The time limit and a cancel callback (`RunOptions.time_limit`, `cancel`) are polled by the core
itself (limits.c) on the numpy engine's schedule: the deadline on CLOCK_MONOTONIC (Python's
`time.monotonic`, counted from `started`), the callback called with the GIL at most every 10 ms
of those polls (and once before the run, as the numpy engine polls before it starts); a callback
that raises stops the run and the exception propagates, as on the numpy engine.

The core runs the workgroups on `native.threads()` threads (`WAVE_LSP_THREADS`; parallel.c) with
the results of one at a time; `RunReport.threads` says how many gave them (1 where it ran the
launch again one at a time: workgroups met on memory, an error, ...).

Races are the core's own, reported as the numpy engine reports them: between the waves of a
workgroup (`data_race`, in `RunOptions.racecheck`'s "benign" and "strict" modes alike), its race
shadows (shadow.c) screen each epoch's accesses and waverace.c checks the log of an epoch where
they saw waves meet exactly as racecheck.py does (its limits `race_report.MAX_GROUPS` and
`MAX_LOGGED` passed to it); between workgroups, a run whose owner shadows saw workgroups meet
(`WORKGROUPS_MEET`) runs again one workgroup at a time with meeting.c's tables, which name the
race as `workgroup_races` does.

NaN operands never leave the core: both engines give upstream's bits (exec.h `nan_settle`,
emu/nan_results.py: the first NaN operand in the instruction's order made quiet, the default NaN
of an invalid operation, f16 NaNs converted as upstream's `half` crate; fmin/fmax/fclamp/fsat
choose an operand as upstream's Rust min/max/clamp do).

What the core leaves to the numpy engine (the `reason`, `WAVE_LSP_SHOW_ENGINE=1`'s
`engine: numpy (REASON)`), all of it instructions or semantics the core lacks:
- an instruction it does not implement (`_wavecore.OPS` lists those it does: every instruction
  at present, the matrix instructions in mma.c, the transcendentals through the C library as
  upstream's: emu/libm.py), or one naming a predicate that does not exist;
- "an error with the profile" (the record of a profile cut short is not compared), "the
  editor's profile past its pattern bounds" (a profile with a time limit or cancel, as the
  editor's, whose record dropped access patterns: past the bounds the core's record differs
  from the numpy engine's, whose patterns are per batch; the command's `--profile` keeps it),
  "endif/endloop pops a frame of the caller",
  "memory trace too long", and the observers and launches `_ineligible` names (a trace,
  breakpoints, recording, the store-writer record, device memory above 256 MiB, local memory
  above 16 MiB, too many workgroups).
"""

from __future__ import annotations

import os
import time
from array import array
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from ...isa import MAX_CALL_DEPTH, MIN_DIVERGENCE_DEPTH
from ..kernel_launch import Launch, LaunchError, initialised_ranges, write_memory_init
from ..options import RunOptions
from .. import messages, race_report
from ..report import EmuError
from ..run_report import RunReport
from ..stats import Stats
from . import core as native_core, threads as native_threads
from .findings import ERRORS, TIMING, Findings
from .program import encode, encode_uses
from .recorded import lines_spec, read_lines, read_writers, writers_spec

if TYPE_CHECKING:
    from ..prepared import PreparedLaunch

MAX_DEVICE_MEMORY = 256 << 20       # beyond this the race shadows would cost too much memory
MAX_LOCAL_MEMORY = 16 << 20         # the same for local memory (4 times its size in shadows)
RUN_AGAIN = "run again one workgroup at a time"   # parallel.c: workgroups met on threads
WORKGROUPS_MEET = "workgroups met on device memory"  # shadow.c: again, finding the race
MAX_WORKGROUPS = 0x1FFFFFFE         # workgroup ids the device shadow can hold (shadow.c)


@dataclass
class NativeRun:
    reason: str | None                           # why the numpy engine must run it, or None
    report: RunReport | None = None              # the results when `reason` is None


def _ineligible(launch: Launch, options: RunOptions, observers) -> str | None:
    """Why the core cannot run the launch with these observers (the one place that decides
    by the observers present: the core records the initcheck, the memory trace, the profile,
    the shown lines, the store writers and the write log itself, not both the memory trace and
    the profile),
    or None."""
    kinds = set()
    for observer in observers:
        if not observer.native:
            return observer.refusal
        kinds.add(observer.kind)
    if {"mem_trace", "profile"} <= kinds:
        return "--mem-trace with the profile"
    if launch.device_memory > MAX_DEVICE_MEMORY:
        return "device memory above 256 MiB"
    return None


def _memory(launch: Launch, core):
    """Device memory (a `_wavecore.Memory`) with its initial contents, as
    `kernel_launch.new_device_memory` writes it."""
    memory = core.Memory(launch.device_memory)
    device = memoryview(memory)
    try:
        write_memory_init(device, launch.memory_init,
                          lambda offset, count, scale: core.fill_iota(device, offset, count,
                                                                      float(scale)))
    finally:
        device.release()
    return memory


def run_native(prepared: PreparedLaunch, options: RunOptions, observers,
               started: float | None = None) -> NativeRun:
    """Run a prepared launch with `observers` (`observer`) on the native core (see the module
    doc); the time limit counts from `started` (a `time.monotonic()` reading; default: now)."""
    started = time.monotonic() if started is None else started
    core = native_core()
    if core is None:
        return NativeRun("WAVE_LSP_NATIVE=0 turns the native core off"
                         if os.environ.get("WAVE_LSP_NATIVE", "1") == "0"
                         else "the native core is not built")
    launch, kernel, geo = prepared.launch, prepared.kernel, prepared.geometry
    reason = _ineligible(launch, options, observers)
    if reason is not None:
        return NativeRun(reason)
    try:
        device = _memory(launch, core)
    except LaunchError as err:                   # the numpy engine reports it
        return NativeRun(f"launch error: {err}")
    gx, gy, gz = geo.grid
    if gx * gy * gz > MAX_WORKGROUPS:
        return NativeRun("too many workgroups")
    if geo.local_memory > MAX_LOCAL_MEMORY:
        return NativeRun("local memory above 16 MiB")
    code = encode(kernel, geo.registers, core.OPS)
    if code is None:
        return NativeRun("an instruction the native core does not implement")
    numbers = (*geo.grid, *geo.workgroup, geo.wave_width, geo.registers, geo.local_memory,
               MIN_DIVERGENCE_DEPTH, MAX_CALL_DEPTH,
               min(options.max_instructions, LIMIT_NEVER_MET))
    regs = {int(k): int(v) for k, v in launch.set_regs.items()}
    kinds = {observer.kind: observer for observer in observers}
    uses = encode_uses(kernel, geo.registers) if "initcheck" in kinds else b""
    profile = None
    if "profile" in kinds:             # the kernel profile (profile.c, profile_native.py)
        from ..profile_native import native_spec
        profile = native_spec(geo.wave_width)
    mem_trace = kinds.get("mem_trace")
    lines = writers = None             # the editor's records (record.c, recorded.py)
    if "lines" in kinds:
        lines = lines_spec(kinds["lines"], kernel, geo)
        if isinstance(lines, str):
            return NativeRun(lines)
    if "writers" in kinds:
        writers = writers_spec(kernel, geo)
    logger = kinds.get("write_log")    # the write log (writelog.c, write_log.py)
    wlog = None if logger is None else logger.native_spec(kernel, geo, core)
    deadline = started + options.time_limit if options.time_limit else 0.0
    found = Findings(kernel, geo, launch.device_memory, options.max_instructions)
    early = _limit_before(deadline, options.cancel)
    if early is not None:              # as the numpy engine's poll before it runs anything
        return NativeRun(None, RunReport(kernel=kernel.name, device=device, errors=[early],
                                         launch_summary=prepared.summary(), engine="native"))
    wanted = array("q", sorted({int(t) for t in launch.register_threads}))
    per = geo.registers + 4
    # the editor's records follow one workgroup's threads in order: one at a time
    recording = lines is not None or writers is not None or wlog is not None
    threads = 1 if recording else native_threads()
    meeting = None           # the race between workgroups (meeting.c), when asked for
    while True:
        registers_out, registers_have = bytearray(4 * per * len(wanted)), bytearray(len(wanted))
        result = core.run(code, numbers, device, regs, uses, _initialised(launch, uses),
                          profile=profile, memlog=mem_trace is not None, deadline=deadline,
                          cancel=options.cancel, wanted=wanted.tobytes(),
                          registers_out=registers_out, registers_have=registers_have,
                          lines=None if lines is None else lines.spec, writers=writers,
                          threads=threads, write_log=wlog,
                          strict_races=options.racecheck == "strict",
                          race_groups=race_report.MAX_GROUPS,
                          race_logged=race_report.MAX_LOGGED,
                          **({} if meeting is None else {"meeting": meeting}))
        stopped = _bail_of(result, recording,
                           mem_trace is not None, profile is not None)
        if stopped == RUN_AGAIN:                        # workgroups met: one at a time, afresh
            device, threads = _memory(launch, core), 1
        elif stopped == WORKGROUPS_MEET and meeting is None:    # again, finding the race
            device, threads, meeting = _memory(launch, core), 1, bytearray(7 * 8)
        else:
            break
    recorded = None
    if recording:
        result, recorded = result
    log = None
    if mem_trace is not None:          # the memory access log (memlog.c, mem_access.py)
        result, log = result
    (bail, index, counts, (warnings, error), threads), record = \
        result if profile is not None else (result, None)
    if bail is not None:
        return NativeRun(f"{bail} (instruction {index})")
    stats = _stats(counts)
    reason = _unlike_numpy(kinds, error)
    if reason is None and record is not None and (options.time_limit is not None
                                                  or options.cancel is not None) \
            and any(array("q", record[5])):
        reason = "the editor's profile past its pattern bounds"
    if reason is not None:
        return NativeRun(reason)
    report = RunReport(kernel=kernel.name, device=device, stats=stats,
                       warnings=_meeting(meeting, geo, kernel)
                       + [found.warning(w) for w in warnings],
                       errors=[] if error is None else [found.error(error)],
                       registers=_registers(wanted, registers_out, registers_have, per),
                       launch_summary=prepared.summary(), engine="native", threads=threads)
    if mem_trace is not None:
        _mem_trace(report, mem_trace, kernel, geo, log)
    if profile is not None:
        from ..profile_native import native_record
        report.profile = native_record(kernel, geo, record)
    if lines is not None:
        report.line_records = read_lines(recorded[0], lines, kernel)
        report.recorded_threads = lines.threads
    if writers is not None:
        report.writers = read_writers(recorded[1], launch.device_memory)
    if wlog is not None:
        from ..write_log import WriteLog
        rebuild = None if logger.values else partial(_values_again, prepared, options, logger)
        report.write_log = WriteLog.of_native(recorded[2], logger.buffers, geo.lanes_per_wg,
                                              wlog[1], logger.window, logger.budget, rebuild)
    return NativeRun(None, report)


def _values_again(prepared: PreparedLaunch, options: RunOptions, logger, log) -> memoryview:
    """The values of a write log recorded without them (`log`): the launch run again, one
    workgroup at a time as it was recorded, to the last workgroup the log holds, keeping
    them (`write_log.values_again` checks it repeated itself)."""
    from ..write_log import values_again
    if not len(log.rows):
        return memoryview(b"")
    again = replace(options, time_limit=None, cancel=None, record_values=True)
    got = run_native(prepared, again, [logger.again(log.last_group)])
    return values_again(log, got.report.write_log if got.report is not None else None,
                        got.reason)


def _bail_of(result, recorded: bool, logged: bool, profiled: bool):
    """The bail reason of `core.run`'s result (inside the records it pairs it with)."""
    for paired in (recorded, logged, profiled):
        if paired:
            result = result[0]
    return result[0]


def _meeting(meeting: bytearray | None, geo, kernel) -> list:
    """The `data_race` warning of the race between workgroups meeting.c found, as a list."""
    if meeting is None:
        return []
    found, address, i, thread, j, other, other_writes = array("q", bytes(meeting))
    if not found:
        return []
    from ..race_report import Meeting, race_warning
    return [race_warning(Meeting(address, (i, thread), (j, other), bool(other_writes)), geo,
                         [ins.offset for ins in kernel.instructions],
                         [ins.line for ins in kernel.instructions], kernel.instructions)]


def _registers(wanted, out: bytearray, have: bytearray, per: int) -> dict:
    """`RunReport.registers` from the core's copies: thread -> {"r0": v, ..., "p3": v}."""
    words = array("I", bytes(out))
    registers = {}
    for i, thread in enumerate(wanted):
        if have[i]:
            row = words[i * per:(i + 1) * per]
            values = {f"r{r}": int(v) for r, v in enumerate(row[:per - 4])}
            values.update({f"p{p}": int(v) for p, v in enumerate(row[per - 4:])})
            registers[thread] = values
    return registers


def _initialised(launch: Launch, uses: bytes) -> bytearray:
    """The initcheck's shadow of device memory (initcheck.c: a byte per byte, 1 where the
    launch's initialisers wrote), or an empty one when the check is off (`uses` empty)."""
    if not uses:
        return bytearray()
    shadow = bytearray(launch.device_memory)
    ones = b"\x01" * min(launch.device_memory, 1 << 20)
    for offset, length in initialised_ranges(launch.memory_init):
        for start in range(offset, offset + length, len(ones)):   # no copy of its size
            end = min(start + len(ones), offset + length)
            shadow[start:end] = ones[:end - start]
    return shadow


# the core counts in int64: a larger limit (the command takes any) is never met either
LIMIT_NEVER_MET = (1 << 63) - 1


def _limit_before(deadline: float, cancel) -> EmuError | None:
    """The time limit or a cancel met before the run starts (as `engine.Limits.poll`)."""
    if deadline and time.monotonic() > deadline:
        return EmuError("time_limit", messages.TIME_LIMIT)
    if cancel is not None and cancel():
        return EmuError("cancelled", messages.CANCELLED)
    return None


def _unlike_numpy(kinds, error) -> str | None:
    """Why the numpy engine's report of this run would differ from the core's, or None. The
    core runs workgroups one at a time, as the numpy engine reports an error, the instruction
    limit included (it runs a batch that met one again, one workgroup at a time:
    `engine.SequentialNeeded`). The time limit and a cancel stop at no defined point, and are
    reported as they are met. The record of a profile cut short by an error is not compared."""
    if error is not None and "profile" in kinds:
        return "an error with the profile"
    return None


def _mem_trace(report: RunReport, tracer, kernel, geo, log: bytes) -> None:
    """The native core's memory access log, kept in the report or written (`mem_access`), as
    the memory trace observer `tracer` asks."""
    from ..mem_access import from_native, write
    records = from_native(log, kernel.instructions, geo, tracer.filter)
    if tracer.keep:
        report.mem_trace = records
    else:
        write(records, tracer.out)


def _stats(counts: tuple[int, ...]) -> Stats:
    (integer, float_, memory, control, wave, atomic, atomic_lanes, device_loads, device_stores,
     device_load_bytes, device_store_bytes, local_loads, local_stores, local_load_bytes,
     local_store_bytes, barriers, divergent, workgroups, waves) = counts
    return Stats(total=integer + float_ + memory + control + wave + atomic, integer=integer,
                 float=float_, memory=memory, control=control, wave=wave,
                 atomic=atomic + atomic_lanes,  # upstream also counts one per lane
                 device_loads=device_loads, device_stores=device_stores,
                 device_load_bytes=device_load_bytes, device_store_bytes=device_store_bytes,
                 local_loads=local_loads, local_stores=local_stores,
                 local_load_bytes=local_load_bytes, local_store_bytes=local_store_bytes,
                 barriers=barriers, divergent_branches=divergent, workgroups=workgroups,
                 waves=waves)
