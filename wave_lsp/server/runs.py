"""Inline runs in the server: when kernels run, and telling the client to redraw their results.

Runs are a kind of the one job service (`job_feature.JobFeature`, over `ide.jobs`), which
implements their lifecycle. A kernel becomes live when the user runs it (`wave-lsp.run`) or,
with `run.live`, as soon as it has a launch line. Every edit of a document cancels its
in-flight run at once; when the edit settles (the server's one debounce, `sync.Debounce`), the
current revision runs on the service's one worker (`wave_lsp.ide.run_session`). Results are stored only
if the document is still at the revision they ran on, then the client is asked to refresh inlay
hints and code lenses, and diagnostics are re-delivered. A client that cannot be asked to
refresh its code lenses (Neovim 0.11) gets the notification `wave-lsp/runsChanged` (`{uri}`)
instead, which editors/nvim answers by asking for them again. The emulator is loaded only once a
document has a launch line or a kernel is run.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..cancellation import Cancelled
from ..ide.jobs import untrusted
from ..ide.moments import DEBUG_COMMAND
from ..ide.lenses import Lens, run_lenses
from ..ide.run_diagnostics import run_diagnostics
from ..ide.run_queue import CLICKED, REFRESH
from ..ide.state import DocumentState
from . import run_display
from . import extensions
from .extensions import Refusal, wire
from .job_feature import JobFeature, read_trust
from .proto import file_path
from .run_documents import arg_root, launched_kernels, parse_launch_lines
from .server import WaveLanguageServer

if TYPE_CHECKING:
    from ..ide.launch_lines import LaunchLine
    from ..ide.run_results import KernelRun
    from ..ide.run_session import DocumentRuns

# notification: the user has trusted the workspace since (VS Code's onDidGrantWorkspaceTrust);
# trust is only ever granted this way, never taken back (VS Code reloads to un-trust)
TRUST_GRANTED = extensions.WORKSPACE_TRUSTED.name


class RunService(JobFeature):
    """Inline runs, a kind of the one job service (`JobFeature`): what to run (the live
    kernels, with `run.live` every launched one) and what the runs show (lenses, hints,
    hovers, diagnostics, launch flag completion: `run_display`). Each document's results live
    on its `DocumentState.runs`, so they go with it."""

    kind = "runs"
    what = "kernels"

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(server)
        self._worker = None
        self.refused: set[tuple[str, str]] = set()   # (uri, kernel) whose run trust refused

    # ---- state -------------------------------------------------------------------------------
    def state(self, doc: DocumentState) -> "DocumentRuns":
        return doc.run_state()

    @property
    def worker(self):
        if self._worker is None:
            from ..ide.run_session import RunWorker
            self._worker = RunWorker(self.jobs)
        return self._worker

    def launch_lines(self, doc: DocumentState) -> dict[str, list["LaunchLine"]]:
        """Each kernel's launch lines, parsed once per revision (files not read)."""
        root = arg_root(self.server, doc.uri)
        return doc.derived(("run.launch_lines", root),
                           lambda state: parse_launch_lines(state, root))

    def launch_lines_parsed(self, doc: DocumentState) -> bool:
        """Whether `launch_lines(doc)` of this revision is kept (no parse left to do)."""
        return doc.has_derived(("run.launch_lines", arg_root(self.server, doc.uri)))

    def current(self, doc: DocumentState) -> list["KernelRun"]:
        """Results of the document's current revision (never a stale run's)."""
        state = self.existing(doc)
        return state.current(doc.revision) if state is not None else []

    def generation(self, doc: DocumentState) -> int:
        return self.results_generation(doc)

    def job_key(self, doc: DocumentState, wanted: dict[str, int | None]) -> tuple:
        """All that decides a job's results: the revision, the kernels and their launch lines,
        the limits (no other setting changes what a kernel does), the kernels profiled too."""
        return (doc.revision, tuple(sorted(wanted.items())), self.limits(),
                tuple(sorted(self.profiled(doc, wanted))))

    def profiled(self, doc: DocumentState, wanted: dict[str, int | None]) -> dict:
        """The kernels of `wanted` whose profile is live with the same launch line: their
        inline run profiles them too (`run_session.shared_runs`), one run for both."""
        profiles = doc.profiles
        if profiles is None or not profiles.live or not wanted or not self.trusted:
            return {}
        from ..ide.run_session import shared_runs
        return shared_runs(wanted, profiles.live, self.launch_lines(doc))

    async def profiles_of(self, doc: DocumentState, kernels, priority: int = REFRESH) -> list:
        """The profiles the inline run of the current revision makes of `kernels` (among
        `profiled`): taken from its record where it ran already, else from the run job in
        flight (joined) or one begun now. A kernel the run did not profile (it did not start)
        is missing from the answer."""
        state = self.state(doc)
        taken = state.take_profiles(doc.revision, kernels)
        if len(taken) < len(kernels):
            revision = doc.revision
            await self.run(doc, self.wanted(doc), priority)
            if doc.revision == revision:
                have = {p.kernel for p in taken}
                taken += state.take_profiles(revision, [k for k in kernels if k not in have])
        return taken

    def live_work(self, doc: DocumentState) -> dict[str, int | None]:
        """Kernels to re-run for `doc`: the live ones, and with `run.live` every kernel with a
        launch line."""
        wanted = dict(self.existing(doc).live) if self.existing(doc) is not None else {}
        if self.server.settings.run_live:
            for kernel in launched_kernels(doc):
                wanted.setdefault(kernel, None)
        return wanted

    # ---- lifecycle ----------------------------------------------------------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        read_trust(self.jobs, params)

    def grant_trust(self) -> None:
        """The workspace is trusted now: the next Run runs, and with `run.live` every launched
        kernel runs at once; the lenses of refused runs are redrawn."""
        if self.trusted:
            return
        self.trusted = True
        self.refused.clear()
        self.server.log("wave-lsp: the workspace is trusted now: kernels run")
        for doc in self.server.documents.all():
            if not doc.binary:
                self.document_settled(doc)
        if self.server.client.code_lens_refresh:
            self.server.workspace_code_lens_refresh(None)

    def refuse_untrusted(self, doc: DocumentState, kernel: Any) -> None:
        """Remember that trust refused `kernel`'s run, so that its lens says so."""
        if isinstance(kernel, str):
            self.refused.add((doc.uri, kernel))
            self.refresh(doc)

    def document_closed(self, uri: str) -> None:
        """The `--arg` files kept for runs may be the closed document's only: read them anew
        when another document runs (its records went with its `DocumentState`)."""
        if self._worker is not None:
            self._worker.files.clear()

    # ---- contributions ------------------------------------------------------------------------
    def code_lenses(self, doc: DocumentState) -> list[Lens]:
        refused = {k for uri, k in self.refused if uri == doc.uri} if not self.trusted else set()
        return run_lenses(doc, self.current(doc), self.wanted(doc), self.launch_lines(doc),
                          refused)

    def inlay_hints(self, doc: DocumentState, first: int, last: int) -> list[types.InlayHint]:
        state = self.existing(doc)
        stale = []
        if state is not None and state.kept:
            from ..ide.stale_values import stale_values
            stale = doc.derived(("run.stale", state.generation), lambda d: stale_values(
                state.kept, self.current(d), d.lines))
        return run_display.inlay_hints(doc, self.server.codec, self.current(doc), first, last,
                                       stale)

    def hover(self, doc: DocumentState, line: int, target) -> str | None:
        current = self.current(doc)
        if not current:
            return None
        from ..ide.run_hover import run_hover
        return run_hover(doc, current, line, target)

    def diagnostics(self, doc: DocumentState) -> list[types.Diagnostic]:
        found = run_diagnostics(doc, self.current(doc), self.launch_lines(doc),
                                lambda: self.server.analysis(doc))
        return run_display.lsp_diagnostics(doc, self.server.codec,
                                           self.server.client.related_information, found)

    def completions(self, doc: DocumentState, line: int,
                    col: int) -> list[types.CompletionItem] | None:
        return run_display.flag_completions(doc, self.server.codec, line, col)

    def quick_fixes(self, doc: DocumentState, first: tuple[int, int],
                    last: tuple[int, int]) -> list[types.CodeAction]:
        """"Debug at this moment" for each run finding on lines first[0]..last[0]."""
        path = file_path(doc.uri)
        if path is None or doc.binary:
            return []
        from ..ide.moments import run_moments
        moments = [m for run in self.current(doc) for m in run_moments(run, path)
                   if first[0] <= m.line <= last[0]]
        return moment_actions(moments)

    # ---- running -----------------------------------------------------------------------------
    async def run(self, doc: DocumentState, wanted: dict[str, int | None],
                  priority: int = REFRESH) -> list["KernelRun"]:
        """Run `wanted` kernels of the current revision off the event loop; store and show the
        results if the document has not changed meanwhile. Returns the results either way. A
        run of the very job that runs or waits (same revision, kernels and limits: a Run
        clicked again and again) joins it instead of starting another: one run, one answer
        for all. `priority`: `CLICKED` for the Run the user asked for, before the re-runs of
        edits (`REFRESH`) and dump windows."""
        if not self.launch_lines_parsed(doc):
            # its launch lines parsed off the event loop (10,000 flags take 0.2 s); when they
            # are already, the job is queued at once (a Run clicked goes before the dump
            # windows and re-runs queued behind it, not after the ones the thread hop let in)
            try:
                await self.server.documents.run(doc, self.launch_lines, name="launch lines",
                                                reader=True)
            except Cancelled:
                pass   # edited meanwhile: `begin` parses the new revision's
        state = self.state(doc)
        revision = doc.revision
        began = False
        if state.pending is not None and state.job == self.job_key(doc, wanted):
            future, cancel = state.pending, state.cancel
            if priority == CLICKED:
                self.worker.promote(self.queue_key(doc))
        else:
            state, cancel, snapshot = self.begin(doc, wanted)
            began = True
            future = state.pending = self.worker.submit(snapshot, self.limits(), cancel,
                                                        self.queue_key(doc), priority)
        runs = await self.wait(state, future, cancel)
        state.finished(cancel, future)
        if began:
            for line in job_lines("ran", revision, runs):
                self.server.log(line)
        # stored and shown once per job
        if self.fresh(doc, revision, cancel) and state.stored is not future:
            state.stored = future
            state.store(runs, tuple(doc.lines))
            self.refresh(doc)
        return runs

    def begin(self, doc: DocumentState, wanted: dict[str, int | None]):
        """Start a job of `wanted` kernels on the current revision: the job in flight is
        cancelled, this one gets its cancel flag and key. Returns (state, cancel, snapshot)."""
        from ..ide.run_session import plan_runs
        state = self.state(doc)
        cancel = state.begin(self.job_key(doc, wanted))
        snapshot = plan_runs(doc, wanted, self.launch_lines(doc), arg_root(self.server, doc.uri),
                             self.profiled(doc, wanted))
        return state, cancel, snapshot


