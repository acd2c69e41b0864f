"""The launch attribute `stopAt`: open the session paused at the moment of a finding (a race,
an uninitialised read, a wrong value a kernel test found, a `--compare` difference, a run
error), with the lanes involved in view.

`stopAt` is an object (checked by `moment_of`):
- `workgroup`: the workgroup, linear or `[x, y, z]` (default: that of the first thread);
- `step`: the instruction count within that workgroup (0 = its first instruction) — exact;
- or `line` (0-based source line) with `occurrence` "first" (default) or "last": the first or
  last execution of that line in the workgroup by one of the threads (any lane without them);
- or `lines` (0-based source lines) with as many `threads`: the first execution of line i by
  thread i (a witness's two accesses: whichever the schedule runs first);
- or `error: true`: run to the run-time error (barrier deadlocks included) and stop on it;
- or `address` (a device byte address) with `occurrence` "last" (default for it) or "first":
  just after the last (first) write of that word in the run (a wrong value's moment);
- `threads`: the global linear thread ids involved (as `--lanes` counts), and/or `lanes`:
  `[wave, lane]` pairs in the workgroup; shown in the "Finding lanes" scope, choosing the wave
  that stops (and, with `line`, whose execution counts);
- `reason`: a short text for the stop ("data race on 0x40").
Breakpoints do not stop the way to the moment; the history is recorded on the way, so reverse
steps work from there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..emu import FAULTED, FINISHED, WORKGROUP_DONE
from .watch import MemoryWatch

MAX_THREADS = 64


@dataclass(frozen=True)
class Moment:
    workgroup: object = None          # int, (x, y, z) or None
    step: int | None = None
    line: int | None = None
    occurrence: str = "first"
    error: bool = False
    threads: tuple[int, ...] = ()
    reason: str = "the finding"
    lanes: tuple[tuple[int, int], ...] = ()
    address: int | None = None
    lines: tuple[int, ...] = ()       # with `threads`: thread i's line


def moment_of(raw) -> Moment | None:
    """The `Moment` of a launch request's `stopAt` (ValueError with the reason if malformed)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("launch: 'stopAt' must be an object ({workgroup, step} or "
                         "{workgroup, line, occurrence} or {error: true}, with threads)")
    workgroup = raw.get("workgroup")
    if workgroup is not None and not (_count(workgroup) or (
            isinstance(workgroup, list) and len(workgroup) == 3 and all(map(_count, workgroup)))):
        raise ValueError("stopAt.workgroup must be a linear id or [x, y, z]")
    for key in ("step", "line", "address"):
        if raw.get(key) is not None and not _count(raw[key]):
            raise ValueError(f"stopAt.{key} must be a whole number ≥ 0")
    threads = raw.get("threads", [])
    if not isinstance(threads, list) or not all(map(_count, threads)) \
            or len(threads) > MAX_THREADS:
        raise ValueError(f"stopAt.threads must be a list of at most {MAX_THREADS} thread ids")
    lanes = raw.get("lanes", [])
    if not isinstance(lanes, list) or len(lanes) > MAX_THREADS or not all(
            isinstance(p, list) and len(p) == 2 and all(map(_count, p)) for p in lanes):
        raise ValueError(f"stopAt.lanes must be a list of at most {MAX_THREADS} [wave, lane] "
                         "pairs")
    paired = raw.get("lines", [])
    if not isinstance(paired, list) or not all(map(_count, paired)) or (
            paired and len(paired) != len(threads)):
        raise ValueError("stopAt.lines must be a list of source lines, one per thread")
    occurrence = raw.get("occurrence", "last" if raw.get("address") is not None else "first")
    if occurrence not in ("first", "last"):
        raise ValueError("stopAt.occurrence must be 'first' or 'last'")
    if all(raw.get(k) is None for k in ("step", "line", "address")) and not paired \
            and not raw.get("error"):
        raise ValueError("stopAt needs a step, a line, lines, an address or error: true")
    reason = raw.get("reason", "the finding")
    if not isinstance(reason, str):
        raise ValueError("stopAt.reason must be a text")
    return Moment(tuple(workgroup) if isinstance(workgroup, list) else workgroup,
                  raw.get("step"), raw.get("line"), occurrence, bool(raw.get("error")),
                  tuple(threads), reason[:200], tuple(tuple(p) for p in lanes),
                  raw.get("address"), tuple(paired))


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 40


