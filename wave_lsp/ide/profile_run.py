"""The first step of a kernel's profile, from a run with profile counters on: the launch's
own preset counted from the run's record (`profile_of`) into a `KernelProfileRun`, whichever job
ran it: a profile job of its own (`profile_session.profile_one`) or the kernel's inline run,
which a profiled kernel shares (`run_session.execute`). `stopper` bounds the counting by
`run.timeLimitMs`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from .profile_view import ProfileView, profile_view
from .run_limits import RunLimits
from .run_results import engine_of


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
    engine: str = ""                 # what ran it: "native", or "numpy (why)"
    # until `with_presets` ran: the run's record, instruction spots and what the bank advice
    # needs (the text, kernel, launch, options and report of the run)
    pending: tuple | None = field(default=None, repr=False, compare=False)

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
            "summary": self.summary(), "elapsedMs": round(self.elapsed_ms, 3),
            "complete": self.pending is None}
        if self.view is not None:
            out.update(self.view.to_json())
        else:
            out.update({"target": None, "lines": [], "totals": {}, "heat": [], "presets": {}})
        return out


def spots_of(plan) -> dict[int, tuple[int, int]]:
    return {line: (start, end) for line, start, end in plan.place.instruction_lines}


def time_limit_text(limits: RunLimits) -> str:
    """How a profile that met `run.timeLimitMs` begins to say so (then where, or while what)."""
    return f"time limit: run.timeLimitMs ({limits.time_limit_ms:,} ms) reached"


def stopper(limits: RunLimits | None, cancelled: Callable[[], bool], step: str
            ) -> tuple[Callable[[], None], Callable[[], float | None]]:
    """(a check that raises `AnalysisStopped` once the job is cancelled or ran past
    `run.timeLimitMs` from now, the seconds left or None without a limit) for a profile job
    that `step` names."""
    from ..emu import AnalysisStopped
    started = time.monotonic()
    limit = limits.time_limit_ms / 1000 if limits is not None and limits.time_limit_ms > 0 \
        else None

    def left() -> float | None:
        return None if limit is None else limit - (time.monotonic() - started)

    def check() -> None:
        if cancelled():
            raise AnalysisStopped("profile cancelled")
        if limit is not None and left() <= 0:
            raise AnalysisStopped(f"{time_limit_text(limits)} while {step}")
    return check, left


def ident_of(snapshot, plan) -> dict:
    ll = plan.launch
    return dict(kernel=plan.kernel, revision=snapshot.revision, version=snapshot.version,
                launch_line=ll.line if ll else None, ordinal=ll.ordinal if ll else None)


def profile_of(report, snapshot, plan, launch, options, limits: RunLimits,
               cancelled: Callable[[], bool], started: float) -> KernelProfileRun:
    """The profile's first step from a run with profile counters on (`report.profile`): the
    launch's own preset (its hints, heat and findings); the vendors' follow (`with_presets`).
    The run may have recorded the inline values too (`run_session.execute`: a profiled kernel
    shares its inline run); `started` is its `time.perf_counter()` start."""
    from ..emu import AnalysisStopped, profile_for
    from ..isa.profile_presets import PROFILE_TARGETS
    ident = ident_of(snapshot, plan)
    if report.profile is None:        # the run stopped before it began: its limit, a cancel
        return _not_begun(report, limits, cancelled, ident)
    try:
        check, _left = stopper(limits, cancelled, "counting the profile of the run")
        profiles = [profile_for(report.profile, PROFILE_TARGETS[0], check)]
        elapsed = (time.perf_counter() - started) * 1000
    except AnalysisStopped as err:
        status = "cancelled" if cancelled() else "failed"
        return KernelProfileRun(status=status, message=str(err), **ident)
    except Exception as err:
        return KernelProfileRun(status="failed", message=f"cannot profile: {err}", **ident)
    failure = next((e for e in report.errors), None)
    status, message = "ok", ""
    if failure is not None and failure.kind == "cancelled":
        return KernelProfileRun(status="cancelled", message="profile cancelled", **ident)
    if failure is not None:
        status, message = "error", _failure_text(failure, limits)
    spots = spots_of(plan)
    # the bank advice's check runs the fixed text with the profile alone
    alone = replace(options, record_threads=None, writers=False)
    return KernelProfileRun(status=status, message=message, elapsed_ms=elapsed,
                            view=profile_view(plan.kernel, profiles, spots),
                            engine=engine_of(report),
                            pending=(report.profile, spots,
                                     (snapshot.text, plan.kernel, launch, alone, report)),
                            **ident)


def _failure_text(failure, limits: RunLimits) -> str:
    """What stopped a profiled run, where; a limit names its setting (as the counting's
    limit does, whichever of the two the time limit met)."""
    at = f" at line {failure.line + 1}" if failure.line is not None else ""
    if failure.kind == "time_limit":
        return f"{time_limit_text(limits)}{at}"
    if failure.kind == "instruction_limit":
        return (f"instruction limit: run.maxInstructions ({limits.max_instructions:,} per "
                f"workgroup) reached{at}")
    return f"{failure.kind.replace('_', ' ')}{at}"


def _not_begun(report, limits: RunLimits, cancelled: Callable[[], bool],
               ident: dict) -> KernelProfileRun:
    """The outcome of a profiled run that stopped before its first instruction (on a busy
    machine the time limit can pass while the launch is prepared): it recorded no profile."""
    failure = next(iter(report.errors), None)
    if cancelled() or (failure is not None and failure.kind == "cancelled"):
        return KernelProfileRun(status="cancelled", message="profile cancelled", **ident)
    if failure is not None and failure.kind == "time_limit":
        return KernelProfileRun(status="failed", message=(
            f"{time_limit_text(limits)} while preparing the run"), **ident)
    why = failure.message if failure is not None else "the run recorded no profile"
    return KernelProfileRun(status="failed", message=f"cannot profile: {why}", **ident)
