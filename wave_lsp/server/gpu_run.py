"""Running a kernel on a real GPU from the editor: `wave-lsp.runOnGpu [uri, kernel]`.

Only where CuPy finds a CUDA device (`ide.gpu.gpu_status`; never otherwise, so editors without
a GPU see nothing of it) each kernel gets a "▶ Run on GPU" code lens. The command runs the
kernel's launch (its `; wave-lsp run: FLAGS` line, as the portability check reads it) on the GPU
and in the emulator, off the event loop, and reports whether the device memory is the same or
the first word that differs with the store line that wrote it, as a message and as the result.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from ..ide.gpu import gpu_status, run_on_gpu
from ..ide.portability import kernel_launch
from ..ide.state import DocumentState
from . import extensions
from .extensions import GpuRun
from .handlers import command, command_kernel
from .proto import lens
from .run_documents import arg_root
from .runs import RunService
from .server import Feature, WaveLanguageServer

RUN_ON_GPU = extensions.RUN_ON_GPU.name


class GpuLenses(Feature):
    """"▶ Run on GPU" above each kernel, only when a GPU run is possible."""

    leading_commands = (RUN_ON_GPU,)

    def code_lenses(self, doc: DocumentState) -> list[types.CodeLens]:
        if gpu_status() is not None:
            return []
        return [lens(doc, k.line, k.directive.start, k.directive.end, self.server.codec,
                     "▶ Run on GPU", RUN_ON_GPU, doc.uri, k.name) for k in doc.program.kernels]


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(GpuLenses(server))

    @command(server, RUN_ON_GPU)
    async def run_on_gpu_command(*args):
        return await _run(server, *args)


async def _run(server: WaveLanguageServer, *args):
    doc, kernel, missing = command_kernel(server, args)
    runs = server.get_feature(RunService)
    if kernel is None:
        outcome = {"ok": False, "message": missing}
    elif not runs.trusted:
        outcome = {"ok": False, "message": "kernels do not run in an untrusted workspace"}
    else:
        limits, text = runs.limits(), doc.text
        lines = runs.launch_lines(doc).get(kernel.name, [])
        root = arg_root(server, doc.uri)

        def launch_and_run() -> dict:
            # the launch line's `--arg` files are read here, in the worker, as for any run
            try:
                launch, options = kernel_launch(kernel.name, lines, limits,
                                                runs.worker.files, root)
            except ValueError as err:
                return {"ok": False, "message": f"cannot run kernel {kernel.name!r}: {err}"}
            return run_on_gpu(text, launch, options=options)
        outcome = await asyncio.to_thread(launch_and_run)
    same = outcome.get("same", False)
    server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Info if same else types.MessageType.Warning,
        message=f"wave-lsp: {outcome['message']}"))
    return GpuRun.answer(body=outcome)
