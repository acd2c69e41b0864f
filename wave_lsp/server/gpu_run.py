"""Running a kernel on a real GPU from the editor: `wave-lsp.runOnGpu [uri, kernel]`.

Only where CuPy finds a CUDA device (`ide.gpu.gpu_status`; never otherwise, so editors without
a GPU see nothing of it) each kernel gets a "▶ Run on GPU" code lens. The command runs the
kernel's launch (its `; wave-lsp run: FLAGS` line, as the portability check reads it) on the GPU
and in the emulator, off the event loop, and reports whether the device memory is the same or
the first word that differs with the store line that wrote it, as a message and as the result.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.gpu import gpu_status, run_on_gpu
from ..ide.state import DocumentState
from .documents import command_kernel, span
from .handlers import command
from .portability import kernel_launch

if TYPE_CHECKING:
    from .server import WaveLanguageServer

RUN_ON_GPU = "wave-lsp.runOnGpu"


def gpu_lenses(server: "WaveLanguageServer", doc: DocumentState) -> list[types.CodeLens]:
    """"▶ Run on GPU" above each kernel, only when a GPU run is possible."""
    if gpu_status() is not None:
        return []
    return [types.CodeLens(range=span(doc, k.line, k.directive.start, k.directive.end,
                                      server.codec),
                           command=types.Command(title="▶ Run on GPU", command=RUN_ON_GPU,
                                                 arguments=[doc.uri, k.name]))
            for k in doc.program.kernels]


def setup(server: "WaveLanguageServer") -> None:
    @command(server, RUN_ON_GPU)
    async def run_on_gpu_command(*args):
        return await _run(server, *args)


async def _run(server: "WaveLanguageServer", *args):
    doc, kernel, missing = command_kernel(server, args)
    if kernel is None:
        outcome = {"ok": False, "message": missing}
    elif not server.runs.trusted:
        outcome = {"ok": False, "message": "kernels do not run in an untrusted workspace"}
    else:
        limits, text = server.runs.limits(), doc.text

        def launch_and_run() -> dict:
            # the launch line's `--arg` files are read here, in the worker, as for any run
            try:
                launch, options = kernel_launch(server, doc, kernel, limits)
            except ValueError as err:
                return {"ok": False, "message": f"cannot run kernel {kernel.name!r}: {err}"}
            return run_on_gpu(text, launch, options=options)
        outcome = await asyncio.to_thread(launch_and_run)
    same = outcome.get("same", False)
    server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Info if same else types.MessageType.Warning,
        message=f"wave-lsp: {outcome['message']}"))
    return outcome
