"""The lifecycle every editor job shares, once: `JobFeature`, the base of the job kinds.

A kind (runs, profiles, kernel tests) says what to run and how to show it: which record of the
document it keeps (`kind`: `DocumentState.runs`, `.profiles`, `.tests`), what is live after an
edit (`wanted`), what decides a job's results (`job_key`) and how to run it (`run`); its
contributions (lenses, hints, ...) show the record's current results. The base does the rest:

- an edit stops the kind's job in flight at once (`document_edited`); when the edit settles the
  live work runs again on the new revision, unless that very job (same key) already runs or
  ran: a settle during a clicked Run of the same revision never cancels it
  (`document_settled`);
- closing a document stops every kind's job (`AnalysisHost.close` stops the document's
  records); shutting down stops them all (`shutdown`);
- `results_generation` is the record's generation (part of the pulled diagnostics' id), and
  `refresh` has the client redraw what results show;
- the one worker and the one trust gate are the host's `ide.jobs.JobService`
  (`self.jobs`): every kind refuses an untrusted workspace with `untrusted(verb)`.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any

from lsprotocol import types

from ..ide.jobs import CheckRecord, JobRecord, JobService
from ..ide.run_limits import RunLimits
from ..ide.state import DocumentState
from . import extensions
from .extensions import RunsChanged, wire
from .server import Feature, WaveLanguageServer, report_failure

RUNS_CHANGED = extensions.RUNS_CHANGED.name
TRUST_OPTION = "workspaceTrusted"    # initializationOptions: anything but true disables every run


class JobFeature(Feature):
    """A kind of editor job over the one job service; see the module docstring."""

    kind = ""          # the `DocumentState` attribute of its records
    what = "jobs"      # what a failed re-run is reported as

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(server)
        self._waiters: dict[Future, int] = {}     # requests waiting for each job

    # ---- the service -----------------------------------------------------------------------------
    @property
    def jobs(self) -> JobService:
        return self.server.documents.jobs

    @property
    def trusted(self) -> bool:
        return self.jobs.trusted

    @trusted.setter
    def trusted(self, value: bool) -> None:
        self.jobs.trusted = value

    @property
    def closing(self) -> bool:
        return self.jobs.closing

    def limits(self) -> RunLimits:
        """The editor's limits of every job (settings `run.maxInstructions`, `run.timeLimitMs`,
        `run.recordBudgetMiB`)."""
        s = self.server.settings
        return RunLimits(s.run_max_instructions, s.run_time_limit_ms, s.run_record_budget_mib)

    # ---- what a kind says ------------------------------------------------------------------------
    def state(self, doc: DocumentState) -> JobRecord:
        """The document's record of this kind (made on first use)."""
        raise NotImplementedError

    def existing(self, doc: DocumentState) -> JobRecord | None:
        """The document's record of this kind if it has one."""
        return getattr(doc, self.kind)

    def live_work(self, doc: DocumentState) -> Any:
        """What to run again when an edit settles (empty: nothing)."""
        raise NotImplementedError

    def wanted(self, doc: DocumentState) -> Any:
        """`live_work`, behind the one trust gate: nothing in an untrusted workspace."""
        return self.live_work(doc) if self.trusted else {}

    def job_key(self, doc: DocumentState, wanted: Any) -> tuple:
        """All that decides a job's results: the revision, what runs, the limits."""
        raise NotImplementedError

    async def run(self, doc: DocumentState, wanted: Any, priority: int) -> Any:
        """Run `wanted` on the current revision; keep and show the results if still fresh."""
        raise NotImplementedError

    # ---- the lifecycle, once -----------------------------------------------------------------
    def has_job(self, doc: DocumentState, wanted: Any) -> bool:
        """Whether the job of `wanted` on the current revision runs or ran (and was kept)."""
        state = self.existing(doc)
        return state is not None and state.job is not None \
            and state.job == self.job_key(doc, wanted)

    def document_edited(self, doc: DocumentState) -> None:
        """A stale job is cancelled at once, not when the edit settles."""
        state = self.existing(doc)
        if state is not None and not doc.binary:
            state.stop()

    def document_settled(self, doc: DocumentState) -> None:
        """Run the live work again, unless that very job already runs or ran: neither the
        open's own settling nor the one after the client's configuration came cancels a
        clicked job of the same revision."""
        if doc.binary:
            return
        wanted = self.wanted(doc)
        if not wanted or self.has_job(doc, wanted):
            return
        self.state(doc).stop()
        asyncio.ensure_future(self._rerun(doc))

    async def _rerun(self, doc: DocumentState) -> None:
        try:
            wanted = self.wanted(doc)
            if wanted and not self.has_job(doc, wanted):    # a click may have begun it
                from ..ide.jobs import REFRESH
                await self.run(doc, wanted, REFRESH)
        except Exception as exc:
            report_failure(self.server, f"re-running {self.what}", exc)

    def shutdown(self) -> None:
        """Stop this kind's jobs, and the one worker (every job then stops at its next poll;
        the waiting ones are answered, never run)."""
        for doc in self.server.documents.all():
            state = self.existing(doc)
            if state is not None:
                state.stop()
        self.jobs.shutdown()

    def results_generation(self, doc: DocumentState) -> int:
        """Changes whenever the results shown for `doc` change (the pulled diagnostics' id)."""
        state = self.existing(doc)
        return state.generation if state is not None else 0

    def refresh(self, doc: DocumentState) -> None:
        """Ask the client to redraw inlay hints and code lenses; the features that show
        results (diagnostics) re-deliver them (`results_changed`)."""
        server = self.server
        if server.client.inlay_hint_refresh:
            server.workspace_inlay_hint_refresh(None)
        if server.client.code_lens_refresh:
            server.workspace_code_lens_refresh(None)
        else:   # e.g. Neovim 0.11: its plugin (editors/nvim) asks for the lenses again
            server.protocol.notify(RUNS_CHANGED, wire(RunsChanged(doc.uri)))
        server.broadcast("results_changed", doc)

    # ---- running -------------------------------------------------------------------------------
    def fresh(self, doc: DocumentState, revision: int, cancel: threading.Event) -> bool:
        """Whether a job of `revision` may still show its results."""
        return (self.server.document(doc.uri) is doc and doc.revision == revision
                and not cancel.is_set())

    def forget(self, doc: DocumentState, kernel: str | None) -> list[str]:
        """Clear one kernel's results (or all) and stop its live work; returns what was
        cleared."""
        state = self.state(doc)
        names = [kernel] if kernel else sorted(set(state.live) | set(state.results))
        state.clear(kernel)
        if not state.live:
            state.stop()
        self.refresh(doc)
        return names

    def queue_key(self, doc: DocumentState) -> tuple:
        """The worker's key of this kind's jobs of a document: one waits at a time."""
        return (doc.uri, self.kind)

    async def wait(self, state: JobRecord, future: Future, cancel: threading.Event):
        """The result of a job's `future`. A request cancelled while it waits
        (`$/cancelRequest`) stops the job (it never starts, or stops at its next poll)
        unless another request waits for it too; the cancellation goes on to the caller."""
        self._waiters[future] = self._waiters.get(future, 0) + 1
        try:
            return await asyncio.shield(asyncio.wrap_future(future))
        except asyncio.CancelledError:
            if self._waiters[future] == 1:
                cancel.set()
                future.cancel()
                if state.cancel is cancel:
                    state.cancel = state.job = state.pending = None
            raise
        finally:
            left = self._waiters.pop(future) - 1
            if left:
                self._waiters[future] = left


class ClickedJobFeature(JobFeature):
    """A kind that runs only when clicked (the portability check, GPU runs): nothing is live
    after an edit, and a job is one kernel of one revision."""

    def state(self, doc: DocumentState) -> CheckRecord:
        return doc.check_state(self.kind)

    def live_work(self, doc: DocumentState) -> dict:
        return {}

    def job_key(self, doc: DocumentState, kernel: str) -> tuple:
        return (doc.revision, kernel)


def read_trust(jobs: JobService, params: types.InitializeParams) -> None:
    """An untrusted workspace (VS Code's restricted mode) never runs kernels; only the client
    decides this, once: no workspace setting can turn runs back on. A client that says
    anything of trust trusts only with JSON `true` ("false", 0, null: untrusted)."""
    options = params.initialization_options
    if isinstance(options, dict) and TRUST_OPTION in options:
        jobs.trusted = options[TRUST_OPTION] is True
