"""`wave-lsp.emit [uri, target, compat?]`: what a vendor backend makes of the document.

Returns `{"uri", "target", "text", "map"}` where `text` is the PTX, HIP, Metal or SYCL
translation (`wave-lsp emit`) and `map` lists `[generated line, source line]` pairs (0-based)
for every generated line that comes from an instruction. An editor shows `text` in a read-only
document beside the source ("Show PTX/HIP/Metal/SYCL"), asks again after each edit, and uses
`map` to highlight the generated lines of the instruction under the cursor and to go back from a
generated line to its instruction. `compat` may be "upstream" for upstream's exact text. When
the document does not assemble or the backend cannot translate it, the result has `error` (and
`line` when a source line is at fault) instead of `text`.

Where the vendor's compiler is found (PTX: ptxas, HIP: hipcc; `vendor_compilers.py`), the
result also has `vendor` (each architecture's verdict: `{compiler, arch, accepted}`) and
`messages` (`{compiler, arch, severity, message, line, sourceLine}`, lines 0-based), and `text`
ends with comment lines that say the same, after the translation (so `map` is unchanged).
Where it is not (PTX, HIP), the result has `vendorAbsent` (`{compiler, reason, why, adds,
install, setting}`: `ide.vendor_help`) and `text` ends with comment lines that say why, what
the compiler would add, how to install it and which setting points at it.
"""

from __future__ import annotations

import json

from lsprotocol import types

from ..cancellation import Cancelled
from ..ide.emit import TARGETS, translate
from ..ide.vendor_help import absent_comments
from . import extensions
from .extensions import EmitArgs, Emitted
from .handlers import RETRIES, command
from .protocol import Serialised
from .server import WaveLanguageServer
from .vendor_compilers import absent, emit_report

EMIT = extensions.EMIT.name


def setup(server: WaveLanguageServer) -> None:
    @command(server, EMIT)
    async def emit_command(*args):
        a = EmitArgs.parse(args)
        uri, target, compat = a.uri, a.target, a.compat
        doc = server.text_document(uri)
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
        the event loop keeps answering; an edit meanwhile translates the new text. The
        vendor's verdict (Show PTX/HIP, when its compiler is here) is added afterwards, also
        off the loop."""
        def job(state):
            translation = translate(state, target, compat)
            return translation, Serialised(json.dumps(Emitted.answer(body=translation.result)))

        for _ in range(RETRIES):
            try:
                translation, serialised = await server.documents.run(
                    doc, job, name=EMIT, inline=False, reader=True)
                break
            except Cancelled:
                doc = server.text_document(doc.uri)
                if doc is None:
                    return None
        else:
            return None
        if translation.emitted is None:
            return serialised
        try:
            report = await emit_report(server, doc, translation)
        except Cancelled:       # edited or closed meanwhile: its compiler was stopped
            return serialised
        if not report:
            missing = absent(server, (target,))
            if not missing:
                return serialised
            result = translation.result
            comments = "".join(line + "\n" for line in absent_comments(missing[0]))
            return Emitted.answer(body={**result, "vendorAbsent": missing[0].as_dict(),
                                        "text": result["text"] + comments})
        block = report.pop("block")
        result = translation.result
        return Emitted.answer(body={**result, **report, "text": result["text"]
                              + "".join(line + "\n" for line in block)})
