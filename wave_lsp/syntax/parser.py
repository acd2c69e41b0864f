"""The line parser: one line of text in, a `LineSyntax` out (never an exception).

Results are cached by the line's text, so identical lines anywhere (in any document) are parsed
once per process.
"""

from __future__ import annotations

from functools import lru_cache

from parsimonious.exceptions import ParseError, VisitationError
from parsimonious.nodes import Node

from .ast import (Directive, Guard, Instruction, Label, LineSyntax, Operand, OperandSyntax,
                  Statement, SyntaxProblem, Token)
from .grammar import wave_grammar

MAX_PARSED_LINE = 20_000
EMPTY_LINE = LineSyntax((), None, None)  # longer lines are reported, not parsed (no real statement is that long)


@lru_cache(maxsize=1 << 16)
def parse_line(text: str) -> LineSyntax:
    """Parse one line (without its newline)."""
    if len(text) > MAX_PARSED_LINE:
        cut = min((i for i in (text.find(";"), text.find("#")) if i >= 0), default=-1)
        if 0 <= cut <= MAX_PARSED_LINE:  # a long comment: parse the code before it
            code = parse_line(text[:cut])
            if code.problem is None:
                body = text[cut:].rstrip(" \t\r\f\v")
                return LineSyntax(code.statements, Token(body, cut, cut + len(body)), None)
        return LineSyntax((), None, SyntaxProblem(
            f"line too long to be a statement ({len(text)} characters)", 0, len(text)))
    stripped = text.lstrip(" \t\r\f\v")
    if not stripped or stripped[0] in ";#":  # blank and comment-only lines: no grammar needed
        if not stripped or "\n" in stripped:
            return EMPTY_LINE if not stripped else LineSyntax((), None, _problem(text, text.index("\n")))
        start = len(text) - len(stripped)
        body = stripped.rstrip(" \t\r\f\v")
        return LineSyntax((), Token(body, start, start + len(body)), None)
    try:
        tree = wave_grammar().parse(text)
    except ParseError as err:
        return LineSyntax((), None, _problem(text, err.pos))
    except (VisitationError, RecursionError):  # pragma: no cover - defensive
        return LineSyntax((), None, SyntaxProblem("line could not be parsed", 0, len(text)))
    return _line(tree)


def _problem(text: str, pos: int) -> SyntaxProblem:
    # Parsimonious reports where the longest successful prefix ended; skip blanks to the culprit.
    while pos < len(text) and text[pos] in " \t\r\f\v":
        pos += 1
    if pos >= len(text):
        return SyntaxProblem("unexpected end of line", len(text), len(text))
    ch = text[pos]
    if ch == ",":
        rest = text[pos + 1:].strip()
        if not rest or rest[0] in ";#,":
            return SyntaxProblem("expected an operand after ','", pos, pos + 1)
    shown = ch if ch.isprintable() else repr(ch)[1:-1]
    return SyntaxProblem(f"unexpected character '{shown}'", pos, pos + 1)


def _line(tree: Node) -> LineSyntax:
    statements: list[Statement] = []
    comment = None
    for child in tree.children:
        name = _name(child)
        if name == "statements":
            statements.extend(_statements(child))
        elif name == "comment":
            comment = Token(child.text, child.start, child.end)
    return LineSyntax(tuple(statements), comment, None)


def _name(node: Node) -> str:
    """The rule name of a node, looking through unnamed optional/choice wrappers."""
    while not node.expr_name and len(node.children) == 1:
        node = node.children[0]
    return node.expr_name


def _unwrap(node: Node) -> Node:
    while not node.expr_name and len(node.children) == 1:
        node = node.children[0]
    return node


def _statements(node: Node) -> list[Statement]:
    node = _unwrap(node)
    first, rest = node.children
    out = [_statement(first)]
    for pair in rest.children:
        out.append(_statement(pair.children[1]))
    return out


