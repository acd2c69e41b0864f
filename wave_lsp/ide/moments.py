""""Debug at this moment": from a finding of a run (a run-time error, a barrier deadlock, a data
race, an uninitialised read, any other run warning), a failing kernel test or a `--compare`
difference to a debug configuration that opens the debugger paused at that moment, with the
lanes involved in view (the debug adapter's launch attribute `stopAt`, see
`wave_lsp.debug.moment`).

A finding names its workgroup, wave, lanes and line; the adapter re-executes the launch
(deterministically) to the first execution of that line by those lanes in that workgroup —
where the emulator reported it — or, for an error, to the error itself. A wrong value (a
failing test, a `--compare` difference) names its device address: the adapter runs the launch
and goes back to the last write of that word. A `wave-lsp verify` witness ("Debug witness")
launches its own flags and stops at the first of its two accesses. Plain data; the server makes the code actions
and the editors start the session (`DEBUG_COMMAND`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

DEBUG_COMMAND = "wave.debugAtMoment"
TITLE = "Debug at this moment"


@dataclass(frozen=True)
class FindingMoment:
    line: int                    # the 0-based source line the finding is shown on
    title: str
    configuration: dict          # a complete `launch` configuration for the debug adapter


def configuration(path: str | Path, kernel: str, flags: str | list[str] | None, stop_at: dict,
                  name: str) -> dict:
    """The debug configuration of a launch of `kernel` with `flags` (a launch line's flag text
    or words; None: the kernel's default launch) stopping at `stop_at`."""
    path = Path(path)
    config = {"type": "wave", "request": "launch", "name": name[:120], "program": str(path),
              "cwd": str(path.parent), "kernel": kernel, "stopAt": stop_at}
    if isinstance(flags, list):
        config["args"] = list(flags)
    elif flags is not None:
        try:
            config["args"] = shlex.split(flags, comments=False)
        except ValueError:
            config["args"] = flags.split()
    return config


def _pairs(wave, lanes) -> list[list[int]]:
    return [[int(wave), int(lane)] for lane in (lanes or ())] if wave is not None else []


def _finding_stop(finding: dict, error: bool) -> dict | None:
    """The `stopAt` of an error or warning as `RunReport` gives it (asdict of EmuError or
    EmuWarning), or None when it names no place."""
    workgroup = finding.get("workgroup")
    if workgroup is None or (finding.get("line") is None and not error):
        return None
    lanes = _pairs(finding.get("wave"), finding.get("lanes"))
    other = finding.get("other_workgroup")
    if other is not None and list(other) == list(workgroup):
        lanes += _pairs(finding.get("other_wave"), finding.get("other_lanes"))
    kind = str(finding.get("kind", "finding")).replace("_", " ")
    stop = {"workgroup": list(workgroup), "lanes": lanes, "reason": kind}
    if error:
        stop["error"] = True
    else:
        stop["line"] = int(finding["line"])
    if finding.get("address") is not None:
        stop["reason"] = f"{kind} on 0x{int(finding['address']):x}"
    return stop


def run_moments(run, path: str | Path) -> list[FindingMoment]:
    """The moments of a `KernelRun`'s errors and warnings."""
    flags = run.flags if run.launch_line is not None else None
    out = []
    for findings, error in ((run.errors, True), (run.warnings, False)):
        for finding in findings:
            if finding.get("kind") == "cancelled" or finding.get("line") is None:
                continue
            stop = _finding_stop(finding, error)
            if stop is None:
                continue
            name = f"{run.kernel}: {stop['reason']} (line {int(finding['line']) + 1})"
            out.append(FindingMoment(int(finding["line"]), TITLE,
                                     configuration(path, run.kernel, flags, stop, name)))
    return out


def value_moment(path: str | Path, kernel: str, flags: str | list[str] | None, address: int,
                 writer_line: int | None, thread: int | None, why: str) -> FindingMoment | None:
    """The moment a wrong value was written: the last write of the device word at `address`
    (a failing kernel test, a `--compare` difference), shown on its writer's line."""
    if writer_line is None:
        return None
    stop = {"address": address & ~3, "occurrence": "last", "reason": why[:200]}
    if thread is not None:
        stop["threads"] = [int(thread)]
    name = f"{kernel}: {why} (line {writer_line + 1})"
    return FindingMoment(writer_line, TITLE, configuration(path, kernel, flags, stop, name))


WITNESS_TITLE = "Debug witness"


def witness_moment(path: str | Path, verdict) -> FindingMoment | None:
    """"Debug witness": the launch of a `wave-lsp verify` witness (its flags, `--set-reg` values
    included) paused at the first of its two accesses the schedule runs (a race: thread i at
    line i), or at the barrier one thread reaches (a divergence), in the lower of the two
    threads' workgroups, both threads in view. None without a witness."""
    w = verdict.witness
    if w is None or verdict.geometry is None:
        return None
    a, b = w.threads
    per_wg = verdict.geometry.threads
    workgroup = min(a.global_id, b.global_id) // per_wg
    threads = [a.global_id, b.global_id]
    if w.kind == "race":
        stop = {"workgroup": workgroup, "threads": threads, "lines": list(w.lines),
                "reason": f"the data race on {w.space} byte {w.address}"}
        what = f"race on {w.space} byte {w.address} (lines {w.lines[0] + 1} ↔ {w.lines[1] + 1})"
    else:
        stop = {"workgroup": workgroup, "threads": threads, "line": w.lines[0],
                "reason": f"the divergent barrier at line {w.lines[0] + 1}"}
        what = f"divergent barrier (line {w.lines[0] + 1})"
    name = f"{verdict.kernel}: {WITNESS_TITLE.lower()}, {what}"
    return FindingMoment(w.lines[0], WITNESS_TITLE, configuration(
        path, verdict.kernel, w.launch_flags(verdict.geometry), stop, name))
