"""The portability check in the editor: `wave-lsp.checkPortability [uri, kernel]`.

The command runs the kernel's launch (its `; wave-lsp run: FLAGS` line, else the kernel's own
workgroup size on one workgroup) once per wave width the configured targets use
(`isa/backends.py`), off the event loop, and compares the device memory the runs leave. The
result is returned as JSON, summarised in a message, and shown inline: a code lens above each
store line whose memory differs between widths, until the document is edited. Each kernel also
gets a "Check portability" code lens that runs the command (the lenses:
`ide.lenses.portability_lenses`). The check itself, and where its results are kept (the
document's job record, for its current revision), is `ide.portability`'s; the check is a kind
of the one job service (`job_feature.JobFeature`): it runs on its one worker, an edit or a
close cancels it, and an untrusted workspace refuses it.
A check that cannot run answers why, as `wave-lsp.run` does: `{"uri", "kernel", "ok": false,
"status": "invalid-request", "message"}` (and shows the message).
"""

from __future__ import annotations

from lsprotocol import types

from ..ide import portability
from ..ide.jobs import CLICKED, JobDropped
from ..ide.lenses import Lens, portability_lenses
from ..ide.state import DocumentState
from . import extensions
from .extensions import KernelArgs, Portability
from .handlers import command, command_kernel
from .job_feature import ClickedJobFeature
from .run_documents import arg_root
from .runs import RunService, refuse
from .server import WaveLanguageServer

CHECK = extensions.CHECK_PORTABILITY.name


class PortabilityLenses(ClickedJobFeature):
    """The portability check, a kind of the one job service (`JobFeature`) that runs only
    when clicked (nothing re-runs after an edit: the edit cancels the check in flight and its
    results are hidden, as a close drops them). "Check portability" above each kernel, and
    one lens per store line that differs."""

    kind = "portability"
    what = "portability checks"

    def code_lenses(self, doc: DocumentState) -> list[Lens]:
        return portability_lenses(doc)

    async def run(self, doc: DocumentState, kernel: str, priority: int = CLICKED):
        """Check `kernel` at `widths` on the one worker (an edit, a close or shutdown stops
        it); returns the comparison (kept on the document if still fresh)."""
        runs = self.server.get_feature(RunService)
        widths = portability.widths_of(self.server.config(doc).targets)
        revision, text = doc.revision, doc.text
        lines = runs.launch_lines(doc).get(kernel, [])
        root, files = arg_root(self.server, doc.uri), self.jobs.files
        state = self.state(doc)
        cancel = state.begin(self.job_key(doc, kernel))

        def stopped() -> bool:
            return cancel.is_set() or self.closing

        try:
            comparison = await self.wait(state, self.jobs.submit(
                self.queue_key(doc), priority, lambda: portability.check_widths(
                    text, kernel, lines, widths, files, root, stopped), cancel=cancel), cancel)
        finally:
            state.finished(cancel)
        if self.fresh(doc, revision, cancel):
            portability.keep(doc, revision, comparison)
        return comparison


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(PortabilityLenses(server))

    @command(server, CHECK)
    async def check(*args):
        return await _check(server, *args)


async def _check(server: WaveLanguageServer, *args):
    doc, kernel, missing = command_kernel(server, args)
    request = KernelArgs.parse(args)
    uri, name = request.uri, request.kernel

    def fail(message: str) -> dict:       # shown, and answered with the reason
        return refuse(server, uri, name, message)

    if kernel is None:
        return fail(missing)
    targets = server.config(doc).targets
    widths = portability.widths_of(targets)
    if len(widths) < 2:
        return fail("the configured targets use only one wave width "
                    f"({', '.join(targets) or 'none'}): nothing to compare")
    service = server.get_feature(PortabilityLenses)
    refusal = service.jobs.refusal("check")
    if refusal is not None:
        return fail(refusal)
    try:
        comparison = await service.run(doc, kernel.name)
    except JobDropped as err:
        return fail(f"the check of kernel {kernel.name!r} did not run: {err}")
    except (ValueError, MemoryError, OverflowError) as err:
        return fail(f"cannot run kernel {kernel.name!r}: "
                    f"{err or type(err).__name__}")
    server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Info if comparison.portable else types.MessageType.Warning,
        message=f"wave-lsp: {portability.summary(comparison)}"))
    if server.client.code_lens_refresh:
        server.workspace_code_lens_refresh(None)
    return Portability.answer(uri=doc.uri, body=comparison.as_dict())
