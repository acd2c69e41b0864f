"""Semantic tokens: `textDocument/semanticTokens/full` (and `/full/delta`) classify every token so
the editor can colour by meaning rather than by regular expressions.

The classification and the encoding are `ide.highlight`'s (the legend is derived from the ISA);
a delta request returns one edit (the span between the common prefix and the common suffix of
the previous and current arrays). A full answer is written as JSON by the job that computes it
(off the event loop for a large document): the array of a 100,000-line file has about two
million integers.
"""

from __future__ import annotations

import itertools

from lsprotocol import types

from ..ide.highlight import TOKEN_MODIFIERS, TOKEN_TYPES, encode_document
from ..ide.state import DocumentState
from .handlers import request
from .protocol import Serialised
from .server import Feature, WaveLanguageServer

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


def _json_integers(data: list[int]) -> str:
    """The JSON of a list of plain integers: its `repr` is the same text (`json.dumps` takes
    half as long again)."""
    return repr(data)


def _full_answer(result_id: str, data: list[int]) -> Serialised:
    """The JSON of a `SemanticTokens` result."""
    return Serialised(f'{{"resultId": "{result_id}", "data": {_json_integers(data)}}}')


class SentTokens(Feature):
    """The last tokens sent for each open document, for the next delta (dropped with the
    document)."""

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(server)
        self.previous: dict[str, tuple[str, list[int]]] = {}
        self.counter = itertools.count(1)

    def compute(self, doc: DocumentState) -> tuple[str, list[int]]:
        data = encode_document(doc.lines, str(self.server.codec.encoding or "utf-16"))
        result_id = str(next(self.counter))
        self.previous[doc.uri] = (result_id, data)
        return result_id, data

    def document_closed(self, uri: str) -> None:
        self.previous.pop(uri, None)


def setup(server: WaveLanguageServer) -> None:
    sent = server.add_feature(SentTokens(server))

    @request(server, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    def full(doc: DocumentState, params: types.SemanticTokensParams) -> Serialised:
        return _full_answer(*sent.compute(doc))

    @request(server, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, LEGEND)
    def full_delta(doc: DocumentState, params: types.SemanticTokensDeltaParams):
        old = sent.previous.get(doc.uri)
        found = sent.compute(doc)
        if old is None or old[0] != params.previous_result_id:
            return _full_answer(*found)
        return types.SemanticTokensDelta(result_id=found[0], edits=delta(old[1], found[1]))
