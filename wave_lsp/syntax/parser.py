"""The line parser: one line of text in, a `LineSyntax` out (never an exception).

Results are cached by the line's text, so identical lines anywhere (in any document) are parsed
once per process.
"""

from __future__ import annotations


import re
from functools import cache
from typing import TYPE_CHECKING

from .ast import (Directive, Guard, Instruction, Label, LineSyntax, Operand, OperandSyntax,
                  Statement, SyntaxProblem, Token)
from .grammar import grammar_text, wave_grammar
from .memo import LINE_CACHE_SIZE, line_memo, value_memo  # noqa: F401 - LINE_CACHE_SIZE for the layers above

if TYPE_CHECKING:
    from parsimonious.nodes import Node

MAX_PARSED_LINE = 20_000
EMPTY_LINE = LineSyntax((), None, None)  # longer lines are reported, not parsed (no real statement is that long)


BOM = "\ufeff"


@line_memo
def parse_line(text: str) -> LineSyntax:
    """Parse one line (without its newline). A byte order mark starting the line is read as a
    blank (the analysis reports it once), so it never breaks the kernel it precedes."""
    if text.startswith(BOM):
        return parse_line(" " + text[1:])
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
    fast = _fast_line(text)
    if fast is not None:
        return fast
    from parsimonious.exceptions import ParseError, VisitationError  # only for the grammar
    try:
        tree = wave_grammar().parse(text)
    except ParseError as err:
        return LineSyntax((), None, _problem(text, err.pos))
    except (VisitationError, RecursionError):  # pragma: no cover - defensive
        return LineSyntax((), None, SyntaxProblem("line could not be parsed", 0, len(text)))
    return _line(tree)


# The fast path: the common shapes of a line -- one instruction without suffixes or cache hint,
# whose operands are registers, predicates, numbers, specials, names or dotted words, with an
# optional guard; a directive with such arguments; a label, alone or before such an instruction;
# each with an optional comment -- are matched by regular expressions built from the grammar's own
# rules. They give the same `LineSyntax` as the grammar (atomic groups and possessive repeats: no
# backtracking, as in PEG; tests/test_line_fast_path.py compares the two on many lines) in a
# fraction of the time (the grammar takes about 50 times as long). Anything else goes to the
# grammar.
_FAST_FORMS = frozenset({"register", "predicate", "number", "special", "name", "negated",
                         "dotted"})


@cache
def _fast_patterns() -> tuple[re.Pattern, re.Pattern, re.Pattern, re.Pattern]:
    rules = dict(re.findall(r'^(\w+)\s*= ~r"([^"]*)"', grammar_text(), re.M))
    plain = {name: re.sub(r"\(\?P<\w+>", "(?:", rule) for name, rule in rules.items()}
    blank, operand, sep = plain["ws"], plain["operand"], plain["next_operand"]
    operand_list = rf"(?>{operand})(?:(?>{sep})(?>{operand}))*+"
    line = re.compile(
        rf"(?>{blank})(?P<guard>(?>{plain['guard']}))?+(?P<mnemonic>(?>{plain['name']}))"
        rf"(?P<operands>{plain['ws_req']}{operand_list})?+(?>{blank})")
    # what a line may open with before an instruction: a label, or a whole directive line
    opening = re.compile(
        rf"(?>{blank})(?:(?P<label>(?>{plain['label_def']}))"
        rf"|(?P<directive>(?>{plain['directive']}))(?P<operands>(?>{blank}){operand_list})?+)"
        rf"(?>{blank})")
    return line, re.compile(rules["guard"]), re.compile(rules["operand"]), opening


def _fast_line(text: str) -> LineSyntax | None:
    """The parse of a line of a common shape (see above), or None for the grammar."""
    if "\n" in text:
        return None
    # no operand, guard, label or directive holds `;` or `#`: the first one starts the comment
    # (to the line's trailing blanks, as the grammar's `comment` rule)
    cut = len(text)
    semicolon, hash_ = text.find(";"), text.find("#")
    if semicolon >= 0:
        cut = semicolon
    if 0 <= hash_ < cut:
        cut = hash_
    # an instruction first (most lines are): a line the instruction pattern matches holds no
    # `:` and does not start with `.`, so it is no label or directive
    statements = _instruction_at(text, 0, cut) or _labelled_or_directive(text, cut)
    if statements is None:
        return None
    comment = None
    if cut < len(text):
        body = text[cut:].rstrip(" \t\r\f\v")
        comment = Token(body, cut, cut + len(body))
    return LineSyntax(statements, comment, None)


