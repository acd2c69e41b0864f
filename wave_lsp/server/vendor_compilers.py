"""The vendors' compilers in the editor: the resource hover on a kernel and
`wave-lsp.kernelResources` add what ptxas / hipcc report for it per target architecture, and
`wave-lsp.emit` (Show PTX/HIP) adds their verdict and messages, each mapped to its source line.
Compilers run off the event loop, as reader jobs of the document (`ide.vendor_usage`,
`ide.emit`); their results are cached by text, so only an edit that changes the emitted code runs
them again.
"""

from __future__ import annotations

from ..ide.emit import Translation, vendor_report
from ..ide.state import DocumentState
from ..ide.vendor_usage import KernelFigures, VendorTools, kernel_figures
from .server import WaveLanguageServer


def tools(server: WaveLanguageServer) -> VendorTools:
    """The compilers the settings name, else those found (`backends.ptxas`, `backends.hipcc`)."""
    return VendorTools.find(server.settings.backend_tools)


async def figures(server: WaveLanguageServer, doc: DocumentState,
                  name: str) -> list[KernelFigures]:
    """What the vendor compilers report for kernel `name` (empty when none is found)."""
    found = tools(server)
    targets = server.settings.targets
    if not any(found.compiler(t) for t in targets):
        return []
    return await server.documents.run(
        doc, lambda d: kernel_figures(d.document, name, found, targets), name="vendor figures",
        inline=False, reader=True)


async def emit_report(server: WaveLanguageServer, doc: DocumentState,
                      translation: Translation) -> dict:
    """`ide.emit.vendor_report` of a translation, off the event loop; empty when the target
    has no vendor compiler here."""
    found = tools(server)
    emitted = translation.emitted
    if emitted is None or not found.compiler(emitted.target):
        return {}
    return await server.documents.run(
        doc, lambda _d: vendor_report(emitted, found), name="vendor check", inline=False,
        reader=True)
