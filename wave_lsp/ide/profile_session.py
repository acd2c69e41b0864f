"""Profiling kernels for a document, off the event loop, as inline runs are run.

The plan is an inline run's (`run_session.plan_runs`: one revision's text, kernels and launch
lines) and so is the launch (`run_session.editor_launch`: `--arg` files; `editor_options`: the
settings' limits);
`profile_kernels` (on the worker thread) runs each planned kernel once through the emulator's
pipeline with profile counters on and computes the launch's own preset from that record
(`emu.profile.profile_for`) into a `ProfileView`: its heat, hints and findings are shown at
once; `with_presets` then computes every vendor's preset from the same record (the hover's
table, the findings' notes) and the bank conflicts' checked advice, a second job, so that an
edit refreshes the heat without waiting for them. A document's profiles live in its own
`DocumentRuns` (`DocumentState.profile_state()`): which kernels are live (re-profiled on every
edit) and the latest `KernelProfileRun` of each, by revision, so nothing stale is shown. A bank
conflict's advice (`bank_advice`, in the second job) is checked on the record; its quick fix
once more by running the fixed text (`_checked`).

The counting of each job is bounded by the settings' `run.timeLimitMs`, as the run is: in the
first the launch's preset, after the run (past the limit the profile fails with a message that
says so; a run stopped at its own limit still shows the profile so far), in the second the other
presets and the advice (past the limit the launch's preset stays, with the message).
The counting is the emulator's (`emu.profile`): where a kernel made more distinct access patterns
than a profile keeps, the figures of those lines are estimated, and the view says so.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import replace
from typing import Callable, Hashable

from .arg_files import ArgFiles
from .jobs import REFRESH, JobService
from .bank_advice import bank_advice, fix_holds
from .profile_run import KernelProfileRun, ident_of, profile_of, stopper, time_limit_text
from .profile_view import profile_view
from .run_limits import RunLimits
from .run_session import RunPlan, Snapshot, editor_launch, editor_options


def _kernel(text: str, name: str):
    """The kernel `name` of a revision's text, parsed (its settings and constants)."""
    from ..syntax.document import parse_lines, split_lines
    from ..syntax.program import build_program
    program = build_program(parse_lines(split_lines(text)[0]))
    return next((k for k in program.kernels if k.name == name), None)


def _checked(advice, text: str, launch, options, report, check, left):
    """The advice with its quick fix only if a run of the fixed text (within the time `left`)
    keeps the output and gives the passes the advice promised (`bank_advice.fix_holds`)."""
    from ..analysis.fixes import apply_edits
    from ..emu import run
    if advice.fix is None or report.errors:
        return advice
    check()
    seconds = left()
    try:
        if seconds is not None:
            options = replace(options, time_limit=max(seconds, 0.001))
        fixed = run(apply_edits(text, advice.fix.edits), launch, options)
    except Exception:
        return replace(advice, fix=None)
    holds = not fixed.errors and fixed.profile is not None and \
        bytes(fixed.device_memory) == bytes(report.device_memory) and \
        fix_holds(advice, report.profile, fixed.profile)
    return advice if holds else replace(advice, fix=None)


def profile_one(assembly, snapshot: Snapshot, plan: RunPlan, limits: RunLimits,
                cancelled: Callable[[], bool], files: ArgFiles) -> KernelProfileRun:
    """Profile one planned kernel of a snapshot (on the worker thread)."""
    from ..emu import LaunchError, run
    ll = plan.launch
    ident = ident_of(snapshot, plan)
    if ll is not None and ll.problem is not None:
        return KernelProfileRun(status="invalid", message=f"launch line: {ll.problem.message}",
                                **ident)
    if cancelled():
        return KernelProfileRun(status="cancelled", message="profile cancelled", **ident)
    try:
        launch = editor_launch(ll, plan.kernel, files, snapshot.root)
        options = editor_options(ll, limits, cancel=cancelled, profile=True)
        started = time.perf_counter()
        report = run(assembly, launch, options)      # within the limits itself
    except LaunchError as err:
        return KernelProfileRun(status="failed", message=str(err), **ident)
    except Exception as err:
        return KernelProfileRun(status="failed", message=f"cannot profile: {err}", **ident)
    return profile_of(report, snapshot, plan, launch, options, limits, cancelled, started)


