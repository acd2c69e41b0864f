"""Kernel profiles in the editor: what every line costs, from the emulator's profile counters.

- A "◔ Profile" code lens beside each `▶ Run` (on the `.kernel` line and on each launch line);
  after a profile it shows the kernel's figures (`◔ Profile: 72% lanes · 2-way banks`, click to
  profile again) and "✕ Clear profile".
- `wave-lsp.profile [uri, kernel, launchLine|null]` profiles `kernel` with that launch line (null:
  its first one, or the default launch) off the event loop and returns the `--profile --json`
  object of the launch's own preset plus `heat` (per executed line, 1-based: a level 1..5 and
  its share of the kernel's cost), `presets` (every preset's totals), `uri`, `kernel`,
  `launchLine`, `status`, `summary`. The kernel then stays live: every edit re-profiles it
  (debounced, a newer edit cancelling the profile in flight) until
  `wave-lsp.clearProfile [uri, kernel|null]` or the document closes.
- After each profile (and each clear) the server sends `wave-lsp/profileChanged`
  `{uri, version, profiles: [the command's result per kernel]}`, which feeds the heat views of
  the clients (VS Code decorations, Neovim extmarks), and asks for inlay hints, code lenses and
  diagnostics again: hints on the lines that matter, the line's counters under every preset in
  the hover, and information diagnostics (R021-R023) for the worst findings
  (`wave_lsp.ide.profile_view`).
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .documents import span, to_client_position
from .handlers import command, report_failure
from .runs import arg_root

if TYPE_CHECKING:
    from ..ide.profile_session import KernelProfileRun
    from ..ide.state import DocumentState
    from .server import WaveLanguageServer

PROFILE = "wave-lsp.profile"
CLEAR_PROFILE = "wave-lsp.clearProfile"
PROFILE_CHANGED = "wave-lsp/profileChanged"
LENS_COMMANDS = (PROFILE, CLEAR_PROFILE)


class ProfileService:
    """Profiles of the open documents: the worker, debounced re-profiles, refreshes. Each
    document's profiles live on its state (`DocumentState.profile_state()`)."""

    def __init__(self, server: "WaveLanguageServer") -> None:
        self.server = server
        self._worker = None
        self._timers: dict[str, asyncio.Task] = {}

    @property
    def worker(self):
        if self._worker is None:
            from ..ide.profile_session import ProfileWorker
            self._worker = ProfileWorker()
        return self._worker

    def current(self, doc: "DocumentState") -> list["KernelProfileRun"]:
        """Profiles of the document's current revision (never a stale one)."""
        return doc.profiles.current(doc.revision) if doc.profiles is not None else []

    def generation(self, doc: "DocumentState") -> int:
        return doc.profiles.generation if doc.profiles is not None else 0

    def live(self, doc: "DocumentState") -> dict[str, int | None]:
        runs = self.server.runs
        if doc.profiles is None or runs is None or not runs.trusted:
            return {}
        return dict(doc.profiles.live)

    # ---- events ------------------------------------------------------------------------------
    def document_changed(self, doc: "DocumentState", immediate: bool = False) -> None:
        """Schedule a debounced re-profile of the document's live kernels."""
        if doc.binary or not self.live(doc):
            return
        doc.profiles.stop()        # a stale profile is cancelled at once, not at the timer
        if (timer := self._timers.pop(doc.uri, None)) is not None:
            timer.cancel()
        delay = 0.0 if immediate else self.server.settings.debounce_ms / 1000
        self._timers[doc.uri] = asyncio.ensure_future(self._later(doc.uri, delay))

    def document_closed(self, uri: str) -> None:
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()
        doc = self.server.document(uri)
        if doc is not None and doc.profiles is not None:
            doc.profiles.stop()

    def settings_changed(self) -> None:
        for doc in self.server.documents.all():
            self.document_changed(doc, immediate=True)

    async def _later(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        self._timers.pop(uri, None)
        doc = self.server.text_document(uri)
        if doc is None:
            return
        try:
            await self.profile(doc, self.live(doc))
        except Exception as exc:
            report_failure(self.server, "re-profiling kernels", exc)

    # ---- profiling ---------------------------------------------------------------------------
    async def profile(self, doc: "DocumentState", wanted: dict[str, int | None]
                      ) -> list["KernelProfileRun"]:
        """Profile `wanted` kernels of the current revision off the event loop; keep and show
        the profiles if the document has not changed meanwhile. Returns them either way."""
        from ..ide.run_session import plan_runs
        state = doc.profile_state()
        state.stop()
        cancel = threading.Event()
        state.cancel = cancel
        runs = self.server.runs
        snapshot = plan_runs(doc, wanted, runs.launch_lines(doc), arg_root(self.server, doc.uri))

        def fresh() -> bool:
            return (self.server.document(doc.uri) is doc and doc.revision == snapshot.revision
                    and not cancel.is_set())
        try:
            # first the launch's own preset (heat, hints, findings), then every vendor's
            found = await asyncio.wrap_future(self.worker.submit(snapshot, runs.limits(), cancel))
            for step in (None, self.worker.submit_presets):
                if step is not None:
                    found = await asyncio.wrap_future(step(found, cancel))
                if not fresh():
                    break
                state.store(found)
                self.refresh(doc)
        finally:
            if state.cancel is cancel:
                state.cancel = None
        return found

    def forget(self, doc: "DocumentState", kernel: str | None) -> list[str]:
        """Clear one kernel's profile (or all) and stop re-profiling it."""
        state = doc.profile_state()
        names = [kernel] if kernel else sorted(set(state.live) | set(state.results))
        state.clear(kernel)
        if not state.live:
            state.stop()
            if (timer := self._timers.pop(doc.uri, None)) is not None:
                timer.cancel()
        self.refresh(doc)
        return names

    def refresh(self, doc: "DocumentState") -> None:
        """Tell the client's heat view, then redraw hints, lenses and diagnostics."""
        self.server.protocol.notify(PROFILE_CHANGED, {
            "uri": doc.uri, "version": doc.version,
            "profiles": [{"uri": doc.uri, **p.to_json()} for p in self.current(doc)]})
        self.server.runs.refresh(doc)

    def shutdown(self) -> None:
        for doc in self.server.documents.all():
            if doc.profiles is not None:
                doc.profiles.stop()
        if self._worker is not None:
            self._worker.shutdown()


def _service(server: "WaveLanguageServer") -> ProfileService | None:
    return getattr(server, "profiles", None)


# ---- what the feature modules show ---------------------------------------------------------
def code_lenses(server: "WaveLanguageServer", doc: "DocumentState") -> list[types.CodeLens]:
    """`◔ Profile` beside each Run lens; the kernel's figures where it was last profiled."""
    service = _service(server)
    if service is None or server.runs is None:
        return []
    results = {r.kernel: r for r in service.current(doc)}
    # where the kernel's run did not end well (no assembly, a bad launch, a run-time error or a
    # limit), that comes first: no lens there, and the line keeps its room for the run's message
    cannot = {(r.kernel, r.launch_line) for r in server.runs.current(doc) if r.status != "ok"}
    live = service.live(doc)
    by_kernel = server.runs.launch_lines(doc)
    out: list[types.CodeLens] = []

    def lens(rng, title: str, name: str, *args) -> None:
        out.append(types.CodeLens(range=rng, command=types.Command(
            title=title, command=name, arguments=[doc.uri, *args])))

    def place(rng, kernel: str, line: int | None, here: bool) -> None:
        result = results.get(kernel)
        if result is not None and here:
            lens(rng, result.summary(), PROFILE, kernel, line)
            lens(rng, "✕ Clear profile", CLEAR_PROFILE, kernel)
        elif result is None and kernel in live and here:
            lens(rng, "◔ profiling…", PROFILE, kernel, line)
        elif (kernel, line) not in cannot:
            lens(rng, "◔ Profile", PROFILE, kernel, line)

    for kernel in doc.program.kernels:
        lines = by_kernel.get(kernel.name, [])
        result = results.get(kernel.name)
        ordinal = live.get(kernel.name)
        rng = span(doc, kernel.line, kernel.directive.start, kernel.directive.end, server.codec)
        place(rng, kernel.name, None,
              (result.launch_line is None) if result is not None else not lines)
        for ll in lines:
            here = result.launch_line == ll.line if result is not None \
                else ll.ordinal == (ordinal or 0)
            place(span(doc, ll.line, ll.start, ll.end, server.codec), kernel.name, ll.line, here)
    return out


def inlay_hints(server: "WaveLanguageServer", doc: "DocumentState", first: int,
                last: int) -> list[types.InlayHint]:
    """After each line that matters in [first, last]: `×5 · 25% lanes`, `2-way bank conflict`…"""
    service = _service(server)
    out = []
    for result in service.current(doc) if service is not None else []:
        for line, hint in (result.view.hints.items() if result.view is not None else ()):
            if not first <= line <= last or line >= len(doc.lines):
                continue
            out.append(types.InlayHint(
                position=to_client_position(doc, line, len(doc.lines[line].rstrip()),
                                            server.codec),
                label=hint.label, padding_left=True, tooltip=hint.tooltip))
    return out


def hover(server: "WaveLanguageServer", doc: "DocumentState", line: int) -> str | None:
    """The line's counters under every preset, for each kernel profiled."""
    service = _service(server)
    parts = [text for r in (service.current(doc) if service is not None else [])
             if r.view is not None and (text := r.view.hover(line))]
    return "\n\n".join(parts) or None


def diagnostics(server: "WaveLanguageServer", doc: "DocumentState") -> list:
    """The worst findings of each current profile (information diagnostics, converted with the
    analysis' own by diagnostics.py)."""
    service = _service(server)
    if service is None or doc.binary:
        return []
    return [d for r in service.current(doc) if r.view is not None
            for d in r.view.findings if d.range.start_line < len(doc.lines)]


# ---- commands ------------------------------------------------------------------------------
def _refuse(server: "WaveLanguageServer", uri: Any, kernel: Any, message: str) -> dict:
    server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Warning, message=f"wave-lsp: {message}"))
    return {"uri": uri, "kernel": kernel, "ok": False, "status": "invalid-request",
            "message": message}


