"""The editor's one job service: every emulator job of an open document, of every kind.

Runs, profiles, kernel tests, the portability check and GPU runs are kinds of one thing: work
on one revision of one document, done off the event loop, cancelled by a newer revision or by
closing the document, kept only for the revision it ran on.

- `JobRecord` is what one kind keeps for one document (`DocumentState.runs`, `.profiles`,
  `.tests`, `.portability`, `.gpu_runs`: typed attributes, made on first use): what is live (re-run after every edit), the
  results by revision, a generation that changes with them, the key of the latest job (what
  decides its results), its cancel flag and future. `stop()` cancels the job in flight; closing
  the document stops every record it holds (`DocumentState.stop_jobs`).
- `JobService` (one per `AnalysisHost`) holds the one emulator worker (`run_queue.JobQueue`:
  one thread, at most one waiting job per key, the job the user clicked first), the `--arg`
  files read for every kind, and the one trust gate: in an untrusted workspace nothing runs,
  and every kind refuses with `untrusted(verb)`.

Cancellation has one vocabulary: a job's `threading.Event` (set by `JobRecord.stop`, by the
service's shutdown, by a cancelled request); a job polls it (`is_set`) and stops.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from .run_queue import BACKGROUND, CLICKED, REFRESH, JobQueue

__all__ = ["BACKGROUND", "CLICKED", "REFRESH", "CheckRecord", "JobDropped", "JobRecord", "JobService",
           "untrusted"]


def untrusted(verb: str = "run") -> str:
    """The one message of a job refused by the trust gate (`verb`: run, profile, test, ...)."""
    return f"kernels do not run in an untrusted workspace (trust the workspace to {verb} them)"


class JobDropped(Exception):
    """A job that never ran: superseded by a newer one of its key, or the service stopped."""


@dataclass
class JobRecord:
    """One kind's jobs for one document."""

    live: Any = field(default_factory=dict)          # what re-runs after every edit
    results: dict = field(default_factory=dict)       # each value has a `revision`
    generation: int = 0                  # bumped whenever `results` changes
    cancel: threading.Event | None = None   # the job in flight (or scheduled)
    job: tuple | None = None             # what the latest job ran (in flight or kept): a key
    pending: Future | None = None        # the future of that job while it runs or waits
    stored: Future | None = None         # the job whose results `results` holds
    running: set = field(default_factory=set)   # what the job in flight computes

    def begin(self, key: tuple) -> threading.Event:
        """A new job of `key`: the one in flight is cancelled; returns the new one's flag."""
        self.stop()
        self.cancel = cancel = threading.Event()
        self.job = key
        return cancel

    def finished(self, cancel: threading.Event, future: Future | None = None) -> None:
        """The job of `cancel` (and `future`) is over: it no longer counts as in flight."""
        if future is not None and self.pending is future:
            self.pending = None
        if self.cancel is cancel:
            self.cancel = None
            self.running = set()

    def stop(self) -> None:
        """Cancel the job in flight, if any."""
        if self.cancel is not None:
            self.cancel.set()
            self.cancel = None
        self.job = None
        self.pending = None
        self.running = set()

    def changed(self) -> None:
        self.generation += 1


@dataclass
class CheckRecord(JobRecord):
    """The record of a kind that runs only when clicked (the portability check, a GPU run):
    its latest result by kernel, each for one revision (an edit hides it)."""

    def current(self, revision: int) -> dict[str, Any]:
        """The results of `revision`, by kernel."""
        return {kernel: value for kernel, (at, value) in self.results.items() if at == revision}

    def store(self, kernel: str, revision: int, value: Any) -> None:
        self.results[kernel] = (revision, value)
        self.changed()


class JobService:
    """The one worker, `--arg` file cache and trust gate of every editor job."""

    def __init__(self) -> None:
        self._queue: JobQueue | None = None
        self._lock = threading.Lock()
        self._files = None
        self.trusted = True      # False (an untrusted workspace): no kernel ever runs
        self.closing = False     # shutting down: every job stops

    @property
    def files(self):
        """The `--arg` files read for every kind's jobs (`arg_files.ArgFiles`), made on first
        use (its module loads the launch vocabulary)."""
        with self._lock:
            if self._files is None:
                from .arg_files import ArgFiles
                self._files = ArgFiles()
            return self._files

    @property
    def queue(self) -> JobQueue:
        with self._lock:
            if self._queue is None:
                self._queue = JobQueue("wave-jobs")
            return self._queue

    def refusal(self, verb: str = "run") -> str | None:
        """Why a job may not run now (the one trust gate), or None."""
        return None if self.trusted else untrusted(verb)

    def submit(self, key: Hashable, priority: int, work: Callable[[], Any],
               dropped: Callable[[str], Any] | None = None,
               cancel: threading.Event | None = None) -> Future:
        """Queue `work()` on the one worker under `key` (a job waiting under it is superseded:
        its future gets `dropped(reason)`, or raises `JobDropped`)."""
        return self.queue.submit(key, priority, work, dropped or _raise_dropped, cancel)

    def promote(self, key: Hashable) -> None:
        """The job waiting under `key` was clicked: it goes first."""
        self.queue.promote(key, CLICKED)

    def shutdown(self) -> None:
        self.closing = True
        if self._queue is not None:
            self._queue.shutdown()


def _raise_dropped(reason: str) -> Any:
    raise JobDropped(reason)
