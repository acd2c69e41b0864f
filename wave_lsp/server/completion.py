"""Completion: `textDocument/completion` proposes what may be written at the cursor.

At the start of a statement: mnemonics (with an operand snippet when the client supports
snippets); after `.`: directives; after `@`: predicates; in an operand position: what the
instruction's operand kind at that position accepts (registers of the kernel, predicates,
special registers, labels, scopes); after a mnemonic, `.`: cache hints. Everything comes from
the ISA table, as `ide.completion`'s proposals; on a launch line, the launch flags (contributed
by the run feature, `Feature.completions`).
"""

from __future__ import annotations

import inspect
from functools import lru_cache

import attrs
from lsprotocol import types

from ..ide.completion import Choice, mnemonic_choices, mnemonic_rank, proposals
from ..ide.state import DocumentState
from .handlers import request
from .proto import markup, span, to_server_position
from .server import WaveLanguageServer

KINDS = {
    "mnemonic": types.CompletionItemKind.Keyword, "directive": types.CompletionItemKind.Keyword,
    "hint": types.CompletionItemKind.Keyword, "register": types.CompletionItemKind.Variable,
    "predicate": types.CompletionItemKind.Variable, "special": types.CompletionItemKind.Constant,
    "label": types.CompletionItemKind.Reference, "scope": types.CompletionItemKind.EnumMember,
}


@lru_cache(maxsize=4)
def mnemonic_items(snippets: bool, markdown: bool) -> tuple[types.CompletionItem, ...]:
    items = []
    for c in mnemonic_choices(snippets, markdown):
        item = types.CompletionItem(label=c.label, kind=KINDS[c.kind], detail=c.detail,
                                    documentation=markup(c.documentation, markdown))
        if c.snippet:
            item.insert_text = c.snippet
            item.insert_text_format = types.InsertTextFormat.Snippet
        items.append(item)
    return tuple(items)


def ranked_mnemonics(items, typed: str) -> list[types.CompletionItem]:
    """The mnemonics in `ide.completion`'s order after `typed`, written into `sortText`, which
    clients sort by."""
    rank = mnemonic_rank(typed)
    ranked = sorted(items, key=lambda item: rank(item.label))
    width = len(str(len(ranked)))
    return [attrs.evolve(item, sort_text=f"{i:0{width}d}") for i, item in enumerate(ranked)]


def item(c: Choice, word: types.Range) -> types.CompletionItem:
    """A proposal as lsprotocol; a dotted one replaces the `word` typed so far."""
    if c.dotted:
        return types.CompletionItem(
            label=c.label, kind=KINDS[c.kind], detail=c.detail, filter_text=c.label,
            text_edit=types.TextEdit(range=word, new_text=c.snippet or c.label),
            insert_text_format=types.InsertTextFormat.Snippet if c.snippet else None)
    return types.CompletionItem(label=c.label, kind=KINDS[c.kind], detail=c.detail,
                                documentation=c.documentation, sort_text=c.sort_text)


async def _listed(items) -> types.CompletionList:
    return types.CompletionList(is_incomplete=False, items=await items)


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_COMPLETION,
             types.CompletionOptions(trigger_characters=[".", "@", ",", " "]))
    def completion(doc: DocumentState,
                   params: types.CompletionParams) -> types.CompletionList | None:
        line, col = to_server_position(doc, params.position, server.codec)
        for items in server.contributions("completions", doc, line, col):
            if inspect.isawaitable(items):     # computed off the event loop (kernel tests)
                return _listed(items)
            return types.CompletionList(is_incomplete=False, items=items)
        snippets, markdown = server.client.snippets, server.client.completion_markdown
        found = proposals(doc, line, col, snippets=snippets, markdown=markdown)
        if found.kind == "mnemonic":      # lsprotocol items made once, ranked by what is typed
            return types.CompletionList(is_incomplete=found.incomplete, items=ranked_mnemonics(
                mnemonic_items(snippets, markdown), found.typed))
        word = span(doc, line, found.word_start, col, server.codec)
        choices = found.ranked()
        return types.CompletionList(is_incomplete=False, items=[item(c, word) for c in choices])
