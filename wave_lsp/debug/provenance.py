"""Who wrote a register lane, for the debugger's Variables view: each lane of a register
expands to the write that made its value (`line 8, thread 3, step 41 ← iadd r4, r3, r1`) and
where each of that instruction's operands came from.

The answers come from a recording of the session's launch (`RunOptions(write_log=True)` for the
running workgroup, the engine's own run: the emulator is deterministic, so its steps are the
`SteppingRun`'s), made on the first question about a workgroup and kept on the views until the
session moves to another; "now" is the workgroup's step count. A value changed in the session
(`setVariable`, `writeMemory`) is not what the recording saw: the writer named is the run's.
"""

from __future__ import annotations

from ..emu import Input, Provenance, RunOptions, TargetError, run


def _recording(views) -> Provenance | None:
    """The views' recording of the running workgroup (made now if it has none)."""
    session_run = views.run
    kept = getattr(views, "recording", None)
    if kept is not None and kept[0] is session_run and kept[1] == session_run.workgroup:
        return kept[2]
    options = RunOptions(write_log=True, record_values=True,      # asked at once: no re-run
                         record_workgroups=(session_run.workgroup,),
                         initcheck=False, max_instructions=session_run.options.max_instructions)
    try:
        provenance = Provenance(run(session_run.prepared, options=options),
                                session_run.prepared)
    except TargetError:
        provenance = None
    views.recording = (session_run, session_run.workgroup, provenance)
    return provenance


def _whence(writer) -> str:
    if isinstance(writer, Input):
        return writer.text
    where = f"line {writer.line + 1}" if writer.line is not None else f"pc {writer.pc:#x}"
    return f"{where}, thread {writer.lane}, step {writer.step} ← {writer.instruction}"


def who_wrote_now(views, wave: int, name: str, lane: int) -> list[dict]:
    """The children of a register lane in the Variables view: its writer, then each input."""
    session_run = views.run
    thread = session_run.workgroup * session_run.geo.threads_per_wg \
        + wave * session_run.geo.wave_width + lane
    provenance = _recording(views)
    if provenance is None:
        return [{"name": "written by", "value": "unknown: the launch could not be recorded",
                 "variablesReference": 0}]
    try:
        answer = provenance.register_before(name, thread, session_run.steps)
    except TargetError as err:
        return [{"name": "written by", "value": str(err), "variablesReference": 0}]
    out = [{"name": "written by", "value": _whence(answer.writer), "variablesReference": 0}]
    for source in answer.inputs:
        value = "?" if source.value is None else f"0x{source.value:x}"
        out.append({"name": source.operand, "value": f"{value} from {_whence(source.writer)}",
                    "variablesReference": 0})
    return out
