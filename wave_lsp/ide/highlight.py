"""Semantic highlighting: every token of a line classified by meaning (a mnemonic is a `keyword`
when its instruction class is control flow or synchronisation and a `function` otherwise, with
one modifier per instruction class; registers, predicates, labels, numbers...), and a document's
tokens in the integer encoding of the Language Server Protocol (relative positions, in the
client's position encoding). Each line's tokens are written straight into those integers once
per text, in code points, which are the client's columns on an ASCII line in every encoding;
only other lines are converted, once per text and encoding.
"""

from __future__ import annotations

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
_NUMBERS = (OperandSyntax.INTEGER, OperandSyntax.FLOAT)


def line_tokens(text: str) -> list[tuple[int, int, int, int]]:
    """(start, end, type, modifiers) of every token of one line, in order (code points)."""
    chunk = line_chunk(text)
    out = []
    start = 0
    for i in range(0, len(chunk), 5):
        start += chunk[i]
        out.append((start, start + chunk[i + 1], chunk[i + 2], chunk[i + 3]))
    return out


def _classified(text: str) -> list[tuple[int, int, int, int]]:
    """The line's tokens as (start, end, type, modifiers), in the order of its statements."""
    syntax = parse_line(text)
    out: list[tuple[int, int, int, int]] = []
    add = out.append
    for stmt in syntax.statements:
        if type(stmt) is Instruction:
            g = stmt.guard
            if g is not None:
                add((g.start, g.register.start, _OPERATOR, 0))
                add((g.register.start, g.register.end, _PARAMETER, 0))
            mnemonic = stmt.mnemonic
            suffixes = stmt.suffixes
            kind, mods = _MNEMONIC_TOKENS.get(mnemonic.text, _UNKNOWN_MNEMONIC)
            add((mnemonic.start, suffixes[-1].end if suffixes else mnemonic.end, kind, mods))
            if stmt.hint is not None:
                add((stmt.hint.start, stmt.hint.end, _MODIFIER, 0))
            for i, op in enumerate(stmt.operands):
                token = _FORM_TOKENS.get(op.syntax) or \
                    _OPERAND_TOKENS.get(operand_kind(stmt, i, op))
                if token is not None:
                    add((op.start, op.end, token[0], token[1]))
        elif type(stmt) is Label:
            add((stmt.name.start, stmt.name.end, _LABEL, _DECLARATION))
        else:
            assert isinstance(stmt, Directive)
            add((stmt.start, stmt.name.end, _MACRO, 0))
            kernel = stmt.name.text == "kernel"
            for i, arg in enumerate(stmt.args):
                if kernel and i == 0:
                    add((arg.start, arg.end, _NAMESPACE, _DECLARATION))
                elif arg.syntax in _NUMBERS:
                    add((arg.start, arg.end, _NUMBER, 0))
    comment = syntax.comment
    if comment is not None:
        add((comment.start, comment.end, _COMMENT, 0))
    return out


def _relative(tokens: list[tuple[int, int, int, int]], cols: list[int] | None
              ) -> tuple[int, ...]:
    """Tokens (in order) as the LSP integers that follow a line's deltaLine: deltaStart
    (absolute for the first), length, type, modifiers, then 0 (the next token's deltaLine) and
    so on; `cols` maps code points to client columns (None: they are equal)."""
    data: list[int] = []
    prev = 0
    for start, end, kind, mods in tokens:
        if cols is not None:
            start, end = cols[start], cols[end]
        data += (0, start - prev, end - start, kind, mods)
        prev = start
    return tuple(data[1:])


@line_memo
def line_chunk(text: str) -> tuple[int, ...]:
    """The line's tokens in code points as `_relative` integers (empty: no token)."""
    tokens = _classified(text)
    data: list[int] = []
    prev, last = 0, (-1,)
    for token in tokens:
        if token < last:        # statements' tokens come in order; anything else is sorted
            tokens.sort()
            return _relative(tokens, None)
        start = token[0]
        data += (0, start - prev, token[1] - start, token[2], token[3])
        prev, last = start, token
    return tuple(data[1:])


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
def _client_chunk(text: str, encoding: str) -> tuple[int, ...]:
    """`line_chunk` of a line that is not ASCII, in the client's columns."""
    return _relative(line_tokens(text), _units(text, encoding))


def encode_document(lines: list[str], encoding: str) -> list[int]:
    """The document's tokens as the LSP integer array (each line's chunk is memoised by its
    text; an ASCII line's columns are the same in every encoding)."""
    data: list[int] = []
    append, extend = data.append, data.extend
    prev_line = 0
    number = -1
    for text in lines:
        number += 1
        if not number & 1023:
            checkpoint()
        chunk = line_chunk(text)
        if chunk:
            if encoding != "utf-32" and not text.isascii():
                chunk = _client_chunk(text, encoding)
            append(number - prev_line)
            extend(chunk)
            prev_line = number
    return data
