"""Completion: `textDocument/completion` proposes what may be written at the cursor.

At the start of a statement: mnemonics (with an operand snippet when the client supports
snippets); after `.`: directives; after `@`: predicates; in an operand position: what the
instruction's operand kind at that position accepts (registers of the kernel, predicates,
special registers, labels, scopes); after a mnemonic, `.`: cache hints. Everything comes from
the ISA table.
"""

from __future__ import annotations

from functools import lru_cache

import attrs
from typing import TYPE_CHECKING

from lsprotocol import types

from ..ide.completion import context_at, operand_choices
from ..ide.state import DocumentState
from ..isa import CACHE_HINTS, DIRECTIVES, INSTRUCTIONS, PREDICATE_COUNT, InstructionSpec
from . import kernel_tests, run_view
from .documents import span, to_server_position
from .handlers import request
from ..ide.hover import spec_markdown

if TYPE_CHECKING:
    from .server import WaveLanguageServer

@lru_cache(maxsize=4)
def mnemonic_items(snippets: bool, markdown: bool) -> tuple[types.CompletionItem, ...]:
    items = []
    for spec in INSTRUCTIONS.values():
        doc = spec_markdown(spec) if markdown else spec.description
        item = types.CompletionItem(
            label=spec.mnemonic, kind=types.CompletionItemKind.Keyword, detail=spec.summary,
            documentation=types.MarkupContent(
                kind=types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText,
                value=doc))
        if snippets and spec.operands:
            fields = ", ".join(f"${{{i}:{op.name}}}" for i, op in enumerate(spec.operands, 1))
            item.insert_text = f"{spec.mnemonic} {fields}"
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


def _dotted(label: str, detail: str, kind: types.CompletionItemKind, rng: types.Range,
            insert: str | None = None, snippet: bool = False) -> types.CompletionItem:
    return types.CompletionItem(
        label=label, kind=kind, detail=detail, filter_text=label,
        text_edit=types.TextEdit(range=rng, new_text=insert or label),
        insert_text_format=types.InsertTextFormat.Snippet if snippet else None)


_CHOICE_KINDS = {
    "register": types.CompletionItemKind.Variable, "predicate": types.CompletionItemKind.Variable,
    "special": types.CompletionItemKind.Constant, "label": types.CompletionItemKind.Reference,
    "scope": types.CompletionItemKind.EnumMember,
}


def operand_items(doc: DocumentState, line: int, spec: InstructionSpec, index: int,
                  dotted_range: types.Range) -> list[types.CompletionItem]:
    items = []
    for c in operand_choices(doc, line, spec, index):
        kind = _CHOICE_KINDS[c.kind]
        if c.dotted:
            items.append(_dotted(c.label, c.detail, kind, dotted_range))
        else:
            items.append(types.CompletionItem(label=c.label, kind=kind, detail=c.detail,
                                              documentation=c.documentation,
                                              sort_text=c.sort_text))
    return items


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_COMPLETION,
             types.CompletionOptions(trigger_characters=[".", "@", ",", " "]))
    def completion(params: types.CompletionParams) -> types.CompletionList | None:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return None
        line, col = to_server_position(doc, params.position, server.codec)
        expected = kernel_tests.completion(server, doc, line, col)
        if expected is not None:
            return expected
        flags = run_view.flag_completions(server, doc, line, col)
        if flags is not None:
            return types.CompletionList(is_incomplete=False, items=flags)
        ctx = context_at(doc.lines[line], col)
        word = span(doc, line, ctx.word_start, col, server.codec)
        snippets = bool(server.capability(
            "text_document.completion.completion_item.snippet_support", False))
        formats = server.capability(
            "text_document.completion.completion_item.documentation_format", None) or []
        items: list[types.CompletionItem] = []
        if ctx.kind == "mnemonic":
            typed = doc.lines[line][ctx.word_start:col]
            items = ranked_mnemonics(mnemonic_items(snippets, types.MarkupKind.Markdown
                                                    in formats), typed)
            # the order depends on what is typed: ask again as the word grows
            return types.CompletionList(is_incomplete=bool(typed), items=items)
        elif ctx.kind == "directive":
            for d in DIRECTIVES:
                insert = None
                if snippets and d.args:
                    insert = f".{d.name} " + ", ".join(
                        f"${{{i}:{n}}}" for i, (n, _) in enumerate(d.args, 1))
                items.append(_dotted(f".{d.name}", d.summary, types.CompletionItemKind.Keyword,
                                     word, insert, snippet=insert is not None))
        elif ctx.kind == "predicate":
            items = [types.CompletionItem(label=f"p{i}", kind=types.CompletionItemKind.Variable,
                                          detail="guard predicate")
                     for i in range(PREDICATE_COUNT)]
        elif ctx.kind == "hint":
            items = [_dotted(f".{name}", text, types.CompletionItemKind.Keyword, word)
                     for name, text in CACHE_HINTS.items()]
        elif ctx.kind == "operand" and ctx.spec is not None:
            items = operand_items(doc, line, ctx.spec, ctx.operand_index, word)
        return types.CompletionList(is_incomplete=False, items=items)
