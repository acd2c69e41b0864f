"""The vendors' compilers in the editor: the resource hover on a kernel and
`wave-lsp.kernelResources` add what ptxas / hipcc report for it per target architecture, and
`wave-lsp.emit` (Show PTX/HIP) adds their verdict and messages, each mapped to its source line.
Compilers run off the event loop, as external jobs of the document (`ide.vendor_usage`,
`ide.emit`, in the host's pool for jobs that wait on another program, never in the reader that
answers the other documents' requests): at most two compiler processes at once
(`asm.compiler_runs`), each stopped when the document is edited or closed, when the server shuts
down, and after `backends.timeoutSeconds` (30 s: the figures then say "ptxas took longer than
30 s"). Their results are cached by text, so only an edit that changes the emitted code runs
them again.
`rejection_check` is the job behind P824 (`vendor_diagnostics.py`); `absent` says
which configured compiler does not run here, and why (the hover and Show PTX/HIP explain it).
"""

from __future__ import annotations

from ..ide.emit import Translation, vendor_report
from ..ide.state import DocumentState
from ..ide.vendor_diagnostics import CODE as REJECTION_CODE, checked_targets
from ..ide.vendor_diagnostics import rejections as find_rejections
from ..ide.vendor_help import (NOT_A_PROGRAM, NOT_FOUND, OFF, UNTRUSTED, Absent,
                               chosen_by_environment)
from ..ide.vendor_usage import VENDOR_TARGETS, KernelFigures, VendorTools, kernel_figures
from .server import WaveLanguageServer
from .settings import BACKEND_TOOLS

_SETTING = {target: key for key, target in BACKEND_TOOLS.items()}


def tools(server: WaveLanguageServer) -> VendorTools:
    """The compilers the settings name, else those found (`backends.ptxas`, `backends.hipcc`).
    In an untrusted workspace no program a setting names ever runs (the client's answer may
    hold the workspace's own `.vscode/settings.json`): only PATH's and the wheel's, and a
    setting's `false` still turns one off."""
    configured = server.settings.backend_tools
    if not server.documents.jobs.trusted:     # the one trust gate (ide.jobs)
        named = sorted(k for k, v in configured.items() if v is not False)
        if named and not getattr(server, "_untrusted_tools_said", False):
            server._untrusted_tools_said = True
            server.log("an untrusted workspace runs no vendor compiler a setting names ("
                       + ", ".join(f"backends.{_SETTING[t]}" for t in named)
                       + "); the one on PATH or in the nvidia wheel is used")
        configured = {k: v for k, v in configured.items() if v is False}
    return VendorTools.find(configured, server.settings.vendor_timeout_s)


async def figures(server: WaveLanguageServer, doc: DocumentState,
                  name: str) -> list[KernelFigures]:
    """What the vendor compilers report for kernel `name` (empty when none is found)."""
    found = tools(server)
    targets = server.config(doc).targets
    if not any(found.compiler(t) for t in targets):
        return []
    return await server.documents.run(
        doc, lambda d: kernel_figures(d.document, name, found, targets), name="vendor figures",
        external=True)


async def emit_report(server: WaveLanguageServer, doc: DocumentState,
                      translation: Translation) -> dict:
    """`ide.emit.vendor_report` of a translation, off the event loop; empty when the target
    has no vendor compiler here."""
    found = tools(server)
    emitted = translation.emitted
    if emitted is None or not found.compiler(emitted.target):
        return {}
    return await server.documents.run(
        doc, lambda _d: vendor_report(emitted, found), name="vendor check", external=True)


def rejection_check(server: WaveLanguageServer):
    """The job that finds the compilers' errors on a document's translations
    (`ide.vendor_diagnostics.rejections`, P824) under the current settings, to run off the
    event loop on the document's state; None when no configured target has its compiler, or
    when the settings disable P824 (its findings would all be dropped: no compiler runs for
    them, each hipcc run costs about half a second of CPU)."""
    config = server.settings.analysis
    if config is not None and REJECTION_CODE in config.disabled:
        return None
    found = tools(server)
    targets = server.settings.targets
    if not checked_targets(found, targets):
        return None
    return lambda state: find_rejections(state, found, targets, config)


def absent(server: WaveLanguageServer, targets: tuple[str, ...] | None = None) -> list[Absent]:
    """The vendor targets (PTX, HIP) of `targets` (the configured ones by default) whose
    compiler does not run here, and why (`ide.vendor_help` says what it would add and how to
    install it)."""
    targets = server.settings.targets if targets is None else targets
    found = tools(server)
    trusted = server.documents.jobs.trusted
    out = []
    for target in VENDOR_TARGETS:
        if target not in targets or found.compiler(target):
            continue
        setting = server.settings.backend_tools.get(target)
        if setting is False:
            out.append(Absent(target, OFF))
        elif isinstance(setting, str):
            out.append(Absent(target, NOT_A_PROGRAM, setting) if trusted
                       else Absent(target, UNTRUSTED))
        elif (chosen := chosen_by_environment(target)) is not None:
            out.append(chosen)      # the user's environment, not the workspace's: as PATH
        else:
            out.append(Absent(target, NOT_FOUND))
    return out