def run_to_moment(session, moment: Moment) -> None:
    """Run `session` forward (recording its history) to the moment and stop there."""
    run = session.run
    geo = run.geo
    workgroup = moment.workgroup
    if isinstance(workgroup, tuple):
        x, y, z = workgroup
        workgroup = x + geo.grid[0] * (y + geo.grid[1] * z)
    if workgroup is None and moment.threads:
        workgroup = moment.threads[0] // geo.threads_per_wg
    if workgroup is not None and workgroup >= geo.workgroup_count:
        session._output(f"stopAt: workgroup {workgroup} is not in the launch\n", "stderr")
        workgroup = None
    threads = list(moment.threads)
    if workgroup is not None:
        threads += [workgroup * geo.threads_per_wg + wave * geo.wave_width + lane
                    for wave, lane in moment.lanes if wave * geo.wave_width + lane
                    < geo.threads_per_wg]
    session.focus = tuple(dict.fromkeys(threads))
    lines = {i for i, ins in enumerate(run.instructions) if ins.line == moment.line}
    at = {}                                   # `lines`: instruction -> the threads it counts for
    for thread, line in zip(moment.threads, moment.lines):
        for i, ins in enumerate(run.instructions):
            if ins.line == line:
                at.setdefault(i, []).append(thread)
    found: list[int] = []
    watch = None
    if moment.address is not None:
        watch = MemoryWatch(moment.address & ~3)
        workgroup = None if not moment.threads else workgroup

    def here() -> bool:
        if workgroup is not None and run.workgroup != workgroup:
            return False
        if moment.step is not None:
            return run.steps == moment.step
        if moment.lines:
            return run.index in at and bool(_involved(run, at[run.index]).any())
        if moment.line is None or run.index not in lines:
            return False
        return bool(_involved(run, session.focus).any()) if session.focus else \
            any(run.has_active(w) for w in range(run.waves))

    old = run.workgroup
    while True:
        if session.cancelled.is_set():
            return
        if not moment.error and watch is None and here():
            found.append(run.position)
            if moment.occurrence == "first":
                break
        if workgroup is not None and run.workgroup > workgroup and found:
            break
        index = run.index
        check = watch.before(run, session.written_regs) if watch is not None else None
        result = run.step()
        session._after_step(index)
        session.reverse.recorded()
        if check is not None and check(run):
            found.append(run.position)
            if moment.occurrence == "first":
                break
        if result == FAULTED or result == FINISHED:
            break
        if result == WORKGROUP_DONE and workgroup is not None and run.workgroup > workgroup \
                and found:
            break
    if found:
        session.reverse.timeline.seek(run, found[-1], session.cancelled)
    if run.workgroup != old:
        session.announce_workgroup(old)
    if not found and run.error is not None:
        session._fault()
        return
    if not found:
        session._output(f"stopAt: the moment of {moment.reason} was not reached; the run "
                        "ended first\n", "stderr")
        session._finish()
        return
    wave = _focus_wave(run, at.get(run.index, []) + list(session.focus))   # whose access it is
    x, y, z = geo.workgroup_id(run.workgroup)
    plural = "s" if len(session.focus) > 1 else ""
    shown = f", thread{plural} {', '.join(map(str, session.focus))}" if session.focus else ""
    session._stopped("goto", wave, description=f"Paused at the moment of {moment.reason}: "
                     f"step {run.steps} of workgroup ({x},{y},{z}){shown}")


def _involved(run, threads):
    """Per lane of the workgroup: one of `threads` executing the next instruction."""
    mask = np.zeros(run.geo.lanes_per_wg, dtype=bool)
    base = run.workgroup * run.geo.threads_per_wg
    for t in threads:
        if base <= t < base + run.geo.threads_per_wg:
            mask[t - base] = True
    executing = np.concatenate([run.executing(w) for w in range(run.waves)])
    return executing & mask


def _focus_wave(run, threads) -> int:
    base = run.workgroup * run.geo.threads_per_wg
    for t in threads:
        if base <= t < base + run.geo.threads_per_wg:
            return (t - base) // run.geo.wave_width
    return next((w for w in range(run.waves) if run.has_active(w)), 0)


def focus_rows(run, threads) -> list[tuple[int, int, int]]:
    """(thread, wave, lane) of the involved threads that are in the running workgroup."""
    base = run.workgroup * run.geo.threads_per_wg
    return [(t, *divmod(t - base, run.geo.wave_width)) for t in threads
            if base <= t < base + run.geo.threads_per_wg]

