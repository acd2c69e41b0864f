"""Semantic highlighting: every token of a line classified by meaning (a mnemonic is a `keyword`
when its instruction class is control flow or synchronisation and a `function` otherwise, with
one modifier per instruction class; registers, predicates, labels, numbers...), and a document's
tokens in the integer encoding of the Language Server Protocol (relative positions, in the
client's position encoding). Lines are encoded once per text and encoding.
"""

from __future__ import annotations

import itertools

from ..cancellation import checkpoint
from ..isa import INSTRUCTIONS, InstructionClass
from ..syntax.ast import Directive, Instruction, Label, OperandSyntax
from ..syntax.memo import line_memo
from ..syntax.parser import parse_line
from .locate import OPERAND_KINDS, TargetKind, operand_kind

TOKEN_TYPES = ["keyword", "function", "variable", "parameter", "enumMember", "macro", "label",
               "namespace", "number", "comment", "modifier", "operator"]
_T = {name: i for i, name in enumerate(TOKEN_TYPES)}


def _camel(text: str) -> str:
    first, *rest = text.split()
    return first + "".join(w.capitalize() for w in rest)


CLASS_MODIFIERS = {c: _camel(c.value) for c in InstructionClass}
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary", "deprecated",
                   *CLASS_MODIFIERS.values()]
_M = {name: 1 << i for i, name in enumerate(TOKEN_MODIFIERS)}
KEYWORD_CLASSES = (InstructionClass.CONTROL, InstructionClass.SYNC)

_OPERAND_TOKENS = {
    TargetKind.REGISTER: (_T["variable"], 0),
    TargetKind.PREDICATE: (_T["parameter"], 0),
    TargetKind.SPECIAL: (_T["variable"], _M["readonly"] | _M["defaultLibrary"]),
    TargetKind.SCOPE: (_T["enumMember"], 0),
    TargetKind.NUMBER: (_T["number"], 0),
    TargetKind.LABEL_REFERENCE: (_T["label"], 0),
}

# the operands whose written form alone decides their token (most of them: registers, numbers)
_FORM_TOKENS = {syntax: _OPERAND_TOKENS[kind] for syntax, kind in OPERAND_KINDS.items()}


# the token of each known mnemonic: (type, modifiers)
_MNEMONIC_TOKENS = {
    name: (_T["keyword"] if spec.iclass in KEYWORD_CLASSES else _T["function"],
           _M[CLASS_MODIFIERS[spec.iclass]]) for name, spec in INSTRUCTIONS.items()}
_UNKNOWN_MNEMONIC = (_T["function"], _M["deprecated"])
_LABEL, _MACRO, _NAMESPACE = _T["label"], _T["macro"], _T["namespace"]
_NUMBER, _OPERATOR, _PARAMETER = _T["number"], _T["operator"], _T["parameter"]
_MODIFIER, _COMMENT, _DECLARATION = _T["modifier"], _T["comment"], _M["declaration"]


def line_tokens(text: str) -> list[tuple[int, int, int, int]]:
    """(start, end, type, modifiers) of every token of one line, in order (code points)."""
    syntax = parse_line(text)
    out: list[tuple[int, int, int, int]] = []
    for stmt in syntax.statements:
        if isinstance(stmt, Instruction):
            g = stmt.guard
            if g is not None:
                out.append((g.start, g.register.start, _OPERATOR, 0))
                out.append((g.register.start, g.register.end, _PARAMETER, 0))
            mnemonic = stmt.mnemonic
            out.append((mnemonic.start, stmt.head_end,
                        *_MNEMONIC_TOKENS.get(mnemonic.text, _UNKNOWN_MNEMONIC)))
            if stmt.hint is not None:
                out.append((stmt.hint.start, stmt.hint.end, _MODIFIER, 0))
            for i, op in enumerate(stmt.operands):
                token = _FORM_TOKENS.get(op.syntax) or \
                    _OPERAND_TOKENS.get(operand_kind(stmt, i, op))
                if token is not None:
                    out.append((op.start, op.end, *token))
        elif isinstance(stmt, Label):
            out.append((stmt.name.start, stmt.name.end, _LABEL, _DECLARATION))
        else:
            assert isinstance(stmt, Directive)
            out.append((stmt.start, stmt.name.end, _MACRO, 0))
            for i, arg in enumerate(stmt.args):
                if stmt.name.text == "kernel" and i == 0:
                    out.append((arg.start, arg.end, _NAMESPACE, _DECLARATION))
                elif arg.syntax in (OperandSyntax.INTEGER, OperandSyntax.FLOAT):
                    out.append((arg.start, arg.end, _NUMBER, 0))
    if syntax.comment is not None:
        out.append((syntax.comment.start, syntax.comment.end, _COMMENT, 0))
    out.sort()
    return out


def _units(text: str, encoding: str) -> list[int]:
    """Client column of every code-point column of `text` (one more entry than characters)."""
    cols = [0]
    for ch in text:
        o = ord(ch)
        if encoding == "utf-8":
            step = 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
        elif encoding == "utf-32":
            step = 1
        else:
            step = 2 if o > 0xFFFF else 1
        cols.append(cols[-1] + step)
    return cols


@line_memo
def encoded_line(text: str, encoding: str) -> tuple[int, ...]:
    """The line's tokens as LSP integers; the first token's deltaLine (index 0) is a placeholder
    and its deltaStart is absolute."""
    tokens = line_tokens(text)
    if not tokens:
        return ()
    cols = None if text.isascii() else _units(text, encoding)
    data: list[int] = []
    prev = 0
    for start, end, kind, mods in tokens:
        if cols is not None:
            start, end = cols[start], cols[end]
        data += (0, start - prev, end - start, kind, mods)
        prev = start
    return tuple(data)


def encode_document(lines: list[str], encoding: str) -> list[int]:
    data: list[int] = []
    prev_line = 0
    for number, text in enumerate(lines):
        if not number & 1023:
            checkpoint()
        chunk = encoded_line(text, encoding)
        if chunk:
            data.append(number - prev_line)
            data.extend(itertools.islice(chunk, 1, None))
            prev_line = number
    return data
