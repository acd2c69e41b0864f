"""Static verification in the editor: `wave-lsp.verify [uri, kernel]` and
`wave-lsp.replayWitness [uri, kernel]`.

"Verify" above each kernel runs the verifier (`ide.verify`, the work of `wave-lsp verify`)
on the one job service's worker — an edit or a close cancels it, an untrusted workspace refuses
it (the replay of a witness runs the kernel) — and then shows the verdict in the lens (`✓
race-free (proved, 0.3 s)`, `✕ race: line 12 ↔ line 15`, `? unknown: …`), a witness as an error
on its first access (`R031` race, `R032` divergent barrier) with the other access as related
information, "▶ Replay witness" and "Debug witness" (the client's `wave.debugAtMoment` with
the witness's launch paused at its first access, also a code action on R031/R032 and the
answer's `debugAtMoment`); "⟳ verifying…" while it runs. An edit hides them; once the edit settles, the kernels
verified before are verified again. The answer is the verdict's JSON (as `wave-lsp verify
--json`) with the URI.
"""

from __future__ import annotations

import threading
from pathlib import Path

from lsprotocol import types

from ..ide import verify
from ..ide.jobs import CLICKED, JobDropped
from ..ide.lenses import Lens
from ..ide.state import DocumentState
from . import extensions
from .extensions import KernelArgs
from .verify_types import Replayed, Verification
from .handlers import command, command_kernel
from .job_feature import ClickedJobFeature
from ..ide.moments import witness_moment
from .proto import diagnostic, file_path
from .runs import moment_actions, refuse
from .server import WaveLanguageServer

VERIFY = extensions.VERIFY.name
REPLAY = extensions.REPLAY_WITNESS.name


class VerifyLenses(ClickedJobFeature):
    """Verification, a kind of the one job service: a kernel is verified when clicked, and
    from then on again whenever an edit settles (its verdict is hidden meanwhile)."""

    kind = verify.KIND
    what = "verifications"

    def live_work(self, doc: DocumentState):
        """The kernels verified before that the document still has (one job verifies all)."""
        names = {k.name for k in doc.program.kernels}
        live = self.existing(doc)
        wanted = tuple(sorted(n for n in (live.live if live is not None else ()) if n in names))
        return wanted or {}

    def job_key(self, doc: DocumentState, wanted) -> tuple:
        return (doc.revision, (wanted,) if isinstance(wanted, str) else tuple(wanted))

    def code_lenses(self, doc: DocumentState) -> list[Lens]:
        state = self.existing(doc)
        return verify.verify_lenses(doc, on_disk(doc),
                                    state.running if state is not None else ())

    def quick_fixes(self, doc: DocumentState, first: tuple[int, int],
                    last: tuple[int, int]) -> list[types.CodeAction]:
        """"Debug witness" on the first access (or barrier) of each witness in the range."""
        path = on_disk(doc)
        if path is None:
            return []
        return moment_actions([m for m in verify.witness_moments(doc, path)
                               if first[0] <= m.line <= last[0]])

    def diagnostics(self, doc: DocumentState) -> list[types.Diagnostic]:
        return [diagnostic(doc, d, self.server.codec, self.server.client.related_information)
                for d in verify.witness_diagnostics(doc)]

    async def run(self, doc: DocumentState, wanted, priority: int = CLICKED):
        """Verify one kernel (clicked: a name; it becomes live) or the live ones (after an
        edit: a tuple of names) on the one worker; returns the (first) kernel's result."""
        kernels = (wanted,) if isinstance(wanted, str) else tuple(wanted)
        revision, text = doc.revision, doc.text
        state = self.state(doc)
        state.live.update(dict.fromkeys(kernels))
        cancel = state.begin(self.job_key(doc, wanted))
        state.running = set(kernels)          # "⟳ verifying…" in their lenses meanwhile
        self.refresh(doc)

        def stopped() -> bool:
            return cancel.is_set() or self.closing

        def work() -> list:
            return [verify.verify_text(text, name, stopped) for name in kernels]

        try:
            results = await self.wait(state, self.jobs.submit(
                self.queue_key(doc), priority, work, cancel=cancel), cancel)
        finally:
            state.finished(cancel)
            if not self.fresh(doc, revision, cancel) and self.server.document(doc.uri) is doc:
                self.refresh(doc)             # no "⟳ verifying…" left behind
        if self.fresh(doc, revision, cancel):
            for name, result in zip(kernels, results):
                if result is not None:
                    verify.keep(doc, revision, name, result)
            self.refresh(doc)
        return results[0] if results else None

    async def replay(self, doc: DocumentState, found: verify.Verification):
        text, cancel = doc.text, threading.Event()
        return await self.wait(self.state(doc), self.jobs.submit(
            (doc.uri, "verify-replay"), CLICKED, lambda: verify.replay_text(text, found),
            cancel=cancel), cancel)


def on_disk(doc: DocumentState) -> Path | None:
    """The document's file, where the debugger can read it (a "Debug witness" needs one)."""
    path = None if doc.binary else file_path(doc.uri)
    return path if path is not None and path.is_file() else None


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(VerifyLenses(server))

    def checked(args: tuple, verb: str):
        """(document, kernel, service) of a command's `[uri, kernel]`, or its refusal."""
        doc, kernel, missing = command_kernel(server, args)
        request = KernelArgs.parse(args)
        if kernel is None:
            return refuse(server, request.uri, request.kernel, missing)
        service = server.get_feature(VerifyLenses)
        refusal = service.jobs.refusal(verb)
        if refusal is not None:
            return refuse(server, request.uri, request.kernel, refusal)
        return doc, kernel, service

    @command(server, VERIFY)
    async def verify_command(*args):
        found = checked(args, "verify")
        if isinstance(found, dict):
            return found
        doc, kernel, service = found
        try:
            result = await service.run(doc, kernel.name)
        except JobDropped as err:
            return refuse(server, doc.uri, kernel.name,
                          f"the verification of kernel {kernel.name!r} did not run: {err}")
        if result is None:
            return refuse(server, doc.uri, kernel.name,
                          f"the verification of kernel {kernel.name!r} was cancelled")
        v = result.verdict
        server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Info if v.verdict in ("proved", "unknown")
            else types.MessageType.Warning, message=f"wave-lsp: {v.kernel}: {v.summary()}"))
        path = on_disk(doc)
        moment = witness_moment(path, v) if path is not None else None
        extra = {"debug_at_moment": moment.configuration} if moment is not None else {}
        return Verification.answer(uri=doc.uri, body=result.as_dict(), **extra)

    @command(server, REPLAY)
    async def replay_command(*args):
        checked_args = checked(args, "replay")
        if isinstance(checked_args, dict):
            return checked_args
        doc, kernel, service = checked_args
        found = verify.current(doc).get(kernel.name)
        if found is None or found.verdict.witness is None:
            return refuse(server, doc.uri, kernel.name,
                          f"kernel {kernel.name!r} has no witness: verify it first")
        try:
            shown = await service.replay(doc, found)
        except JobDropped as err:
            return refuse(server, doc.uri, kernel.name, f"the replay did not run: {err}")
        server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning if shown.shown else types.MessageType.Info,
            message=f"wave-lsp: replay of {kernel.name}: {shown.line}"))
        return Replayed.answer(uri=doc.uri, body={"kernel": kernel.name},
                               launch=found.verdict.launch(), shown=shown.shown,
                               message=shown.line)