def presets_of(record, first, check: Callable[[], None] | None = None) -> list:
    """`first` (the launch's own preset's profile) and every other preset's, each distinct
    geometry (wave width, banks, bank width, sector) computed once (`check` may stop it)."""
    from ..emu import profile_for
    from ..isa.profile_presets import PROFILE_TARGETS, profile_preset

    def geometry(preset) -> tuple:
        return (preset.wave_width or record.wave_width, preset.banks, preset.bank_bytes,
                preset.sector_bytes)
    known = {geometry(first.preset): first}
    out = [first]
    for name in PROFILE_TARGETS[1:]:
        preset = profile_preset(name)
        same = known.get(geometry(preset))
        profile = replace(same, target=preset.name, preset=preset) if same is not None \
            else profile_for(record, name, check)
        known.setdefault(geometry(preset), profile)
        out.append(profile)
    return out


def with_presets(results: list[KernelProfileRun], cancelled: Callable[[], bool] = lambda: False,
                 limits: RunLimits | None = None) -> list[KernelProfileRun]:
    """The results with every preset computed and the advice checked (on the worker thread;
    `cancelled` stops it, and each result's work stops at `run.timeLimitMs`: its launch's
    preset stays, with a message that says what was not done)."""
    from ..emu import AnalysisStopped
    out = []
    for r in results:
        if r.pending is None or r.view is None or cancelled():
            out.append(r)
            continue
        record, spots, (text, kernel, launch, options, report) = r.pending
        check, left = stopper(limits, cancelled, "comparing the presets and checking the "
                              "advice; the launch's own preset is shown")
        try:
            profiles = presets_of(record, r.view.primary, check)
            advice = {line: _checked(a, text, launch, options, report, check, left)
                      for line, a in bank_advice(record, _kernel(text, kernel), check).items()}
        except AnalysisStopped as err:
            if cancelled():
                out.append(r)
                continue
            out.append(replace(r, status="error", pending=None,
                               message=_joined(r.message, str(err), limits)))
            continue
        out.append(replace(r, view=profile_view(r.kernel, profiles, spots, advice),
                           pending=None))
    return out


def _joined(first: str, then: str, limits: RunLimits | None) -> str:
    """`first; then`, the time limit named once when the run met it and then the comparing
    did."""
    said = time_limit_text(limits) + " " if limits is not None else None
    if said and first.startswith(said) and then.startswith(said):
        return f"{first}, and again {then[len(said):]}"
    return f"{first}; {then}" if first else then


def profile_kernels(snapshot: Snapshot, limits: RunLimits,
                    cancelled: Callable[[], bool] = lambda: False,
                    files: ArgFiles | None = None) -> list[KernelProfileRun]:
    """Profile every planned kernel of a snapshot (called on the worker thread)."""
    from ..asm import AssemblyError, assemble
    try:
        assembly = assemble(snapshot.text)
    except AssemblyError as err:
        return [KernelProfileRun(
            plan.kernel, snapshot.revision, snapshot.version,
            plan.launch.line if plan.launch else None,
            plan.launch.ordinal if plan.launch else None, "failed", f"cannot profile: {err}")
            for plan in snapshot.plans]
    return [profile_one(assembly, snapshot, plan, limits, cancelled, files or ArgFiles())
            for plan in snapshot.plans]


def not_profiled(snapshot: Snapshot, reason: str) -> list[KernelProfileRun]:
    """The profiles of a job that never ran (superseded, or the service stopped): cancelled."""
    return [KernelProfileRun(plan.kernel, snapshot.revision, snapshot.version,
                             plan.launch.line if plan.launch else None,
                             plan.launch.ordinal if plan.launch else None, "cancelled",
                             f"profile cancelled: {reason}") for plan in snapshot.plans]


class ProfileWorker:
    """Profiles of snapshots on the job service's one worker (`jobs.JobService`); each job
    has its own cancel flag, and one waits per document (its `key`)."""

    def __init__(self, service: JobService) -> None:
        self.service = service
        self.files = service.files

    def submit(self, snapshot: Snapshot, limits: RunLimits, cancel, key: Hashable = None,
               priority: int = REFRESH) -> Future:
        return self.service.submit(
            key, priority, lambda: profile_kernels(snapshot, limits, cancel.is_set, self.files),
            lambda reason: not_profiled(snapshot, reason), cancel)

    def submit_presets(self, results: list[KernelProfileRun], limits: RunLimits,
                       cancel, key: Hashable = None, priority: int = REFRESH) -> Future:
        return self.service.submit(key, priority,
                                   lambda: with_presets(results, cancel.is_set, limits),
                                   lambda reason: results, cancel)
