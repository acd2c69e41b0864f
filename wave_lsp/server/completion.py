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

from ..ide.completion import (Choice, context_at, directive_choices, hint_choices,
                              mnemonic_choices, operand_choices, predicate_choices)
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
    """The mnemonics in the order to offer them after `typed`: those that start with it first
    (alphabetically: `wave_reduce_add` … before `wave_any`), then those that
    contain it, then the rest (the client's own fuzzy filter decides what it keeps); the
    order is written into `sortText`, which clients sort by."""
    typed = typed.lower()

    def rank(item: types.CompletionItem) -> tuple:
        label = item.label
        group = 0 if label.startswith(typed) else 1 if typed in label else 2
        return group, label
    ranked = sorted(items, key=rank)
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
        ctx = context_at(doc.lines[line], col)
        word = span(doc, line, ctx.word_start, col, server.codec)
        snippets = server.client.snippets
        if ctx.kind == "mnemonic":
            typed = doc.lines[line][ctx.word_start:col]
            items = ranked_mnemonics(mnemonic_items(snippets, server.client.completion_markdown),
                                     typed)
            # the order depends on what is typed: ask again as the word grows
            return types.CompletionList(is_incomplete=bool(typed), items=items)
        choices: list[Choice] = []
        if ctx.kind == "directive":
            choices = directive_choices(snippets)
        elif ctx.kind == "predicate":
            choices = predicate_choices()
        elif ctx.kind == "hint":
            choices = hint_choices()
        elif ctx.kind == "operand" and ctx.spec is not None:
            choices = operand_choices(doc, line, ctx.spec, ctx.operand_index)
        return types.CompletionList(is_incomplete=False, items=[item(c, word) for c in choices])
