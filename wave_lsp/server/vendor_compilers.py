"""The vendors' compilers in the editor: the resource hover on a kernel and
`wave-lsp.kernelResources` add what ptxas / hipcc report for it per target architecture, and
`wave-lsp.emit` (Show PTX/HIP) adds their verdict and messages, each mapped to its source line.
Compilers run off the event loop, as reader jobs of the document (`ide.vendor_usage`); their
results are cached by text, so only an edit that changes the emitted code runs them again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ide.vendor_usage import (KernelFigures, VendorTools, compiler_messages, kernel_figures,
                                messages_block)

if TYPE_CHECKING:
    from ..asm.backends import Emitted
    from ..ide.state import DocumentState
    from .server import WaveLanguageServer


def tools(server: "WaveLanguageServer") -> VendorTools:
    """The compilers the settings name, else those found (`backends.ptxas`, `backends.hipcc`)."""
    return VendorTools.find(server.settings.backend_tools)


async def figures(server: "WaveLanguageServer", doc: "DocumentState",
                  name: str) -> list[KernelFigures]:
    """What the vendor compilers report for kernel `name` (empty when none is found)."""
    found = tools(server)
    targets = server.settings.targets
    if not any(found.compiler(t) for t in targets):
        return []
    return await server.documents.run(
        doc, lambda d: kernel_figures(d.document, name, found, targets), name="vendor figures",
        inline=False, reader=True)


async def emit_report(server: "WaveLanguageServer", doc: "DocumentState",
                      emitted: "Emitted") -> dict:
    """`{"vendor": [...verdicts], "messages": [...], "block": [comment lines]}` for Show
    PTX/HIP; empty when the target has no vendor compiler here."""
    found = tools(server)
    if not found.compiler(emitted.target):
        return {}
    verdicts, messages = await server.documents.run(
        doc, lambda _d: compiler_messages(emitted, found), name="vendor check", inline=False,
        reader=True)
    return {"vendor": verdicts, "messages": [m.as_dict() for m in messages],
            "block": messages_block(emitted.target, verdicts, messages)}
