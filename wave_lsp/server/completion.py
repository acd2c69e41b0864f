"""Completion: `textDocument/completion` proposes what may be written at the cursor.

At the start of a statement: mnemonics (with an operand snippet when the client supports
snippets); after `.`: directives; after `@`: predicates; in an operand position: what the
instruction's operand kind at that position accepts (registers of the kernel, predicates,
special registers, labels, scopes); after a mnemonic, `.`: cache hints. Everything comes from
the ISA table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from lsprotocol import types

from ..isa import (CACHE_HINTS, DIRECTIVES, INSTRUCTIONS, MAX_REGISTER, PREDICATE_COUNT, SCOPES,
                   SPECIAL_REGISTERS, InstructionSpec, OperandKind)
from ..syntax.document import Document
from .documents import span, to_server_position
from .handlers import request
from ..ide.hover import spec_markdown

if TYPE_CHECKING:
    from .server import WaveLanguageServer

_LABEL = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_]*:")
_GUARD = re.compile(r"\s*@\s*!?\s*[A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z0-9_.%!]*$")


@dataclass(frozen=True)
class Context:
    """Where the cursor is: what may go there and the word typed so far."""

    kind: str                     # mnemonic, directive, predicate, operand, hint, none
    word_start: int
    spec: InstructionSpec | None = None
    operand_index: int = 0


def context_at(line_text: str, col: int) -> Context:
    """Classify the cursor position from the text before it."""
    prefix = line_text[:col]
    for marker in (";", "#"):
        if marker in prefix:
            return Context("none", col)
    word_start = col - len(_WORD.search(prefix).group(0))
    rest_start = 0
    if m := _LABEL.match(prefix):
        rest_start = m.end()
    if m := _GUARD.match(prefix, rest_start):
        if m.end() == col:
            return Context("predicate", col - len(re.search(r"[A-Za-z0-9_]*$", prefix).group(0)))
        rest_start = m.end()
    rest = prefix[rest_start:]
    stripped = rest.lstrip()
    if not stripped or re.fullmatch(r"[A-Za-z0-9_.]*", stripped):
        if stripped.startswith("."):
            return Context("directive", word_start)
        return Context("mnemonic", word_start)
    head, _, operands = stripped.partition(" ")
    if head.startswith("."):
        return Context("none", col)
    spec = INSTRUCTIONS.get(head.split(".")[0])
    if spec is None:
        return Context("none", col)
    written = operands.lstrip()
    if written.startswith(".") and "," not in written and " " not in written.strip() \
            and not (spec.operands and spec.operands[0].kind is OperandKind.SCOPE):
        return Context("hint", word_start, spec)
    if re.match(r"\.[A-Za-z]+\s", written):
        written = written.split(None, 1)[1] if len(written.split(None, 1)) > 1 else ""
    return Context("operand", word_start, spec, written.count(","))


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


def _dotted(label: str, detail: str, kind: types.CompletionItemKind, rng: types.Range,
            insert: str | None = None, snippet: bool = False) -> types.CompletionItem:
    return types.CompletionItem(
        label=label, kind=kind, detail=detail, filter_text=label,
        text_edit=types.TextEdit(range=rng, new_text=insert or label),
        insert_text_format=types.InsertTextFormat.Snippet if snippet else None)


def operand_items(doc: Document, line: int, spec: InstructionSpec, index: int,
                  dotted_range: types.Range) -> list[types.CompletionItem]:
    if index >= len(spec.operands):
        return []
    slot = spec.operands[index]
    items: list[types.CompletionItem] = []
    if slot.kind is OperandKind.REGISTER:
        kernel = doc.program.kernel_at(line)
        count = min(kernel.register_count if kernel else 32, MAX_REGISTER + 1)
        items += [types.CompletionItem(label=f"r{i}", kind=types.CompletionItemKind.Variable,
                                       detail=f"{slot.name}: register", sort_text=f"{i:03d}")
                  for i in range(count)]
    if slot.kind is OperandKind.PREDICATE:
        items += [types.CompletionItem(label=f"p{i}", kind=types.CompletionItemKind.Variable,
                                       detail=f"{slot.name}: predicate")
                  for i in range(PREDICATE_COUNT)]
    if slot.kind is OperandKind.SPECIAL or slot.also_special:
        items += [types.CompletionItem(label=sr.name, kind=types.CompletionItemKind.Constant,
                                       detail=sr.meaning, documentation=sr.value_range)
                  for sr in SPECIAL_REGISTERS]
    if slot.kind is OperandKind.LABEL:
        items += [types.CompletionItem(label=name, kind=types.CompletionItemKind.Reference,
                                       detail=f"label, line {defs[0][0] + 1}")
                  for name, defs in doc.program.labels.items()]
    if slot.kind is OperandKind.SCOPE:
        items += [_dotted(f".{s.name}", s.meaning, types.CompletionItemKind.EnumMember,
                          dotted_range) for s in SCOPES]
    return items


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_COMPLETION,
             types.CompletionOptions(trigger_characters=[".", "@", ",", " "]))
    def completion(params: types.CompletionParams) -> types.CompletionList | None:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return None
        line, col = to_server_position(doc, params.position, server.codec)
        ctx = context_at(doc.lines[line], col)
        word = span(doc, line, ctx.word_start, col, server.codec)
        snippets = bool(server.capability(
            "text_document.completion.completion_item.snippet_support", False))
        formats = server.capability(
            "text_document.completion.completion_item.documentation_format", None) or []
        items: list[types.CompletionItem] = []
        if ctx.kind == "mnemonic":
            items = list(mnemonic_items(snippets, types.MarkupKind.Markdown in formats))
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
