"""Running a kernel on a real GPU from the editor: `wave-lsp.runOnGpu [uri, kernel]`.

Only where CuPy finds a CUDA device (`ide.gpu.gpu_status`; never otherwise, so editors without
a GPU see nothing of it) each kernel gets a "▶ Run on GPU" code lens. The command runs the
kernel's launch (its `; wave-lsp run: FLAGS` line, as the portability check reads it) on the GPU
and in the emulator, off the event loop, and reports whether the device memory is the same or
the first word that differs with the store line that wrote it, as a message and as the result.
A GPU run is a kind of the one job service (`job_feature.JobFeature`): its one worker, its
trust gate; an edit or a close stops the emulator's side of it.
"""

from __future__ import annotations

from lsprotocol import types

from ..ide.gpu import gpu_status, run_on_gpu
from ..ide.jobs import CLICKED
from ..ide.lenses import Lens, gpu_lenses
from ..ide.portability import kernel_launch
from ..ide.state import DocumentState
from . import extensions
from .extensions import GpuRun
from .handlers import command, command_kernel
from .job_feature import ClickedJobFeature
from .run_documents import arg_root
from .proto import file_path
from .runs import RunService
from ..ide.moments import value_moment
from .server import WaveLanguageServer

RUN_ON_GPU = extensions.RUN_ON_GPU.name


class GpuLenses(ClickedJobFeature):
    """GPU runs, a kind of the one job service (`JobFeature`) that runs only when clicked: on
    its one worker, behind its trust gate, an edit or a close cancelling the emulator's side.
    "▶ Run on GPU" above each kernel, only when a GPU run is possible."""

    kind = "gpu_runs"
    what = "GPU runs"

    def code_lenses(self, doc: DocumentState) -> list[Lens]:
        return gpu_lenses(doc, gpu_status() is None)

    async def run(self, doc: DocumentState, kernel: str, priority: int = CLICKED) -> dict:
        """Run `kernel`'s launch on the GPU and in the emulator, on the one worker; the
        outcome (kept on the document's record while it is fresh)."""
        runs = self.server.get_feature(RunService)
        limits, text, revision = self.limits(), doc.text, doc.revision
        lines = runs.launch_lines(doc).get(kernel, [])
        root, files = arg_root(self.server, doc.uri), self.jobs.files
        state = self.state(doc)
        cancel = state.begin(self.job_key(doc, kernel))

        def launch_and_run() -> dict:
            # the launch line's `--arg` files are read here, in the worker, as for any run
            try:
                launch, options = kernel_launch(kernel, lines, limits, files, root,
                                                lambda: cancel.is_set() or self.closing)
            except ValueError as err:
                return {"ok": False, "message": f"cannot run kernel {kernel!r}: {err}"}
            return run_on_gpu(text, launch, options=options)
        try:
            outcome = await self.wait(state, self.jobs.submit(
                self.queue_key(doc), priority, launch_and_run,
                lambda reason: {"ok": False, "message": f"the GPU run did not run: {reason}"},
                cancel), cancel)
        finally:
            state.finished(cancel)
        moment = _difference_moment(doc, kernel, lines, outcome)
        if moment is not None:          # "Debug at this moment": the last write of the word
            outcome = dict(outcome, debugAtMoment=moment.configuration)
        if self.fresh(doc, revision, cancel):
            state.store(kernel, revision, outcome)
        return outcome


def _difference_moment(doc: DocumentState, kernel: str, lines, outcome: dict):
    """The moment the emulator wrote the first word that differs on the GPU, or None."""
    difference = outcome.get("difference") if outcome.get("ok") else None
    path = file_path(doc.uri)
    if not difference or difference.get("line") is None or path is None:
        return None
    first = lines[0] if lines else None
    flags = doc.lines[first.line][first.flags_start:first.end] if first is not None else None
    address = difference["address"]
    return value_moment(path, kernel, flags, address, difference["line"], None,
                        f"the value at 0x{address:x} that differs on the GPU")


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(GpuLenses(server))

    @command(server, RUN_ON_GPU)
    async def run_on_gpu_command(*args):
        return await _run(server, *args)


async def _run(server: WaveLanguageServer, *args):
    doc, kernel, missing = command_kernel(server, args)
    service = server.get_feature(GpuLenses)
    refusal = service.jobs.refusal("run")
    if kernel is None:
        outcome = {"ok": False, "message": missing}
    elif refusal is not None:
        outcome = {"ok": False, "message": refusal}
    else:
        outcome = await service.run(doc, kernel.name)
    same = outcome.get("same", False)
    server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Info if same else types.MessageType.Warning,
        message=f"wave-lsp: {outcome['message']}"))
    return GpuRun.answer(body=outcome)
