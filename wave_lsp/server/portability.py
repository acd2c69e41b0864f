"""The portability check in the editor: `wave-lsp.checkPortability [uri, kernel]`.

The command runs the kernel's launch (its `; wave-lsp run: FLAGS` line, else the kernel's own
workgroup size on one workgroup) once per wave width the configured targets use
(`isa/backends.py`), off the event loop, and compares the device memory the runs leave. The
result is returned as JSON, summarised in a message, and shown inline: a code lens above each
store line whose memory differs between widths, until the document is edited. Each kernel also
gets a "Check portability" code lens that runs the command.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from lsprotocol import types

from ..emu import Launch, LaunchError, RunOptions
from ..ide.run_limits import RunLimits
from ..isa.backends import targets_widths
from ..ide.state import DocumentState
from .documents import command_kernel, span
from .handlers import command
from .runs import arg_root

if TYPE_CHECKING:
    from ..emu.wave_widths import WidthComparison
    from .server import WaveLanguageServer

CHECK = "wave-lsp.checkPortability"
MAX_INSTRUCTIONS = 2_000_000      # per width
TIME_LIMIT_MS = 10_000            # for all the widths together


def kernel_launch(server: "WaveLanguageServer", doc: DocumentState, kernel,
                  limits: RunLimits, cancel=None) -> tuple[Launch, RunOptions]:
    """The launch the check runs and its options: the kernel's first launch line, parsed and
    confined as inline runs are (its `--arg` files read here, in the worker), with its limits
    capped at the check's. Raises LaunchError on a bad launch line."""
    from ..ide.run_session import editor_launch, editor_options
    lines = server.runs.launch_lines(doc).get(kernel.name, [])
    line = lines[0] if lines else None
    if line is not None and line.problem is not None:
        raise LaunchError(f"launch line {line.line + 1}: {line.problem.message}")
    launch = editor_launch(line, kernel.name, server.runs.worker.files,
                           arg_root(server, doc.uri))
    return (replace(launch, metadata_first=line is None or launch.metadata_first),
            editor_options(line, limits, cancel=cancel))


def results(server: "WaveLanguageServer") -> dict:
    """uri -> {kernel: (revision, WidthComparison)}: the latest checks, kept until an edit."""
    if not hasattr(server, "portability_results"):
        server.portability_results = {}
    return server.portability_results


def portability_lenses(server: "WaveLanguageServer", doc: DocumentState) -> list[types.CodeLens]:
    """"Check portability" above each kernel, and one lens per store line that differs."""
    out = []
    for kernel in doc.program.kernels:
        rng = span(doc, kernel.line, kernel.directive.start, kernel.directive.end, server.codec)
        out.append(types.CodeLens(range=rng, command=types.Command(
            title="Check portability", command=CHECK, arguments=[doc.uri, kernel.name])))
    for _kernel, (revision, comparison) in results(server).get(doc.uri, {}).items():
        if revision != doc.revision:
            continue
        for line in comparison.by_line:
            if line is None or line >= len(doc.lines):
                continue
            rng = span(doc, line, 0, len(doc.lines[line]), server.codec)
            out.append(types.CodeLens(range=rng, command=types.Command(
                title="⚠ " + comparison.line_message(line), command=CHECK,
                arguments=[doc.uri, comparison.kernel])))
    return out


def _summary(comparison: WidthComparison) -> str:
    widths = ", ".join(f"W{w}" for w in comparison.widths)
    if comparison.portable:
        return f"kernel {comparison.kernel}: same device memory at {widths}"
    parts = [f"{len(comparison.differences)} word(s) of device memory differ between {widths}"]
    parts += [f"W{w}: {message}" for w, message in comparison.errors.items()]
    lines = [str(line + 1) for line in comparison.by_line if line is not None]
    if lines:
        parts.append(f"at line(s) {', '.join(lines)}")
    return f"kernel {comparison.kernel}: " + "; ".join(parts)


def setup(server: "WaveLanguageServer") -> None:
    @command(server, CHECK)
    async def check(*args):
        return await _check(server, *args)


async def _check(server: "WaveLanguageServer", *args):
    doc, kernel, missing = command_kernel(server, args)
    if kernel is None:
        return _fail(server, missing)
    widths = targets_widths(server.settings.targets)
    if len(widths) < 2:
        return _fail(server, "the configured targets use only one wave width "
                             f"({', '.join(server.settings.targets) or 'none'}): nothing to compare")
    if not server.runs.trusted:
        return _fail(server, "kernels do not run in an untrusted workspace")
    revision, text = doc.revision, doc.text

    def stale() -> bool:     # an edit, didClose or shutdown stops the check
        return server.runs.closing or server.document(doc.uri) is not doc \
            or doc.revision != revision

    def check_widths():
        from ..emu.wave_widths import compare_widths   # numpy: not at start-up
        limits = RunLimits(MAX_INSTRUCTIONS, TIME_LIMIT_MS // len(widths))
        launch, options = kernel_launch(server, doc, kernel, limits, stale)
        return compare_widths(text, launch, widths, options)
    try:
        comparison = await asyncio.to_thread(check_widths)
    except (LaunchError, ValueError) as err:
        return _fail(server, f"cannot run kernel {kernel.name!r}: {err}")
    results(server).setdefault(doc.uri, {})[kernel.name] = (revision, comparison)
    server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Info if comparison.portable else types.MessageType.Warning,
        message=f"wave-lsp: {_summary(comparison)}"))
    if server.capability("workspace.code_lens.refresh_support", False):
        server.workspace_code_lens_refresh(None)
    return {"uri": doc.uri, **comparison.as_dict()}


def _fail(server: "WaveLanguageServer", message: str):
    server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Warning, message=f"wave-lsp: {message}"))
    return None
