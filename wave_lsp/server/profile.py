"""Kernel profiles in the editor: what every line costs, from the emulator's profile counters.

- A "◔ Profile" code lens beside each `▶ Run` (on the `.kernel` line and on each launch line;
  not where the kernel's run failed); after a profile it shows the kernel's figures
  (`◔ Profile: 72% lanes · 2-way banks`, click to profile again) and "✕ Clear profile"
  (`ide.lenses.profile_lenses`).
- `wave-lsp.profile [uri, kernel, launchLine|null]` profiles `kernel` with that launch line (null:
  its first one, or the default launch) off the event loop and returns the `--profile --json`
  object of the launch's own preset plus `heat` (per executed line, 1-based: a level 1..5 and
  its share of the kernel's cost), `presets` (every preset's totals), `complete`, `uri`,
  `kernel`, `launchLine`, `status`, `summary`. The kernel then stays live: every settled edit
  re-profiles it (an edit cancels the profile in flight at once) until
  `wave-lsp.clearProfile [uri, kernel|null]` or the document closes.
- After each profile step (the launch's preset; then every vendor's) and each clear the server
  sends `wave-lsp/profileChanged` `{uri, version, profiles: [the command's answer per kernel]}`,
  which feeds the clients' heat views (VS Code decorations, Neovim extmarks), and has hints,
  lenses and diagnostics redrawn: hints on the lines that matter, the line's counters under
  every preset in the hover (with its divergent branches where it split waves),
  information diagnostics (R021-R023) for the worst findings (`wave_lsp.ide.profile_view`),
  and a bank conflict's checked padding as a quick fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..ide.actions import fixable
from ..ide.lenses import Lens, profile_lenses
from ..ide.profile_view import profile_hover
from ..ide.state import DocumentState
from . import proto
from . import extensions
from .extensions import Cleared, ClearArgs, KernelProfile, LaunchArgs, ProfileChanged, wire
from .handlers import command
from .job_feature import JobFeature
from .run_documents import arg_root
from .runs import REFRESH, RunService, job_lines, start_live
from .server import WaveLanguageServer

if TYPE_CHECKING:
    from ..ide.profile_session import KernelProfileRun

PROFILE = extensions.PROFILE.name
CLEAR_PROFILE = extensions.CLEAR_PROFILE.name
PROFILE_CHANGED = extensions.PROFILE_CHANGED.name


class ProfileService(JobFeature):
    """Profiles of the open documents, a kind of the one job service (`JobFeature`: re-profiled
    when an edit settles, cancelled at once by an edit or a close), kept in
    `DocumentState.profiles`; only the kernels profiled are live. It asks the run service for
    the launch lines and whether a kernel's run ended well, and shows the profiles, never the
    runs (`RunService` does)."""

    kind = "profiles"
    what = "kernel profiles"

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(server)
        self._worker = None

    def state(self, doc: DocumentState):
        return doc.profile_state()

    @property
    def worker(self):
        if self._worker is None:
            from ..ide.profile_session import ProfileWorker
            self._worker = ProfileWorker(self.jobs)
        return self._worker

    @property
    def runs(self) -> RunService:
        return self.server.get_feature(RunService)

    def launch_lines(self, doc: DocumentState):
        return self.runs.launch_lines(doc)

    def current(self, doc: DocumentState) -> list["KernelProfileRun"]:
        """Profiles of the document's current revision (never a stale one's)."""
        state = self.existing(doc)
        return state.current(doc.revision) if state is not None else []

    def job_key(self, doc: DocumentState, wanted: dict[str, int | None]) -> tuple:
        return (doc.revision, tuple(sorted(wanted.items())), self.limits())

    def live_work(self, doc: DocumentState) -> dict[str, int | None]:
        """The kernels profiled."""
        return dict(doc.profiles.live) if doc.profiles is not None else {}

    async def run(self, doc: DocumentState, wanted: dict[str, int | None],
                  priority: int = REFRESH) -> list["KernelProfileRun"]:
        """Profile `wanted` kernels of the current revision off the event loop: first the
        launch's own preset (heat, hints, findings), then every vendor's; each step is kept and
        shown if the document has not changed meanwhile. A kernel whose inline run is live
        with the same launch line shares it: that one run (`RunService.profiles_of`) gives its
        values and its profile's first step, and a profile this revision already has is shown
        again without running. Returns the last either way; a cancelled request stops the
        profile (`JobFeature.wait`)."""
        from ..ide.run_session import plan_runs
        state = self.state(doc)
        revision = doc.revision
        have = {r.kernel: r for r in state.current(revision)}
        cancel = state.begin(self.job_key(doc, wanted))
        key = self.queue_key(doc)
        try:
            limits = self.limits()
            found, shared = [], self.runs.profiled(doc, self.runs.wanted(doc))
            shared = {k: o for k, o in shared.items() if k in wanted}
            for kernel in list(shared):     # shown already: this revision, this launch
                known = have.get(kernel)
                if known is not None and known.status in ("ok", "error") and \
                        known.ordinal == self._ordinal(doc, kernel, wanted[kernel]):
                    found.append(known)
                    del shared[kernel]
            if shared:
                found += await self.runs.profiles_of(doc, list(shared), priority)
                if not self.fresh(doc, revision, cancel):
                    return found
            rest = {k: o for k, o in wanted.items() if k not in {r.kernel for r in found}}
            if rest:
                snapshot = plan_runs(doc, rest, self.launch_lines(doc),
                                     arg_root(self.server, doc.uri))
                ran = await self.wait(state, self.worker.submit(snapshot, limits, cancel, key,
                                                                priority), cancel)
                for line in job_lines("profiled", revision, ran):
                    self.server.log(line)
                found += ran
            for step in (None, self.worker.submit_presets):
                if step is not None:
                    found = await self.wait(state, step(found, limits, cancel, key, priority),
                                            cancel)
                if not self.fresh(doc, revision, cancel):
                    break
                state.store(found)
                self.refresh(doc)
        finally:
            state.finished(cancel)
        return found

    def _ordinal(self, doc: DocumentState, kernel: str, ordinal: int | None) -> int | None:
        """The ordinal of the launch line a job of `kernel` with launch `ordinal` runs."""
        from ..ide.run_session import planned_launch
        ll = planned_launch(self.launch_lines(doc).get(kernel, []), ordinal)
        return ll.ordinal if ll is not None else None

    def refresh(self, doc: DocumentState) -> None:
        """Tell the client's heat view, then have hints, lenses and diagnostics redrawn."""
        self.server.protocol.notify(PROFILE_CHANGED, wire(ProfileChanged(
            doc.uri, doc.version,
            [KernelProfile.answer(uri=doc.uri, body=p.to_json()) for p in self.current(doc)])))
        super().refresh(doc)

    # ---- contributions ------------------------------------------------------------------------
    def code_lenses(self, doc: DocumentState) -> list[Lens]:
        """`◔ Profile` beside each Run lens; the kernel's figures where it was last profiled."""
        return profile_lenses(doc, self.current(doc), self.runs.current(doc), self.wanted(doc),
                              self.launch_lines(doc))

    def inlay_hints(self, doc: DocumentState, first: int, last: int) -> list[types.InlayHint]:
        """After each line that matters: `5 wave-instrs · 25% lanes`, `2-way bank conflict`, ..."""
        out = []
        for result in self.current(doc):
            for line, hint in (result.view.hints.items() if result.view is not None else ()):
                if first <= line <= last and line < len(doc.lines):
                    out.append(types.InlayHint(
                        position=proto.to_client_position(
                            doc, line, len(doc.lines[line].rstrip()), self.server.codec),
                        label=hint.label, padding_left=True, tooltip=hint.tooltip))
        return out

    def hover(self, doc: DocumentState, line: int, target) -> str | None:
        """The line's counters under every preset, for each kernel profiled."""
        return profile_hover(self.current(doc), line)

    def diagnostics(self, doc: DocumentState) -> list[types.Diagnostic]:
        """The worst findings of each current profile, as information diagnostics."""
        return [proto.diagnostic(doc, d, self.server.codec, self.server.client.related_information)
                for r in self.current(doc) if r.view is not None
                for d in r.view.findings if d.range.start_line < len(doc.lines)]

    def quick_fixes(self, doc: DocumentState, first: tuple[int, int],
                    last: tuple[int, int]) -> list[types.CodeAction]:
        """The findings' quick fixes in the range: a bank conflict's checked padding (the
        stride constant and `.local_memory` together, `ide.bank_advice`)."""
        codec, related = self.server.codec, self.server.client.related_information
        out = []
        for r in self.current(doc):
            for d in fixable(list(r.view.findings) if r.view is not None else [], first, last):
                lsp_diag = proto.diagnostic(doc, d, codec, related)
                out.extend(types.CodeAction(
                    title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[lsp_diag],
                    is_preferred=i == 0, edit=proto.workspace_edit(
                        doc, fix.edits, codec, self.server.client.versioned_edits))
                    for i, fix in enumerate(d.fixes))
        return out


