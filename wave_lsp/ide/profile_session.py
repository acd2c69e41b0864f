"""Profiling kernels for a document, off the event loop, as inline runs are run.

The plan is an inline run's (`run_session.plan_runs`: one revision's text, kernels and launch
lines) and so is the launch (`run_session.editor_launch`: the settings' limits, `--arg` files);
`profile_kernels` (on the worker thread) runs each planned kernel once through the emulator's
pipeline with profile counters on, and computes every preset from that one record
(`emu.profile.profile_for`) into a `ProfileView`. A document's profiles live in its own
`DocumentRuns` (`DocumentState.profile_state()`): which kernels are live (re-profiled on every
edit) and the latest `KernelProfileRun` of each, by revision, so nothing stale is shown.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

from .arg_files import ArgFiles
from .profile_view import ProfileView, profile_view
from .run_limits import RunLimits
from .run_session import RunPlan, Snapshot, editor_launch


@dataclass(frozen=True)
class KernelProfileRun:
    """The outcome of profiling one kernel of one document revision."""

    kernel: str
    revision: int
    version: int | None
    launch_line: int | None          # the launch comment's line; None: the default launch
    ordinal: int | None
    status: str                      # ok, error (stopped, profile so far), failed, invalid, cancelled
    message: str = ""
    elapsed_ms: float = 0.0
    view: ProfileView | None = None

    def summary(self) -> str:
        """The code lens title: the kernel's lane utilisation, bank ways and sector ratio."""
        if self.view is not None and self.status in ("ok", "error"):
            title = self.view.summary()
            return title if self.status == "ok" else f"{title} · ✕ {self.message}"
        return f"◔ Profile: ✕ {self.message}"

    def to_json(self) -> dict[str, Any]:
        """The result of the `wave-lsp.profile` command (and of `wave-lsp/profileChanged`)."""
        out: dict[str, Any] = {
            "kernel": self.kernel, "version": self.version, "launchLine": self.launch_line,
            "status": self.status, "ok": self.status == "ok", "message": self.message,
            "summary": self.summary(), "elapsedMs": round(self.elapsed_ms, 3)}
        if self.view is not None:
            out.update(self.view.to_json())
        else:
            out.update({"target": None, "lines": [], "totals": {}, "heat": [], "presets": {}})
        return out


def _spots(plan: RunPlan) -> dict[int, tuple[int, int]]:
    return {line: (start, end) for line, start, end in plan.place.instruction_lines}


def local_strides(record) -> dict[int, int]:
    """Per source line, the byte distance between neighbouring lanes' local-memory addresses
    in the first wave of the access it ran most often, where that distance is one constant."""
    import numpy as np
    out: dict[int, int] = {}
    for index, accesses in record.accesses.items():
        if accesses.space != "local" or not accesses.patterns or record.by_pc:
            continue
        pattern = max(accesses.patterns.values(), key=lambda p: p.count)
        wave = min(record.wave_width, pattern.lanes_per_wg)
        steps = np.unique(np.diff(pattern.addresses[:wave].astype(np.int64)))
        if steps.size == 1:
            out[record.keys[index]] = int(steps[0])
    return out


def profile_one(assembly, snapshot: Snapshot, plan: RunPlan, limits: RunLimits,
                cancelled: Callable[[], bool], files: ArgFiles) -> KernelProfileRun:
    """Profile one planned kernel of a snapshot (on the worker thread)."""
    from ..emu import LaunchError, run
    from ..emu.profile import profile_for
    from ..isa.backends import PROFILE_TARGETS
    ll = plan.launch
    ident = dict(kernel=plan.kernel, revision=snapshot.revision, version=snapshot.version,
                 launch_line=ll.line if ll else None, ordinal=ll.ordinal if ll else None)
    if ll is not None and ll.problem is not None:
        return KernelProfileRun(status="invalid", message=f"launch line: {ll.problem.message}",
                                **ident)
    if cancelled():
        return KernelProfileRun(status="cancelled", message="profile cancelled", **ident)
    try:
        launch = editor_launch(ll, plan.kernel, limits, files, snapshot.root)
        started = time.perf_counter()
        report = run(assembly, launch, cancel=cancelled, profile=True)
        # the launch's own preset first (its hints, heat and findings), then every vendor's
        profiles = [profile_for(report.profile, name) for name in PROFILE_TARGETS]
        elapsed = (time.perf_counter() - started) * 1000
    except LaunchError as err:
        return KernelProfileRun(status="failed", message=str(err), **ident)
    except Exception as err:
        return KernelProfileRun(status="failed", message=f"cannot profile: {err}", **ident)
    failure = next((e for e in report.errors), None)
    status, message = "ok", ""
    if failure is not None and failure.kind == "cancelled":
        return KernelProfileRun(status="cancelled", message="profile cancelled", **ident)
    if failure is not None:
        at = f" at line {failure.line + 1}" if failure.line is not None else ""
        status, message = "error", f"{failure.kind.replace('_', ' ')}{at}"
    return KernelProfileRun(status=status, message=message, elapsed_ms=elapsed,
                            view=profile_view(plan.kernel, profiles, _spots(plan),
                                              local_strides(report.profile)), **ident)


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


class ProfileWorker:
    """One background thread that profiles snapshots; each job has its own cancel flag."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wave-profile")
        self.files = ArgFiles()

    def submit(self, snapshot: Snapshot, limits: RunLimits, cancel) -> Future:
        return self._pool.submit(profile_kernels, snapshot, limits, cancel.is_set, self.files)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
