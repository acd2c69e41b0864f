"""The queue of the one job worker's thread (`jobs.JobService`): bounded, by priority, at most
one job per key.

Every editor job (a kernel's Run, the re-run after an edit, a dump window, a profile, a kernel
test, a portability check, a GPU run) is a job with a key
(what it is for: a document's runs, one dump's window) and a priority. A job submitted with the
key of a job still waiting supersedes it: the waiting one never runs, its future gets what
its `dropped` callable gives (cancelled results, a refusal). The thread takes the waiting job
of the best priority (the oldest among equals): the Run the user clicked before the re-runs
of edits, both before dump windows. Past `MAX_WAITING` waiting jobs, the newest of the worst
priority is dropped (answered, never silently lost), unless every one waiting is a clicked Run:
those are at most one per open document (their keys), and each is what a user asked for. A
job's future cancelled before it starts (its request was cancelled) is skipped.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

CLICKED, REFRESH, BACKGROUND = 0, 1, 2      # priorities: a lower number runs first
MAX_WAITING = 64


@dataclass
class _Job:
    key: Hashable
    priority: int
    order: int
    work: Callable[[], Any]
    dropped: Callable[[str], Any]      # what the future gets when the job never runs
    cancel: threading.Event | None
    future: Future = field(default_factory=Future)


class JobQueue:
    """One daemon thread running the waiting jobs (started with the first)."""

    def __init__(self, name: str, limit: int = MAX_WAITING) -> None:
        self.name = name
        self.limit = limit
        self._waiting: dict[Hashable, _Job] = {}
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.started = 0          # jobs that ran (a figure for tests and benchmarks)

    def submit(self, key: Hashable, priority: int, work: Callable[[], Any],
               dropped: Callable[[str], Any], cancel: threading.Event | None = None) -> Future:
        """Queue `work()` under `key` (None: a key of its own); returns its future."""
        job = _Job(object() if key is None else key, priority, next(self._order), work,
                   dropped, cancel)
        out: list[tuple[_Job, str]] = []
        with self._wake:
            if self._closed:
                out.append((job, "the server is shutting down"))
            else:
                old = self._waiting.pop(job.key, None)
                if old is not None:
                    out.append((old, "superseded by a newer request"))
                self._waiting[job.key] = job
                if len(self._waiting) > self.limit:
                    worst = max(self._waiting.values(), key=lambda j: (j.priority, j.order))
                    if worst.priority > CLICKED:
                        del self._waiting[worst.key]
                        out.append((worst, f"too many runs waiting ({self.limit}): try again"))
                self._start()
                self._wake.notify()
        for dropped, reason in out:
            _drop(dropped, reason)
        return job.future

    def promote(self, key: Hashable, priority: int) -> None:
        """Give the job waiting under `key` at least `priority` (a Run clicked for a job
        already queued as a re-run)."""
        with self._wake:
            job = self._waiting.get(key)
            if job is not None and priority < job.priority:
                job.priority = priority

    def waiting(self) -> int:
        with self._wake:
            return len(self._waiting)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
            self._thread.start()

    def _serve(self) -> None:
        while True:
            with self._wake:
                while not self._waiting and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                job = min(self._waiting.values(), key=lambda j: (j.priority, j.order))
                del self._waiting[job.key]
            if not job.future.set_running_or_notify_cancel():
                continue
            self.started += 1
            try:
                result = job.work()
            except BaseException as exc:
                job.future.set_exception(exc)
            else:
                job.future.set_result(result)
            # this frame outlives the job: holding its result (a whole run's values) would pin
            # it, and the allocator's memory around it, until the next job
            job = result = None

    def shutdown(self) -> None:
        """Drop every waiting job (the running one stops at its next poll of its cancel)."""
        with self._wake:
            self._closed = True
            waiting = list(self._waiting.values())
            self._waiting.clear()
            self._wake.notify_all()
        for job in waiting:
            _drop(job, "the server is shutting down")


def _drop(job: _Job, reason: str) -> None:
    """Answer a job that will never run."""
    if job.cancel is not None:
        job.cancel.set()
    if not job.future.set_running_or_notify_cancel():
        return
    try:
        job.future.set_result(job.dropped(reason))
    except BaseException as exc:
        job.future.set_exception(exc)