def _labelled_or_directive(text: str, cut: int) -> tuple[Statement, ...] | None:
    """A label (alone or before an instruction) or a directive written in text[:cut]."""
    m = _fast_patterns()[3].match(text, 0, cut)
    if m is None:
        return None
    if m.start("label") < 0:
        return _directive(text, m) if m.end() == cut else None
    start, end = m.span("label")
    name = text[start:end - 1].rstrip(" \t\r\f\v")
    label = Label(Token(name, start, start + len(name)), start, end)
    if m.end() == cut:
        return (label,)
    rest = _instruction_at(text, m.end(), cut)
    return None if rest is None else (label, *rest)


def _directive(text: str, m: re.Match) -> tuple[Statement, ...] | None:
    start, end = m.span("directive")
    if text[start:end] == ".end":        # the grammar's `end_directive`: nothing may follow
        if m.start("operands") >= 0:
            return None
        return (Directive(Token("end", start + 1, end), (), start, end),)
    args: tuple[Operand, ...] = ()
    at, stop = m.span("operands")
    if at >= 0:
        found = _operands(text, at, stop)
        if found is None:
            return None
        args, end = found
    return (Directive(Token(text[start + 1:m.end("directive")], start + 1, m.end("directive")),
                      args, start, end),)


def _operands(text: str, at: int, stop: int) -> tuple[tuple[Operand, ...], int] | None:
    """The operands written in text[at:stop] (matched by the operand list), and where the
    last ends; None when one needs the grammar."""
    written = text[at:stop]
    if "[" in written:
        return None                      # a memory operand may hold a comma
    operands: list[Operand] = []
    last = at
    for part in written.split(","):      # only separators hold commas
        body = part.strip(" \t\r\f\v")
        first = at + part.index(body[0])
        at += len(part) + 1
        last = first + len(body)
        operand = _fast_operand(body, first)
        if operand is None:
            return None
        operands.append(operand)
    return tuple(operands), last


@value_memo(maxsize=1 << 16)
def _fast_operand(body: str, first: int) -> Operand | None:
    """The operand `body` written at column `first`, or None when its form needs the grammar
    (memoised: `r7` at column 9 recurs on most lines of a file). The operand pattern matches
    `body` alone as it matches it inside its line: it looks neither behind nor past the end."""
    form = _fast_patterns()[2].match(body).lastgroup
    if form not in _FAST_FORMS:
        return None
    return _operand_of(form, body, first, first + len(body))


def _simple_instruction(text: str) -> LineSyntax | None:
    """The parse of a line that is one instruction (with an optional comment), or None."""
    found = _fast_line(text)
    if found is None or len(found.statements) != 1 or \
            not isinstance(found.statements[0], Instruction):
        return None
    return found


def _instruction_at(text: str, begin: int, cut: int) -> tuple[Instruction] | None:
    """The one instruction written in text[begin:cut] (`cut`: where the comment starts), or
    None when it needs the grammar."""
    line, guard_pattern, _, _ = _fast_patterns()
    m = line.fullmatch(text, begin, cut)
    if m is None:
        return None
    start, end = m.span("mnemonic")
    mnemonic = Token(text[start:end], start, end)
    guard = None
    if m.start("guard") >= 0:
        start = m.start("guard")
        guard = _guard_of(guard_pattern.match(text, start), 0)
    operands: tuple[Operand, ...] = ()
    at, stop = m.span("operands")
    if at >= 0:
        # a first dotted word is a cache hint only when an operand follows it after a blank,
        # which the line pattern does not match (its operands are separated by commas)
        found = _operands(text, at, stop)
        if found is None:
            return None
        operands, end = found
    return (Instruction(guard, mnemonic, (), None, operands, start, end),)


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
    _ws, statements, comment_opt, _ws2 = tree.children
    out = tuple(_statement(s.children[0].children[0]) for s in statements.children)
    comment = None
    for c in comment_opt.children:
        comment = Token(c.text, c.start, c.end)
    return LineSyntax(out, comment, None)