def job_lines(verb: str, revision: int, results) -> list[str]:
    """`WAVE_LSP_SHOW_ENGINE=1`'s log lines of a job's results (`KernelRun`s or
    `KernelProfileRun`s that ran): `wave-lsp: ran K at revision N with its profile (engine:
    native)`; none without the variable."""
    import os
    if os.environ.get("WAVE_LSP_SHOW_ENGINE") != "1":
        return []
    return [f"wave-lsp: {verb} {r.kernel} at revision {revision}"
            f"{' with its profile' if getattr(r, 'profile', None) is not None else ''}"
            f" (engine: {r.engine})" for r in results if r.engine]


def refuse(server: WaveLanguageServer, uri: Any, kernel: Any, message: str,
           warn: bool = True) -> dict:
    """Warn with `message` (unless not `warn`) and answer it as a command's refused result."""
    if warn:
        server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                           message=f"wave-lsp: {message}"))
    return wire(Refusal(uri, kernel, message=message))


def open_for_runs(server: WaveLanguageServer, uri: Any, kernel: Any,
                  what: str) -> tuple[DocumentState, RunService] | dict:
    """The open document `uri` and the run service, for a command that runs the emulator on
    it; or the command's refusal: not an open WAVE document (`what` says what could not be
    done), or the workspace's trust refuses runs."""
    doc = server.text_document(uri)
    if doc is None:
        return refuse(server, uri, kernel, f"{what} {uri!r}: not an open WAVE document")
    runs = server.get_feature(RunService)
    refusal = runs.jobs.refusal("run")
    if refusal is not None:
        return refuse(server, uri, kernel, refusal)
    return doc, runs


