"""One state object per open document: the text model and everything derived from it.

`DocumentState` owns the syntax-layer `Document` (lines, line parses, program), the analysis
layer's `AnalysisState` (incremental diagnostics, uniformity) and every other derived result
(code layout, formatting, semantic tokens, run results...). Each derived result is stored with
the revision it was computed for; an edit bumps the revision, so a result computed for an older
revision is never returned for a newer one.

Adding a derived result (e.g. the inline run results of a kernel)::

    def run_report(state: DocumentState, kernel: str, launch) -> Report:
        return state.derived(("run", kernel, launch), lambda s: run_kernel(s.document, ...))

`derived(key, compute)` returns the value cached for the current revision or calls
`compute(state)` and keeps it; keys are any hashable value (use a tuple starting with your
feature's name). Results that must survive edits that do not concern them keep their own
revision check inside `compute` (see `AnalysisState` for an incremental example).

Running work off the event loop, with cancellation (see `host.py`)::

    report = await host.run(state, lambda s: run_report(s, kernel, launch), name="run")

`host.run` executes the function in the worker thread while holding `state.lock`; the next edit
of the document cancels it: the long loops of every layer call `cancellation.checkpoint()`,
which raises `Cancelled` in the job, and `host.run` raises `Cancelled` to the awaiting
coroutine. A job that needs finer cancellation (an emulator run) calls `checkpoint()` itself.

Threading rules: only the event loop thread changes a document (`apply_edit`, `replace`); it first
cancels the running jobs, then takes `state.lock` (held by a *writer* job while it runs: one
that uses `analysis`/`diagnostics()`) and `document.guard`. A *reader* job (hover, formatting,
`derived` results such as the layout) runs without the lock, beside a writer; what it computes
across an edit is neither kept (`derived` and `Document.program` store a result only if the
revision did not change, checked under `document.guard`) nor returned (`host.run` drops it).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

from ..analysis import AnalysisState, Config, analyze
from ..analysis.codes import severity_of
from ..analysis.diagnostic import Diagnostic, Range
from ..analysis.source import looks_binary
from ..analysis.layout import CodeLayout, layout_document
from ..cancellation import CancelToken
from ..syntax.document import Document

if TYPE_CHECKING:
    from .jobs import CheckRecord, JobRecord
    from .run_session import DocumentRuns
    from .test_view import DocumentTests


class DocumentState:
    """An open document and its derived results, by revision."""

    def __init__(self, uri: str, text: str = "", version: int = 0,
                 document: Document | None = None) -> None:
        self.uri = uri
        self.binary = looks_binary(text)
        # a binary document is not parsed, but its text is kept in step with the client's, so
        # it becomes WAVE text again, exactly, when its binary bytes are deleted
        self.binary_text: str | None = text if self.binary else None
        self.document = document if document is not None else \
            Document("" if self.binary else text, uri=uri, version=version)
        self.lock = threading.RLock()
        self.jobs: set[CancelToken] = set()        # running jobs of this document
        self._derived: dict[Any, tuple[int, Any]] = {}
        self.analysis = AnalysisState(self.document)
        # the job service's records of this document (`ide.jobs`), each made on first use:
        # most documents are never run, and the emulator loads only for those
        self.runs: DocumentRuns | None = None           # inline runs (ide.run_session)
        self.profiles: DocumentRuns | None = None       # kernel profiles (ide.profile_session)
        self.tests: DocumentTests | None = None         # kernel tests (ide.test_view)
        self.portability: CheckRecord | None = None     # portability checks (ide.portability)
        self.verification: CheckRecord | None = None    # verdicts (ide.verify)
        self.gpu_runs: CheckRecord | None = None        # GPU comparison runs (ide.gpu)
        self.launch_parses: dict = {}   # launch lines of the last revision (ide.launch_lines)

    def run_state(self) -> "DocumentRuns":
        """The inline-run record (results by revision, live kernels, the run in flight)."""
        if self.runs is None:
            from .run_session import DocumentRuns
            self.runs = DocumentRuns()
        return self.runs

    def profile_state(self) -> "DocumentRuns":
        """The kernel-profile record (live kernels, profiles by revision)."""
        if self.profiles is None:
            from .run_session import DocumentRuns
            self.profiles = DocumentRuns()
        return self.profiles

    def test_state(self) -> "DocumentTests":
        """The kernel-test record (live kernels, outcomes by revision, what they printed)."""
        if self.tests is None:
            from .test_view import DocumentTests
            self.tests = DocumentTests()
        return self.tests

    def check_state(self, kind: str) -> "CheckRecord":
        """The record of a clicked-only kind (`portability`, `gpu_runs`, `verification`), made
        on first use."""
        if getattr(self, kind) is None:
            from .jobs import CheckRecord
            setattr(self, kind, CheckRecord())
        return getattr(self, kind)

    def job_records(self) -> list["JobRecord"]:
        """Every job record this document holds."""
        return [r for r in (self.runs, self.profiles, self.tests, self.portability,
                            self.gpu_runs, self.verification) if r is not None]

    def stop_jobs(self) -> None:
        """Stop every kind's job in flight (the document closed, or the server stops)."""
        for record in self.job_records():
            record.stop()

    # ---- identity of the current content -------------------------------------------------------
    @property
    def version(self) -> int:
        """The client's version of the text: kept in one place, the `Document`."""
        return self.document.version

    @version.setter
    def version(self, value: int) -> None:
        self.document.version = value

    @property
    def revision(self) -> int:
        """Changes with every edit; derived results are valid for one revision."""
        return self.document.revision

    @property
    def lines(self) -> list[str]:
        return self.document.lines

    @property
    def text(self) -> str:
        """The whole text (`Document.text`)."""
        return self.document.text

    @property
    def syntax(self):
        """The line parses (`Document.syntax`)."""
        return self.document.syntax

    @property
    def program(self):
        """Kernels, labels and directives (`Document.program`)."""
        return self.document.program

    # ---- changes (event loop only) -------------------------------------------------------------
    def adopt(self, document: Document, text: str) -> None:
        """Install the document the worker parsed from `text` (see host.open)."""
        with self.lock:
            document.revision = self.document.revision + 1
            self.binary = looks_binary(text)
            self.binary_text = text if self.binary else None
            if self.binary:
                document.replace("")
            self.document = document
            self.analysis = AnalysisState(document)
            self._derived.clear()

    def cancel_jobs(self, reason: str = "the document changed") -> None:
        for token in list(self.jobs):
            token.cancel(reason)

    def replace(self, text: str, version: int) -> None:
        """A full-text change."""
        self.cancel_jobs()
        with self.lock, self.document.guard:
            self.binary = looks_binary(text)
            self.binary_text = text if self.binary else None
            self.document.replace("" if self.binary else text, version)

    def apply_edit(self, start: tuple[int, int], end: tuple[int, int], text: str,
                   version: int) -> None:
        """An incremental change between two (line, code point) positions."""
        self.cancel_jobs()
        if self.binary:
            return      # see `edit_binary`
        with self.lock, self.document.guard:
            self.document.apply_edit(start, end, text, version)
        # a NUL makes any text binary; the share of control characters only means something
        # for a large piece (a pasted file), not for a few typed characters
        if "\x00" in text or (len(text) > 1024 and looks_binary(text)):
            self.replace(self.document.text, version)

    def edit_binary(self, start: int, end: int, text: str, version: int) -> None:
        """An edit of a binary document, between two code-point offsets of its text; the
        document becomes WAVE text again when the result no longer looks binary."""
        old = self.binary_text or ""
        self.replace(old[:start] + text + old[end:], version)

    # ---- derived results (lock held) -----------------------------------------------------------
    def derived(self, key: Any, compute: Callable[["DocumentState"], Any]) -> Any:
        """`compute(self)`, kept until the next edit (per `key`)."""
        revision = self.revision
        hit = self._derived.get(key)
        if hit is not None and hit[0] == revision:
            return hit[1]
        value = compute(self)
        with self.document.guard:          # kept only if no edit came in meanwhile
            if self.revision == revision:
                if len(self._derived) > 64:
                    self._derived = {k: v for k, v in self._derived.items()
                                     if v[0] == revision}
                self._derived[key] = (revision, value)
        return value

    def has_derived(self, key: Any) -> bool:
        """Whether `derived(key, ...)` of the current revision is kept (returns at once)."""
        hit = self._derived.get(key)
        return hit is not None and hit[0] == self.revision

    def diagnostics(self, config: Config | None = None) -> list[Diagnostic]:
        """The analysis layer's diagnostics for the current revision."""
        if self.binary:
            return [Diagnostic("X900", severity_of("X900"), Range(0, 0, 0, 0),
                               "binary file: not WAVE assembly text; nothing is analysed")]
        return analyze(self.document, config, self.analysis)

    def layout(self) -> CodeLayout:
        """Where every instruction and label lands (analysis/layout.py)."""
        return self.derived("layout", lambda s: layout_document(s.document))
