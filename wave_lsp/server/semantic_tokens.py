"""Semantic tokens: `textDocument/semanticTokens/full` (and `/full/delta`) classify every token so
the editor can colour by meaning rather than by regular expressions.

The classification and the encoding are `ide.highlight`'s (the legend is derived from the ISA);
a delta request returns one edit (the span between the common prefix and the common suffix of
the previous and current arrays).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.highlight import TOKEN_MODIFIERS, TOKEN_TYPES, encode_document
from .handlers import request

if TYPE_CHECKING:
    from .server import WaveLanguageServer

LEGEND = types.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)


def delta(old: list[int], new: list[int]) -> list[types.SemanticTokensEdit]:
    """One edit turning `old` into `new` (none when equal)."""
    if old == new:
        return []
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return [types.SemanticTokensEdit(start=start, delete_count=len(old) - start - end,
                                     data=new[start:len(new) - end])]


def setup(server: "WaveLanguageServer") -> None:
    previous: dict[str, tuple[str, list[int]]] = {}
    counter = itertools.count(1)

    def compute(uri: str) -> tuple[str, list[int]] | None:
        doc = server.text_document(uri)
        if doc is None:
            return None
        data = encode_document(doc.lines, str(server.codec.encoding or "utf-16"))
        result_id = str(next(counter))
        for gone in [u for u in previous if server.document(u) is None]:
            del previous[gone]  # closed documents
        previous[uri] = (result_id, data)
        return result_id, data

    @request(server, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    def full(params: types.SemanticTokensParams) -> types.SemanticTokens | None:
        found = compute(params.text_document.uri)
        if found is None:
            return None
        return types.SemanticTokens(result_id=found[0], data=found[1])

    @request(server, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, LEGEND)
    def full_delta(params: types.SemanticTokensDeltaParams):
        uri = params.text_document.uri
        old = previous.get(uri)
        found = compute(uri)
        if found is None:
            return None
        if old is None or old[0] != params.previous_result_id:
            return types.SemanticTokens(result_id=found[0], data=found[1])
        return types.SemanticTokensDelta(result_id=found[0], edits=delta(old[1], found[1]))