# ---- commands ------------------------------------------------------------------------------
async def profile_command(server: WaveLanguageServer, uri: Any = None, kernel: Any = None,
                          launch_line: Any = None, *_: Any) -> dict:
    started = await start_live(server, server.get_feature(ProfileService), "profile", uri,
                               kernel, launch_line)
    if isinstance(started, dict):
        return started
    doc, result = started
    if result.status not in ("ok", "cancelled"):
        server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message=f"wave-lsp: {result.kernel}: {result.summary()}"))
    return KernelProfile.answer(uri=doc.uri, body=result.to_json())


def clear_command(server: WaveLanguageServer, uri: Any = None, kernel: Any = None,
                  *_: Any) -> dict:
    doc = server.text_document(uri)
    if doc is None:
        return wire(Cleared(uri, []))
    return wire(Cleared(doc.uri, server.get_feature(ProfileService).forget(
        doc, kernel if isinstance(kernel, str) else None)))


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(ProfileService(server))

    @command(server, PROFILE)
    async def profile(*args):
        a = LaunchArgs.parse(args)
        return await profile_command(server, a.uri, a.kernel, a.launch_line)

    @command(server, CLEAR_PROFILE)
    def clear(*args):
        a = ClearArgs.parse(args)
        return clear_command(server, a.uri, a.kernel)
