"""`wave-lsp.encoding [uri]`: the document's encoded words beside its source, as text.

A client opens the returned `text` in a read-only pane beside the source (VS Code's "Show
Encoding", Neovim's `:LspWaveEncoding`). The listing follows the configured compatibility mode.
Returns `{"uri", "text"}`, or None (with a message) when the URI is not an open WAVE document.
"""

from __future__ import annotations

from ..ide.encoding import listing
from . import extensions
from .extensions import Encoding, wire
from .handlers import command, command_document
from .server import WaveLanguageServer

ENCODING = extensions.ENCODING.name


def setup(server: WaveLanguageServer) -> None:
    @command(server, ENCODING)
    async def show_encoding(*args):
        doc = await command_document(server, args, "show the encoding of")
        if doc is None:
            return None
        compat = server.config(doc).compat
        text = await server.documents.run(doc, lambda d: listing(d, compat), name=ENCODING,
                                          reader=True)
        return wire(Encoding(doc.uri, text))