def _statement(node: Node) -> Statement:
    kind = node.expr_name
    if kind == "instruction":
        return _instruction(node)
    if kind == "label_def":
        text = node.text
        name = text[:len(text) - 1].rstrip(" \t\r\f\v")
        return Label(Token(name, node.start, node.start + len(name)), node.start, node.end)
    if kind == "end_directive":
        return Directive(Token("end", node.start + 1, node.start + 4), (), node.start, node.end)
    word, args_opt = node.children
    args: tuple[Operand, ...] = ()
    for opt in args_opt.children:
        args = _operand_list(opt.children[1])
    return Directive(Token(word.text[1:], word.start + 1, word.end), args, node.start, node.end)


def _instruction(node: Node) -> Instruction:
    guard_opt, mnemonic, suffixes, hint_opt, operands_opt = node.children
    guard = None
    for g in guard_opt.children:
        guard = _guard(g)
    mnem = Token(mnemonic.text, mnemonic.start, mnemonic.end)
    sufs: tuple[Token, ...] = ()
    if suffixes.end > suffixes.start:
        at = suffixes.start
        parts = []
        for word in suffixes.text.split(".")[1:]:
            parts.append(Token("." + word, at, at + 1 + len(word)))
            at += 1 + len(word)
        sufs = tuple(parts)
    hint = None
    for h in hint_opt.children:
        words = h.children[0]
        dot = words.text.index(".")
        hint = Token(words.text[dot:], words.start + dot, words.end)
    operands: tuple[Operand, ...] = ()
    for o in operands_opt.children:
        operands = _operand_list(o.children[1])
    return Instruction(guard, mnem, sufs, hint, operands, node.start, node.end)


def _guard(node: Node) -> Guard:
    return _guard_of(node.match, node.start - node.match.start())


def _guard_of(m: re.Match, shift: int) -> Guard:
    """The guard of a match of the `guard` rule; `shift`: line column minus match position."""
    text = m.group("register")
    start = m.start("register") + shift
    index = int(text[1:]) if text[:1] == "p" and text[1:].isdigit() else None
    spaced = bool(m.group("space1") or m.group("space2"))
    return Guard(bool(m.group("negation")), Token(text, start, start + len(text)),
                 m.start() + shift, start + len(text), index, spaced)


def _operand_list(node: Node) -> tuple[Operand, ...]:
    first, rest = node.children
    return (_operand(first), *(_operand(group.children[1]) for group in rest.children))


def _operand(node: Node) -> Operand:
    return _operand_of(node.match.lastgroup, node.text, node.start, node.end)


@value_memo(maxsize=1 << 16)
def _operand_of(form: str, text: str, start: int, end: int) -> Operand:
    """The operand (immutable, so equal ones are shared: `r1` at column 9 recurs in most
    files)."""
    if form == "register":
        digits, _, suffix = text[1:].partition(".")
        return Operand(OperandSyntax.REGISTER, text, start, end, int(digits), suffix or None)
    if form == "number":
        return _number(text, start, end)
    if form == "name":
        return Operand(OperandSyntax.NAME, text, start, end)
    if form == "predicate":
        return Operand(OperandSyntax.PREDICATE, text, start, end, int(text[1:]))
    if form == "negated":
        return Operand(OperandSyntax.NEGATED_PREDICATE, text, start, end,
                       int(text[1:].lstrip(" \t\r\f\v")[1:]))
    return Operand(_FORMS[form], text, start, end)


_FORMS = {"dotted": OperandSyntax.DOTTED, "special": OperandSyntax.SPECIAL,
          "legacy_special": OperandSyntax.LEGACY_SPECIAL, "memory": OperandSyntax.MEMORY}


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
