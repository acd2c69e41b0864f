"""`wave-lsp.emit [uri, target, compat?]`: what a vendor backend makes of the document.

Returns `{"uri", "target", "text", "map"}` where `text` is the PTX, HIP, Metal or SYCL
translation (`wave-lsp emit`) and `map` lists `[generated line, source line]` pairs (0-based)
for every generated line that comes from an instruction. An editor shows `text` in a read-only
document beside the source ("Show PTX/HIP/Metal/SYCL"), asks again after each edit, and uses
`map` to highlight the generated lines of the instruction under the cursor and to go back from a
generated line to its instruction. `compat` may be "upstream" for upstream's exact text. When
the document does not assemble or the backend cannot translate it, the result has `error` (and
`line` when a source line is at fault) instead of `text`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lsprotocol import types

from ..asm.backends import TARGETS, EmitError, emit
from ..cancellation import Cancelled
from .handlers import RETRIES, command
from .server import Serialised

if TYPE_CHECKING:
    from .server import WaveLanguageServer

EMIT = "wave-lsp.emit"


def emit_document(doc, target: str, compat: bool) -> dict:
    """The command's result for an open document."""
    from ..asm import AssemblyError
    base = {"uri": doc.uri, "target": target, "compat": "upstream" if compat else "none"}
    try:
        result = emit(doc.document, target, compat=compat)
    except AssemblyError as err:
        return {**base, "error": f"line {err.line + 1}: {err.message}", "line": err.line}
    except EmitError as err:
        return {**base, "error": str(err)}
    return {**base, "text": result.text, "map": result.map()}


def setup(server: "WaveLanguageServer") -> None:
    @command(server, EMIT)
    async def emit_command(*args):
        uri, target, compat = (list(args) + [None, None, None])[:3]
        doc = server.text_document(uri) if isinstance(uri, str) else None
        problem = None
        if doc is None:
            problem = f"cannot translate {uri!r}: not an open WAVE document"
        elif target not in TARGETS:
            problem = f"unknown target {target!r} (use {', '.join(TARGETS)})"
        elif compat not in (None, "none", "upstream"):
            problem = f"unknown compatibility mode {compat!r} (use 'upstream')"
        if problem is not None:
            server.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"wave-lsp: {problem}"))
            return None
        return await _emit_off_the_loop(doc, target, compat == "upstream")

    async def _emit_off_the_loop(doc, target: str, compat: bool):
        """Translating a large kernel takes seconds: a reader job in the host's worker, so
        the event loop keeps answering; an edit meanwhile translates the new text."""
        for _ in range(RETRIES):
            try:
                return await server.documents.run(
                    doc, lambda state: Serialised(json.dumps(emit_document(state, target,
                                                                           compat))),
                    name=EMIT, inline=False, reader=True)
            except Cancelled:
                doc = server.text_document(doc.uri)
                if doc is None:
                    return None
        return None
