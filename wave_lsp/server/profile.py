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
from .handlers import command
from .runs import RunService, arg_root, start_live

if TYPE_CHECKING:
    from ..ide.profile_session import KernelProfileRun
    from ..ide.state import DocumentState
    from .server import WaveLanguageServer

PROFILE = "wave-lsp.profile"
CLEAR_PROFILE = "wave-lsp.clearProfile"
PROFILE_CHANGED = "wave-lsp/profileChanged"
LENS_COMMANDS = (PROFILE, CLEAR_PROFILE)


class ProfileService(RunService):
    """Profiles of the open documents, as `RunService` runs them (debounced re-profiles, a newer
    edit cancelling the one in flight), with their own worker and state
    (`DocumentState.profile_state()`); only the kernels profiled are live."""

    @staticmethod
    def state(doc: "DocumentState"):
        return doc.profile_state()

    @staticmethod
    def existing(doc: "DocumentState"):
        return doc.profiles

    @property
    def worker(self):
        if self._worker is None:
            from ..ide.profile_session import ProfileWorker
            self._worker = ProfileWorker()
        return self._worker

    def wanted(self, doc: "DocumentState") -> dict[str, int | None]:
        """The kernels profiled (none in an untrusted workspace)."""
        if doc.profiles is None or not self.server.runs.trusted:
            return {}
        return dict(doc.profiles.live)

    async def run(self, doc: "DocumentState", wanted: dict[str, int | None]
                  ) -> list["KernelProfileRun"]:
        """Profile `wanted` kernels of the current revision off the event loop: first the
        launch's own preset (heat, hints, findings), then every vendor's; each is kept and
        shown if the document has not changed meanwhile. Returns the last either way."""
        from ..ide.run_session import plan_runs
        state = self.state(doc)
        state.stop()
        cancel = threading.Event()
        state.cancel = cancel
        snapshot = plan_runs(doc, wanted, self.launch_lines(doc), arg_root(self.server, doc.uri))

        def fresh() -> bool:
            return (self.server.document(doc.uri) is doc and doc.revision == snapshot.revision
                    and not cancel.is_set())
        try:
            found = await asyncio.wrap_future(self.worker.submit(snapshot, self.limits(), cancel))
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

    def refresh(self, doc: "DocumentState") -> None:
        """Tell the client's heat view, then redraw hints, lenses and diagnostics."""
        self.server.protocol.notify(PROFILE_CHANGED, {
            "uri": doc.uri, "version": doc.version,
            "profiles": [{"uri": doc.uri, **p.to_json()} for p in self.current(doc)]})
        self.server.runs.refresh(doc)


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
    live = service.wanted(doc)
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
async def profile_command(server: "WaveLanguageServer", uri: Any = None, kernel: Any = None,
                          launch_line: Any = None, *_: Any) -> dict:
    started = await start_live(server, server.profiles, "profile", uri, kernel, launch_line)
    if isinstance(started, dict):
        return started
    doc, result = started
    if result.status not in ("ok", "cancelled"):
        server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message=f"wave-lsp: {result.kernel}: {result.summary()}"))
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
