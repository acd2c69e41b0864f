"""Hover: `textDocument/hover` returns documentation for the element under the cursor.

On a mnemonic: its syntax, operands, semantics, spec section and required capability (all from
the ISA table), then the encoding of this very instruction (words in hex, a table of fields and
values) and its byte offset in the kernel. On registers, special registers, predicates,
directives, scopes, labels and kernels: what they are and what this document says about them
(the text is `ide.hover`'s). Above it, what other features contribute for that line (the
results of the last inline run: `server.Feature.hover`). On a kernel, below its resources, what
the vendors' compilers report for it (`vendor_compilers.py`).
"""

from __future__ import annotations

import asyncio
from lsprotocol import types

from ..ide.hover import hover_markdown, kernel_markdown
from ..ide.locate import TargetKind, target_at
from ..ide.state import DocumentState
from ..ide.vendor_help import absent_markdown
from ..ide.vendor_usage import figures_markdown
from . import vendor_compilers
from .handlers import request
from .proto import markup, span, to_server_position
from .server import WaveLanguageServer


VENDOR_WAIT_S = 10     # a kernel hover waits this long for ptxas / hipcc at most


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_HOVER)
    def hover(doc: DocumentState, params: types.HoverParams) -> types.Hover | None:
        line, col = to_server_position(doc, params.position, server.codec)
        target = target_at(doc, line, col)
        added = server.contributions("hover", doc, line, target)
        if target is None and not added:
            return None
        config = server.config(doc)
        text = hover_markdown(doc, target, config.compat, config.targets) \
            if target is not None else None
        text = "\n\n---\n".join(t for t in (*added, text) if t)
        if not text:
            return None
        markdown = server.client.hover_markdown
        rng = span(doc, line, target.start, target.end, server.codec) \
            if target is not None else None
        if target is not None and target.kind is TargetKind.KERNEL:
            return _with_vendor_figures(server, doc, target.text, added, text, markdown, rng)
        return types.Hover(contents=markup(text, markdown), range=rng)


async def _with_vendor_figures(server: WaveLanguageServer, doc, name: str, added, text: str,
                               markdown: bool, rng) -> types.Hover:
    """A kernel's hover, with what the vendors' compilers report for it (run off the event
    loop; cached by the emitted text); their register counts replace the `.registers`
    estimate in the occupancy rows. After `VENDOR_WAIT_S` the hover is answered without them:
    the compilers go on (until their own time limit, an edit or the document's close), and a
    later hover finds their figures cached or joins their run. A configured target's missing
    compiler is explained: what it would add, how to install it, which setting points at it."""
    work = asyncio.ensure_future(vendor_compilers.figures(server, doc, name))
    work.add_done_callback(_consume)
    done, _ = await asyncio.wait({work}, timeout=VENDOR_WAIT_S)
    if done and work.exception() is None:
        figures = work.result()
        vendor = figures_markdown(figures)
        if figures:
            table = kernel_markdown(doc, name, server.config(doc).targets, figures)
            text = "\n\n---\n".join(t for t in (*added, table) if t)
    elif done:
        raise work.exception()      # Cancelled: the handler computes the hover again
    else:
        vendor = (f"*vendor compilers still running (more than {VENDOR_WAIT_S} s): their figures "
                  "are being computed; hover again for them*")
    missing = absent_markdown(vendor_compilers.absent(server, server.config(doc).targets))
    value = "\n\n".join(t for t in (text, vendor, missing) if t)
    return types.Hover(contents=markup(value, markdown), range=rng)


def _consume(task: asyncio.Future) -> None:
    """A compiler job the hover stopped waiting for may fail (an edit cancels it): seen here."""
    if not task.cancelled():
        task.exception()
