"""Running kernels for a document, off the event loop, and keeping what the runs showed.

`plan_runs` (on the event loop, cheap) snapshots what to run from one document revision: the
text, the kernels, their launch lines and where results go. `execute` (on the worker thread)
assembles the snapshot once and runs each kernel through the emulator's public `run`, with the
instruction and time limits of the settings and a cancel flag that a newer revision sets.
`DocumentRuns` is the per-document state: which kernels are live (re-run on every edit) and the
latest `KernelRun` of each, tagged with the revision it ran on so nothing stale is ever shown.
A kernel whose profile is live with the same launch (`shared_runs`) is profiled in its inline
run: one run feeds its values and its profile's first step (`KernelRun.profile`, which the
record keeps until the profile takes it: `take_profiles`). An inline run records who wrote its
shown threads' values (`who_wrote.recorded_run`: `KernelRun.provenance`).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Hashable

from ..analysis.diagnostic import Range
from ..emu import DataFill, Launch, LaunchError, RunOptions, run
from ..launch.flags import LaunchFlagError
from ..launch.limits import editor_limits
from .arg_files import ArgFiles
from .launch_lines import LaunchLine, default_launch, launch_lines
from .run_limits import RunLimits
from .jobs import BACKGROUND, CLICKED, JobRecord, JobService
from .run_results import KernelRun, RunPlace, build_run
from .who_wrote import recorded_run

RECORD_LIMIT = 256


@dataclass(frozen=True)
class RunPlan:
    """One kernel to run, from one revision."""

    kernel: str
    launch: LaunchLine | None        # None: the default launch
    place: RunPlace
    profile: bool = False            # profiled in the same run (its profile is live there)


@dataclass(frozen=True)
class Snapshot:
    """What the worker needs from a document revision (immutable, safe across threads)."""

    text: str
    revision: int
    version: int | None
    plans: tuple[RunPlan, ...]
    root: Path | None = None         # where `--arg` files may come from


def kernel_launch_lines(doc, base_dir: Path | None, root: Path | None = None,
                        parsed: dict | None = None) -> dict[str, list[LaunchLine]]:
    """The launch lines of each kernel, in order (`--arg` files confined to `root`; `parsed`:
    see `launch_lines`)."""
    out: dict[str, list[LaunchLine]] = {}
    for ll in launch_lines(doc, base_dir, root or base_dir, parsed):
        out.setdefault(ll.kernel, []).append(ll)
    return out


def place_of(doc, kernel, launch: LaunchLine | None) -> RunPlace:
    if launch is not None:
        anchor = Range(launch.line, launch.start, launch.line, launch.end)
    else:
        d = kernel.directive
        anchor = Range(kernel.line, d.start, kernel.line, d.end)
    spots = tuple((line, ins.start, ins.end) for line, ins in kernel.instructions)
    return RunPlace(kernel.line, anchor, spots)


def planned_launch(lines: list[LaunchLine], ordinal: int | None) -> LaunchLine | None:
    """The launch line a job runs for launch `ordinal` (None: the first) of a kernel's `lines`;
    None: the default launch (the kernel has none)."""
    if not lines:
        return None
    return lines[ordinal] if ordinal is not None and ordinal < len(lines) else lines[0]


def shared_runs(runs: dict[str, int | None], profiles: dict[str, int | None],
                by_kernel: dict[str, list[LaunchLine]]) -> dict[str, int | None]:
    """The profiled kernels whose inline run profiles them too: those live in both `runs` and
    `profiles` (name -> launch ordinal) with the same launch line."""
    return {name: ordinal for name, ordinal in profiles.items()
            if name in runs and planned_launch(by_kernel.get(name, []), runs[name])
            is planned_launch(by_kernel.get(name, []), ordinal)}


def plan_runs(doc, wanted: dict[str, int | None], by_kernel: dict[str, list[LaunchLine]],
              root: Path | None = None, profiled=()) -> Snapshot:
    """Snapshot the revision: for each wanted kernel (name -> launch ordinal, None for the
    first launch line or the default launch) what to run and where results go; the kernels in
    `profiled` are profiled in the same run (`shared_runs`)."""
    plans = []
    for name, ordinal in wanted.items():
        kernel = doc.program.kernel_named(name)
        if kernel is None:
            continue
        launch = planned_launch(by_kernel.get(name, []), ordinal)
        plans.append(RunPlan(name, launch, place_of(doc, kernel, launch), name in profiled))
    return Snapshot(doc.text, doc.revision, doc.version, tuple(plans), root)


def editor_launch(ll: LaunchLine | None, kernel: str, files: ArgFiles,
                  root: Path | None) -> Launch:
    """The launch an editor runs for a launch line (None: the default launch), its `--arg`
    files read now (`arg_files.py`). Raises LaunchError."""
    launch = ll.launch if ll is not None else default_launch(kernel)
    fills = ()
    if ll is not None and ll.arg_files:
        try:
            fills = tuple(DataFill(offset, data)
                          for offset, data in files.load(ll.arg_files, root or Path("/")))
        except LaunchFlagError as err:
            raise LaunchError(str(err)) from None
        except OSError as err:
            raise LaunchError(f"--arg: cannot read '{err.filename}': "
                              f"{err.strerror or err}") from None
    return dataclasses.replace(launch, kernel=kernel,
                               memory_init=tuple(launch.memory_init) + fills)


def editor_options(ll: LaunchLine | None, limits: RunLimits, **fields) -> RunOptions:
    """How an editor runs a launch line: the settings' limits, which the line may lower but
    never raise (nor lift with 0); `fields` set other options (recording, cancel)."""
    explicit = ll.explicit if ll is not None else frozenset()
    line_options = ll.options if ll is not None and ll.options is not None else RunOptions()
    steps, seconds = editor_limits(
        limits.max_instructions, limits.time_limit_ms,
        line_options.max_instructions if "--max-instructions" in explicit else 0,
        line_options.time_limit if "--time-limit" in explicit else None)
    return dataclasses.replace(
        line_options.unobserved(), max_instructions=steps, time_limit=seconds,
        **fields)


def launch_for(plan: RunPlan, limits: RunLimits, files: ArgFiles, root: Path | None,
               cancel: Callable[[], bool] | None = None) -> tuple[Launch, RunOptions]:
    """The launch of a plan as the editor runs it (`editor_launch`) and its options
    (`editor_options`, shown lanes recorded, profiled where the plan says)."""
    ll = plan.launch
    launch = editor_launch(ll, plan.kernel, files, root)
    options = editor_options(ll, limits, cancel=cancel, record_limit=RECORD_LIMIT,
                             record_threads=ll.lanes if ll is not None and ll.lanes
                             else "first_wave", profile=plan.profile)
    return launch, options


def _identity(snapshot: Snapshot, plan: RunPlan) -> dict:
    ll = plan.launch
    return dict(kernel=plan.kernel, revision=snapshot.revision, version=snapshot.version,
                launch_line=ll.line if ll else None, ordinal=ll.ordinal if ll else None,
                flags=ll.flags if ll else "")


def within(options: RunOptions, begun: float) -> RunOptions:
    """`options` with the time left of their limit since `begun` (a `time.monotonic()`
    reading): the limit counts assembling the source and reading `--arg` files as well (the
    emulator counts its own set-up); none left stops the run at its first poll."""
    if options.time_limit is None:
        return options
    left = options.time_limit - (time.monotonic() - begun)
    return dataclasses.replace(options, time_limit=max(left, 1e-6))


def execute(snapshot: Snapshot, limits: RunLimits,
            cancelled: Callable[[], bool] = lambda: False,
            files: ArgFiles | None = None) -> list[KernelRun]:
    """Run every planned kernel of a snapshot (called on the worker thread). Each kernel's
    time limit counts from when it begins (the first's from when the job began: the
    assembly is part of it)."""
    from ..asm import AssemblyError, assemble
    results: list[KernelRun] = []
    assembly = None
    begun = time.monotonic()
    for plan in snapshot.plans:
        if results:
            begun = time.monotonic()          # a later kernel's limit counts from here
        ident = _identity(snapshot, plan)
        ll = plan.launch
        if ll is not None and ll.problem is not None:
            results.append(KernelRun(status="invalid", message=f"launch line: {ll.problem.message}",
                                     **ident))
            continue
        if cancelled():
            results.append(KernelRun(status="cancelled", message="run cancelled", **ident))
            continue
        try:
            if assembly is None:
                assembly = assemble(snapshot.text)
            launch, options = launch_for(plan, limits, files or ArgFiles(), snapshot.root,
                                         cancelled)
            started = time.perf_counter()
            report, provenance = recorded_run(assembly, launch, within(options, begun), limits,
                                              ll.lanes if ll is not None else None)
            elapsed = (time.monotonic() - begun) * 1000
        except LaunchError as err:
            results.append(KernelRun(status="failed", message=str(err), **ident))
            continue
        except AssemblyError as err:    # the source does not assemble: its line says why
            results.append(KernelRun(status="failed", message=f"cannot run: {err}",
                                     source_error=err.line, **ident))
            continue
        except Exception as err:
            results.append(KernelRun(status="failed", message=f"cannot run: {err}", **ident))
            continue
        dumps = ll.dumps if ll is not None else ()
        initial = dict(launch.set_regs)
        profile = None
        if plan.profile:                # the profile's first step, from this very run
            from .profile_run import profile_of
            profile = profile_of(report, snapshot, plan, launch, options, limits, cancelled,
                                 started)
        results.append(build_run(report, plan.place, dumps, elapsed_ms=elapsed, initial=initial,
                                 profile=profile, provenance=provenance, **ident))
    return results


def dump_window(snapshot: Snapshot, limits: RunLimits, cancelled: Callable[[], bool],
                files: ArgFiles, index: int, start: int, count: int):
    """Re-run the snapshot's one plan (on the worker thread) and format the window of its dump
    `index`. Raises DumpWindowError when the run cannot give it (cancelled, does not start)."""
    from ..asm import AssemblyError, assemble
    from .run_dump import DumpWindow, DumpWindowError, window_values
    plan = snapshot.plans[0]
    req = plan.launch.dumps[index]
    begun = time.monotonic()
    try:
        launch, options = launch_for(plan, limits, files, snapshot.root, cancelled)
        report = run(assemble(snapshot.text), launch, within(options, begun))
    except (LaunchError, AssemblyError) as err:
        raise DumpWindowError(f"cannot run: {err}") from None
    if cancelled() or any(e.kind == "cancelled" for e in report.errors):
        raise DumpWindowError("cancelled: the document changed or closed")
    values = tuple(window_values(report.device_memory, req, start, count))
    status = "error" if report.errors else "ok"
    return DumpWindow(plan.kernel, snapshot.revision, plan.launch.line, index, req, start,
                      values, status)


def record_refused(reason: str):
    """Raise the refusal of a recording that never ran (superseded)."""
    from ..emu import TargetError
    raise TargetError(f"the run was not recorded: {reason}")


def record_target(snapshot, limits, cancelled: Callable[[], bool], files, target: tuple):
    """Record the snapshot's one plan again (on the worker thread) for `target`: its
    `Provenance`. Raises TargetError (the run cannot be recorded, or cannot start)."""
    from ..asm import AssemblyError, assemble
    from ..emu import Provenance, TargetError, prepare
    from .who_wrote import needed_workgroups, recording_options
    if limits.record_budget_mib <= 0:
        raise TargetError("runs are not recorded: the setting run.recordBudgetMiB is 0")
    plan = snapshot.plans[0]
    begun = time.monotonic()
    try:
        launch, options = launch_for(plan, limits, files, snapshot.root, cancelled)
        prepared = prepare(assemble(snapshot.text), launch)
        options = dataclasses.replace(recording_options(   # asked at once: values kept
            options, limits, needed_workgroups(target, prepared.geometry)), record_values=True)
        report = run(prepared, options=within(options, begun))
    except (LaunchError, AssemblyError) as err:
        raise TargetError(f"cannot run: {err}") from None
    if cancelled() or any(e.kind == "cancelled" for e in report.errors):
        raise TargetError("cancelled: the document changed or closed")
    return Provenance(report, prepared)


def not_run(snapshot: Snapshot, reason: str) -> list[KernelRun]:
    """The results of a job that never ran (superseded, or too many waiting): cancelled."""
    return [KernelRun(status="cancelled", message=f"run cancelled: {reason}",
                      **_identity(snapshot, plan)) for plan in snapshot.plans]


def window_refused(reason: str):
    """Raise the refusal of a dump window that never ran."""
    from .run_dump import WindowNotRead
    raise WindowNotRead(f"the dump window was not read: {reason}")


class RunWorker:
    """The runs of snapshots on the job service's one worker (`jobs.JobService`: one job
    waiting per document's runs and per dump, the clicked Run first); each job has its own
    cancel flag."""

    def __init__(self, service: JobService) -> None:
        self.service = service
        self.files = service.files

    def submit(self, snapshot: Snapshot, limits: RunLimits, cancel: threading.Event,
               key: Hashable = None, priority: int = CLICKED) -> Future:
        """The runs of a snapshot; a job waiting under the same `key` (a document's runs) is
        superseded (its runs answered cancelled)."""
        return self.service.submit(key, priority,
                                   lambda: execute(snapshot, limits, cancel.is_set, self.files),
                                   lambda reason: not_run(snapshot, reason), cancel)

    def submit_dump(self, snapshot: Snapshot, limits: RunLimits, cancel: threading.Event,
                    index: int, start: int, count: int, key: Hashable = None) -> Future:
        """A window of a dump of the snapshot's one plan (`dump_window`), behind every run; a
        window waiting under the same `key` (the same dump) is superseded (refused)."""
        return self.service.submit(
            key, BACKGROUND,
            lambda: dump_window(snapshot, limits, cancel.is_set, self.files, index, start,
                                count),
            window_refused, cancel)

    def submit_record(self, snapshot: Snapshot, limits: RunLimits, cancel: threading.Event,
                      target: tuple, key: Hashable = None) -> Future:
        """The snapshot's one plan recorded again for a who-wrote `target`
        (`record_target`: its `Provenance`), behind every run."""
        return self.service.submit(
            key, BACKGROUND,
            lambda: record_target(snapshot, limits, cancel.is_set, self.files, target),
            record_refused, cancel)

    def promote(self, key: Hashable) -> None:
        """A Run clicked for the job waiting under `key`: it goes first."""
        self.service.promote(key)


@dataclass
class DocumentRuns(JobRecord):
    """The run state of one open document: its `JobRecord` (live kernels -> launch ordinal,
    results by kernel) and what only runs have (dump windows, the last values kept)."""

    window: object = None                # run_dump.DumpWindow: the latest one asked for
    window_cancels: set = field(default_factory=set)   # dump windows being computed
    # kernel -> its last run with values and the text lines it ran on (`ide.stale_values`)
    kept: dict[str, tuple[KernelRun, tuple[str, ...]]] = field(default_factory=dict)
    # kernel -> the profile its latest run made (`KernelRun.profile`), until the profile
    # takes it (`take_profiles`)
    profiles: dict = field(default_factory=dict)

    def stop(self) -> None:
        """Cancel the job in flight, if any, and the dump windows being computed."""
        super().stop()
        for event in self.window_cancels:
            event.set()

    def current(self, revision: int) -> list[KernelRun]:
        """The results that belong to `revision` (never a stale one)."""
        return [r for r in self.results.values() if r.revision == revision]

    def store(self, runs: list[KernelRun], lines: tuple[str, ...] = ()) -> None:
        """Keep `runs`, which ran on the text `lines`."""
        for r in runs:
            if r.status != "cancelled":
                self.results[r.kernel] = r
                if lines and r.lines:     # (a profile is stored without its text)
                    self.kept[r.kernel] = (r, lines)
                self.profiles.pop(r.kernel, None)
                if getattr(r, "profile", None) is not None:
                    self.profiles[r.kernel] = r.profile
                    r.profile = None      # the record (and its run's memory) goes with it
        self.changed()

    def take_profiles(self, revision: int, kernels) -> list:
        """The profiles the runs of `revision` made of `kernels` (each taken once)."""
        return [self.profiles.pop(k) for k in list(kernels)
                if k in self.profiles and self.profiles[k].revision == revision]

    def clear(self, kernel: str | None) -> None:
        self.window = None
        self.job = None
        if kernel is None:
            self.live.clear()
            self.results.clear()
            self.kept.clear()
            self.profiles.clear()
        else:
            self.live.pop(kernel, None)
            self.results.pop(kernel, None)
            self.kept.pop(kernel, None)
            self.profiles.pop(kernel, None)
        self.changed()
