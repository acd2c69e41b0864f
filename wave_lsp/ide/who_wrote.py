"""Who wrote a value, in the editor: inline runs recorded for it, the `wave-lsp.whoWrote`
command's answer, and the one-line text the hovers show.

An inline run records the write log of its shown threads' workgroups (`recorded_run`, setting
`run.recordBudgetMiB`; on the native core only: where the core cannot run the launch, the run
goes on unrecorded, as before) and keeps a `Provenance` on its `KernelRun`, so a hover answers
at once: `writer_text` ("written by line 8, thread 3, step 41 ← iadd r4, r3, r1"). The command
answers from that recording when it covers the target, else records the run again for it on
the job service's worker (`run_session.record_target`: the target thread's workgroup, or every
workgroup for a memory word). `answer_json` is the command's result: `{value, line, lane, wave,
workgroup, step, iteration, instruction, inputs: [{operand, value, writer}]}`, lines 0-based,
`lane` the writing thread's global id (as `--lanes` counts); a value from outside the recorded
steps has `line: null` and an `input` naming it (`--set-reg 3:128`, `--fill-iota ...`, a
special register, ...).
"""

from __future__ import annotations

import dataclasses

from ..emu import EngineUnavailable, Input, Provenance, TargetError, prepare, run

WRITERS_IN_HOVER = 8          # dump values whose writer a hover names


def shown_workgroups(threads, geometry) -> tuple[int, ...]:
    """The workgroups of shown threads (`--lanes`; None: the first wave of workgroup 0)."""
    if not threads:
        return (0,)
    return tuple(sorted({t // geometry.threads_per_wg for t in threads}))


def recording_options(options, limits, workgroups) -> object:
    """`options` recording the write log of `workgroups` (None: all) within the budget."""
    return dataclasses.replace(options, write_log=True, writers=True,
                               record_workgroups=workgroups,
                               record_budget=limits.record_budget_mib << 20)


def recorded_run(assembly, launch, options, limits, threads):
    """Run an inline run's launch with its shown threads' workgroups recorded: (report,
    Provenance or None). Unrecorded where the setting is 0, the core cannot run it, or the log
    passed its budget."""
    prepared = prepare(assembly, launch)
    if limits.record_budget_mib <= 0:
        return run(prepared, options=options), None
    recording = recording_options(options, limits,
                                  shown_workgroups(threads, prepared.geometry))
    try:
        report = run(prepared, options=dataclasses.replace(recording, engine="native"))
    except EngineUnavailable:
        return run(prepared, options=options), None
    try:
        return report, Provenance(report, prepared)
    except TargetError:                     # past the budget: the run is shown unrecorded
        return report, None


def parse_target(target) -> tuple:
    """("address", A) or ("register", name, thread, line 0-based): the command's target
    `{"address": A}` or `{"register": "r4", "lane": T, "line": L}`. TargetError if neither."""
    def whole(value, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TargetError(f"whoWrote: {what} must be a non-negative integer, got {value!r}")
        return value
    if isinstance(target, dict) and "address" in target:
        return ("address", whole(target["address"], "address"))
    if isinstance(target, dict) and "register" in target:
        name = target["register"]
        if not isinstance(name, str):
            raise TargetError(f"whoWrote: register must be a name like 'r4', got {name!r}")
        return ("register", name.strip(), whole(target.get("lane"), "lane"),
                whole(target.get("line"), "line"))
    raise TargetError('whoWrote: the target must be {"address": A} or {"register": "r4", '
                      '"lane": T, "line": L}')


def needed_workgroups(target: tuple, geometry) -> tuple[int, ...] | None:
    """The workgroups a recording must hold to answer `target` (None: all)."""
    if target[0] == "register":
        return (target[2] // geometry.threads_per_wg,)
    return None


def covers(provenance: Provenance | None, target: tuple) -> bool:
    """Whether a recording answers `target` (the workgroups it needs were recorded)."""
    if provenance is None:
        return False
    needed = needed_workgroups(target, provenance.geo)
    groups = provenance.log.groups
    return all(groups) if needed is None else all(provenance.log.recorded(g) for g in needed)


def answer(provenance: Provenance, target: tuple):
    """The `Answer` for a parsed target."""
    if target[0] == "address":
        return provenance.address(target[1])
    _, name, thread, line = target
    return provenance.register(name, thread, line)


def writer_json(writer) -> dict:
    """A `Write` or an `Input` as the command returns it."""
    if isinstance(writer, Input):
        return {"line": None, "input": writer.text, "kind": writer.kind}
    return {"target": writer.target, "value": writer.value, "line": writer.line,
            "lane": writer.lane, "wave": writer.wave, "workgroup": writer.workgroup,
            "step": writer.step, "iteration": writer.iteration,
            "instruction": writer.instruction}


def answer_json(result) -> dict:
    """The `wave-lsp.whoWrote` result of an `Answer`."""
    out = {"value": result.value, **{k: v for k, v in writer_json(result.writer).items()
                                      if k not in ("value", "target")}}
    out["inputs"] = [{"operand": s.operand, "value": s.value, "writer": writer_json(s.writer)}
                     for s in result.inputs]
    return out


def writer_text(result) -> str:
    """`written by line 9, thread 3, step 41 ← iadd r4, r3, r1` (lines 1-based), or where a
    value came from outside the recording (`from --set-reg 3:128`)."""
    w = result.writer
    if isinstance(w, Input):
        return f"from {w.text}"
    where = f"line {w.line + 1}" if w.line is not None else f"pc {w.pc:#x}"
    return f"written by {where}, thread {w.lane}, step {w.step} ← {w.instruction}"


def who_wrote_text(provenance: Provenance | None, target: tuple) -> str | None:
    """`writer_text` of a target, or None where the recording cannot say."""
    if provenance is None:
        return None
    try:
        return writer_text(answer(provenance, target))
    except TargetError:
        return None
