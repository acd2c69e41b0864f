"""Hover: `textDocument/hover` returns documentation for the element under the cursor.

On a mnemonic: its syntax, operands, semantics, spec section and required capability (all from
the ISA table), then the encoding of this very instruction (words in hex, a table of fields and
values) and its byte offset in the kernel. On registers, special registers, predicates,
directives, scopes, labels and kernels: what they are and what this document says about them.
Above it, what other features contribute for that line (the results of the last inline run,
the line's profile counters: `server.Feature.hover`). On a kernel, below its resources, what
the vendors' compilers report for it (`vendor_compilers.py`). The whole answer is composed by
`ide.hover_answer`; this module converts it and runs the vendors' compilers.
"""

from __future__ import annotations

import asyncio
from functools import partial

from lsprotocol import types

from ..ide.hover_answer import HoverAnswer, hover_at, with_vendor
from ..ide.state import DocumentState
from . import vendor_compilers
from .handlers import request
from .proto import markup, span, to_server_position
from .server import WaveLanguageServer


VENDOR_WAIT_S = 10     # a kernel hover waits this long for ptxas / hipcc at most


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_HOVER)
    def hover(doc: DocumentState, params: types.HoverParams) -> types.Hover | None:
        line, col = to_server_position(doc, params.position, server.codec)
        config = server.config(doc)
        # each feature's part, isolated from the others' failures (`server.contribution`)
        parts = [partial(server.contribution, feature, "hover", doc)
                 for feature in server.features]
        answer = hover_at(doc, line, col, config.compat, config.targets, parts)
        if answer is None:
            return None
        if answer.kernel is not None:
            return _with_vendor_figures(server, doc, answer)
        return _converted(server, doc, answer)


def _converted(server: WaveLanguageServer, doc: DocumentState,
               answer: HoverAnswer) -> types.Hover:
    rng = span(doc, *answer.range, server.codec) if answer.range is not None else None
    return types.Hover(contents=markup(answer.markdown, server.client.hover_markdown), range=rng)


async def _with_vendor_figures(server: WaveLanguageServer, doc: DocumentState,
                               answer: HoverAnswer) -> types.Hover:
    """A kernel's hover, with what the vendors' compilers report for it (run off the event
    loop; cached by the emitted text). After `VENDOR_WAIT_S` the hover is answered without
    them: the compilers go on (until their own time limit, an edit or the document's close),
    and a later hover finds their figures cached or joins their run. A configured target's
    missing compiler is explained (`ide.hover_answer.with_vendor`)."""
    work = asyncio.ensure_future(vendor_compilers.figures(server, doc, answer.kernel))
    work.add_done_callback(_consume)
    done, _ = await asyncio.wait({work}, timeout=VENDOR_WAIT_S)
    if done and work.exception() is not None:
        raise work.exception()      # Cancelled: the handler computes the hover again
    targets = server.config(doc).targets
    figures = work.result() if done else None
    answer = with_vendor(answer, doc, targets, figures, VENDOR_WAIT_S,
                         vendor_compilers.absent(server, targets))
    return _converted(server, doc, answer)


def _consume(task: asyncio.Future) -> None:
    """A compiler job the hover stopped waiting for may fail (an edit cancels it): seen here."""
    if not task.cancelled():
        task.exception()