def launched_kernel(server: WaveLanguageServer, runs: RunService, doc: DocumentState, uri: Any,
                    kernel: Any, launch_line: Any) -> tuple[str, int | None] | dict:
    """The kernel a command names (the document's first when None) and the ordinal of its
    launch line `launch_line` (None: no launch line named); or the command's refusal."""
    names = [k.name for k in doc.program.kernels]
    if kernel is None and names:
        kernel = names[0]
    if not isinstance(kernel, str) or kernel not in names:
        return refuse(server, uri, kernel, f"no kernel {kernel!r} in {uri} "
                                           f"(kernels: {', '.join(names) or 'none'})")
    if launch_line is None:
        return kernel, None
    match = [ll for ll in runs.launch_lines(doc).get(kernel, []) if ll.line == launch_line]
    if not match:
        return refuse(server, uri, kernel, f"line {launch_line!r} is not a launch line "
                                           f"of kernel '{kernel}'")
    return kernel, match[0].ordinal


async def start_live(server: WaveLanguageServer, service: RunService, verb: str, uri: Any,
                     kernel: Any, launch_line: Any) -> tuple[DocumentState, Any] | dict:
    """What `wave-lsp.run` and `wave-lsp.profile` share: check `[uri, kernel, launchLine|null]`
    (a refusal, as the command's answer, when they do not name an open document's kernel and
    one of its launch lines), make the kernel live in `service` with that launch line and run
    the document's live kernels. Returns (document, this kernel's result)."""
    doc = server.text_document(uri)
    if doc is None:
        return refuse(server, uri, kernel, f"cannot {verb} {uri!r}: not an open WAVE document")
    runs = server.get_feature(RunService)
    if not runs.trusted:
        runs.refuse_untrusted(doc, kernel if kernel is not None else
                              next((k.name for k in doc.program.kernels), None))
        return refuse(server, uri, kernel, untrusted(verb))
    chosen = launched_kernel(server, runs, doc, uri, kernel, launch_line)
    if isinstance(chosen, dict):
        return chosen
    kernel, ordinal = chosen
    live = service.state(doc).live
    before = live.get(kernel, _NOT_LIVE)
    live[kernel] = ordinal
    try:
        results = await service.run(doc, service.wanted(doc), CLICKED)
    except asyncio.CancelledError:     # `$/cancelRequest`: the run stopped, the kernel is
        if before is _NOT_LIVE:         # not re-run by the next edit either
            live.pop(kernel, None)
        else:
            live[kernel] = before
        service.refresh(doc)
        raise
    result = next((r for r in results if r.kernel == kernel), None)
    if result is None:
        return refuse(server, uri, kernel, f"kernel '{kernel}' did not {verb}")
    return doc, result


_NOT_LIVE = object()


def moment_actions(moments) -> list[types.CodeAction]:
    """Code actions that start a debug session at each moment (`ide.moments`): the editor
    runs `wave.debugAtMoment` with the launch configuration."""
    return [types.CodeAction(title=f"{m.title}: {m.configuration['name']}",
                             kind=types.CodeActionKind.QuickFix,
                             command=types.Command(title=m.title, command=DEBUG_COMMAND,
                                                   arguments=[m.configuration]))
            for m in moments]