def _statement(node: Node) -> Statement:
    node = _unwrap(node)
    if node.expr_name == "statement":
        node = _unwrap(node.children[0])
    kind = node.expr_name
    if kind == "label_def":
        name = node.children[0]
        return Label(Token(name.text, name.start, name.end), node.start, node.end)
    if kind == "end_directive":
        return Directive(Token("end", node.start + 1, node.start + 4), (), node.start, node.end)
    if kind == "directive":
        word = node.children[1]
        args: tuple[Operand, ...] = ()
        for opt in node.children[2].children:
            args = _operand_list(opt.children[1])
        return Directive(Token(word.text, word.start, word.end), args, node.start, node.end)
    return _instruction(node)


def _instruction(node: Node) -> Instruction:
    guard_opt, mnemonic, suffixes, hint_opt, operands_opt = node.children
    guard = None
    for g in guard_opt.children:
        guard = _guard(g)
    mnem = Token(mnemonic.text, mnemonic.start, mnemonic.end)
    sufs = tuple(Token(s.text, s.start, s.end) for s in suffixes.children)
    hint = None
    for h in hint_opt.children:
        dot = h.children[1]
        hint = Token(h.text[dot.start - h.start:], dot.start, h.end)
    operands: tuple[Operand, ...] = ()
    for o in operands_opt.children:
        operands = _operand_list(o.children[1])
    return Instruction(guard, mnem, sufs, hint, operands, node.start, node.end)


def _guard(node: Node) -> Guard:
    _at, ws1, neg_opt, ws2, reg, _ws3 = node.children
    text = reg.text
    index = int(text[1:]) if text[:1] == "p" and text[1:].isdigit() else None
    spaced = bool(ws1.text or ws2.text)
    return Guard(bool(neg_opt.text), Token(text, reg.start, reg.end), node.start, reg.end, index,
                 spaced)


def _operand_list(node: Node) -> tuple[Operand, ...]:
    first, rest = node.children
    out = [_operand(first)]
    for group in rest.children:
        out.append(_operand(group.children[3]))
    return tuple(out)


def _operand(node: Node) -> Operand:
    node = _unwrap(node)
    if node.expr_name == "operand":
        node = _unwrap(node.children[0])
    kind, text, start, end = node.expr_name, node.text, node.start, node.end
    if kind == "register":
        digits, _, suffix = text[1:].partition(".")
        return Operand(OperandSyntax.REGISTER, text, start, end, int(digits), suffix or None)
    if kind == "predicate":
        return Operand(OperandSyntax.PREDICATE, text, start, end, int(text[1:]))
    if kind == "negated":
        pred = node.children[2].text
        return Operand(OperandSyntax.NEGATED_PREDICATE, text, start, end, int(pred[1:]))
    if kind == "number":
        return _number(text, start, end)
    if kind == "dotted":
        return Operand(OperandSyntax.DOTTED, text, start, end)
    if kind == "special":
        return Operand(OperandSyntax.SPECIAL, text, start, end)
    if kind == "legacy_special":
        return Operand(OperandSyntax.LEGACY_SPECIAL, text, start, end)
    if kind == "memory":
        return Operand(OperandSyntax.MEMORY, text, start, end)
    return Operand(OperandSyntax.NAME, text, start, end)


def _number(text: str, start: int, end: int) -> Operand:
    """Integer or float literal; `value` is None when wave-asm would reject the spelling."""
    body = text.replace("_", "")
    value: int | float | None = None
    is_float = False
    try:
        if body[:1] == "+":
            value = None
        elif body.lstrip("-")[:2] == "0x":
            value = None if body.startswith("-") else int(body[2:], 16)
        elif body.lstrip("-")[:2] == "0X":
            value = None
        elif "." in body or "e" in body or "E" in body:
            is_float = True
            value = float(body)
        else:
            value = int(body, 10)
    except ValueError:
        value = None
    syntax = OperandSyntax.FLOAT if is_float else OperandSyntax.INTEGER
    return Operand(syntax, text, start, end, value)