async def profile_command(server: "WaveLanguageServer", uri: Any = None, kernel: Any = None,
                          launch_line: Any = None, *_: Any) -> dict:
    doc = server.text_document(uri) if isinstance(uri, str) else None
    if doc is None:
        return _refuse(server, uri, kernel, f"cannot profile {uri!r}: not an open WAVE document")
    if not server.runs.trusted:
        return _refuse(server, uri, kernel, "kernels do not run in an untrusted workspace "
                                            "(trust the workspace to profile them)")
    names = [k.name for k in doc.program.kernels]
    if kernel is None and names:
        kernel = names[0]
    if not isinstance(kernel, str) or kernel not in names:
        return _refuse(server, uri, kernel, f"no kernel {kernel!r} in {uri} "
                                            f"(kernels: {', '.join(names) or 'none'})")
    ordinal = None
    if launch_line is not None:
        match = [ll for ll in server.runs.launch_lines(doc).get(kernel, [])
                 if ll.line == launch_line]
        if not match:
            return _refuse(server, uri, kernel, f"line {launch_line!r} is not a launch line "
                                                f"of kernel '{kernel}'")
        ordinal = match[0].ordinal
    service: ProfileService = server.profiles
    doc.profile_state().live[kernel] = ordinal
    found = await service.profile(doc, service.live(doc))
    result = next((r for r in found if r.kernel == kernel), None)
    if result is None:
        return _refuse(server, uri, kernel, f"kernel '{kernel}' was not profiled")
    if result.status not in ("ok", "cancelled"):
        server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning, message=f"wave-lsp: {kernel}: {result.summary()}"))
    return {"uri": doc.uri, **result.to_json()}


def clear_command(server: "WaveLanguageServer", uri: Any = None, kernel: Any = None,
                  *_: Any) -> dict:
    doc = server.text_document(uri) if isinstance(uri, str) else None
    if doc is None:
        return {"uri": uri, "cleared": []}
    return {"uri": doc.uri, "cleared": server.profiles.forget(
        doc, kernel if isinstance(kernel, str) else None)}


def setup(server: "WaveLanguageServer") -> None:
    server.profiles = ProfileService(server)

    @command(server, PROFILE)
    async def profile(*args):
        return await profile_command(server, *args)

    @command(server, CLEAR_PROFILE)
    def clear(*args):
        return clear_command(server, *args)
