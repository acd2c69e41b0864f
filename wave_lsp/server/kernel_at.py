"""`wave-lsp.kernelAt [uri, line]`: the kernel at a line, so that no client works it out again.

Run, profile, test and debug "the kernel at the cursor" ask the server which kernel's
`.kernel` … `.end` block holds the cursor's 0-based line (the directives' own lines included,
an unclosed kernel up to its last instruction or label: `syntax.Program.kernel_at`). The answer
is `{kernel, line, endLine}`, or null between kernels, for a document that is not open WAVE
text, and for arguments that are not a URI and a non-negative line.
"""

from __future__ import annotations

from .extensions import KERNEL_AT, KernelAtArgs, KernelPlace, wire
from .handlers import command
from .server import WaveLanguageServer


def setup(server: WaveLanguageServer) -> None:
    @command(server, KERNEL_AT.name)
    def kernel_at(*args):
        request = KernelAtArgs.parse(args)
        if request.problem() is not None:
            server.log(f"wave-lsp: {KERNEL_AT.name}: {request.problem()}")
            return None
        doc = server.text_document(request.uri)
        kernel = doc.program.kernel_at(request.line) if doc is not None else None
        if kernel is None:
            return None
        return wire(KernelPlace(kernel.name, kernel.line, kernel.last_line))
