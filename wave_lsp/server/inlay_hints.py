"""Inlay hints: `textDocument/inlayHint` returns small labels drawn inside the text: the values
of the last inline run after each executed line (contributed by the run feature), each its own
hint, short by
design (clients cut long labels; the hover has the whole table). On request
(`inlayHints.offsets`, `inlayHints.encoding`, both off by default) also each instruction's byte
offset in the kernel before it and its encoded words after it (`ide.inlay`).

The answer is written as JSON by the handler (in the document's job: a worker for a large
document), each hint's JSON kept per revision: asking for a whole 100,000-line file gives some
175,000 hints, too many to build and encode as lsprotocol objects on the event loop.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _string
from lsprotocol import types

from ..ide.inlay import Hint, hints
from ..ide.state import DocumentState
from .handlers import request
from .proto import to_client_position, to_server_position
from .protocol import Serialised, converter as converter_of
from .server import WaveLanguageServer


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_INLAY_HINT, default=list)
    def inlay_hints(doc: DocumentState,
                    params: types.InlayHintParams) -> list[types.InlayHint] | Serialised:
        first, _ = to_server_position(doc, params.range.start, server.codec)
        last, _ = to_server_position(doc, params.range.end, server.codec)
        settings = server.settings
        found = hints(doc, first, last, settings.inlay_offsets, settings.inlay_encoding,
                      server.config(doc).compat)
        known = doc.derived(("inlay hint JSON", server.codec.encoding), lambda d: {})
        parts = []
        for h in found:
            text = known.get(h)
            if text is None:
                text = known[h] = _json(doc, h, server.codec)
            parts.append(text)
        converter = converter_of(server)
        parts += [json.dumps(converter.unstructure(hint))
                  for added in server.contributions("inlay_hints", doc, first, last)
                  for hint in added]
        return Serialised("[" + ", ".join(parts) + "]")


def _json(doc, h: Hint, codec) -> str:
    """The JSON of the lsprotocol `InlayHint` for `h` (written directly: this runs for every
    instruction of a file whose hints are all asked for)."""
    position = to_client_position(doc, h.line, h.column, codec)
    head = (f'{{"position": {{"line": {position.line}, "character": {position.character}}}, '
            f'"label": {_string(h.label)}, ')
    if h.kind == "offset":
        return (head + f'"kind": {types.InlayHintKind.Type.value}, '
                f'"tooltip": {_string(h.tooltip)}, "paddingRight": true}}')
    return (head + f'"kind": {types.InlayHintKind.Parameter.value}, '
            f'"tooltip": {_string(h.tooltip)}, "paddingLeft": true}}')
