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
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from ..emu import Launch, LaunchError
from ..emu.launch_flags import build_launch, parse_launch_flags
from ..isa.backends import targets_widths
from ..ide.state import DocumentState
from .documents import span
from .handlers import command

if TYPE_CHECKING:
    from ..emu.wave_widths import WidthComparison
    from .server import WaveLanguageServer

CHECK = "wave-lsp.checkPortability"
LAUNCH_LINE = re.compile(r";\s*wave-lsp run:\s*(.*)$")
MAX_INSTRUCTIONS = 2_000_000
TIME_LIMIT = 10.0     # seconds per width


def launch_tokens(doc: DocumentState, kernel) -> list[str] | None:
    """The flags of the kernel's launch line: inside the kernel, or in the comment block right
    above `.kernel`; None when it has none."""
    lines = doc.lines
    first = kernel.line
    while first > 0 and lines[first - 1].lstrip().startswith(";"):
        first -= 1
    for number in range(first, kernel.last_line + 1):
        found = LAUNCH_LINE.search(lines[number])
        if found:
            return shlex.split(found.group(1))
    return None


def kernel_launch(doc: DocumentState, kernel) -> Launch:
    """The launch the check runs (raises LaunchFlagError / ValueError on a bad launch line)."""
    tokens = launch_tokens(doc, kernel)
    base = Path(to_fs_path(doc.uri) or ".").parent if doc.uri.startswith("file:") else None
    if tokens is None:
        return Launch(kernel=kernel.name, metadata_first=True, max_instructions=MAX_INSTRUCTIONS,
                      time_limit=TIME_LIMIT)
    args = parse_launch_flags(tokens)
    return build_launch(args, base, kernel=kernel.name, time_limit=args.time_limit or TIME_LIMIT)


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
    uri, name = (list(args) + [None, None])[:2]
    doc = server.text_document(uri) if isinstance(uri, str) else None
    kernel = doc.program.kernel_named(name) if doc is not None and isinstance(name, str) else None
    if kernel is None:
        return _fail(server, f"no kernel {name!r} in {uri!r}")
    widths = targets_widths(server.settings.targets)
    if len(widths) < 2:
        return _fail(server, "the configured targets use only one wave width "
                             f"({', '.join(server.settings.targets) or 'none'}): nothing to compare")
    revision, text = doc.revision, doc.text
    try:
        launch = kernel_launch(doc, kernel)
        from ..emu.wave_widths import compare_widths   # numpy: not at start-up
        comparison = await asyncio.to_thread(compare_widths, text, launch, widths)
    except (LaunchError, ValueError) as err:
        return _fail(server, f"cannot run kernel {name!r}: {err}")
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
