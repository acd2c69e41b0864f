"""The WAVE source formatter (protocol-free): labels and directives at column 0, instructions
indented, operands of consecutive instructions aligned in one column, trailing comments aligned.

It only changes whitespace: every rewritten line must give the same statements (mnemonics,
operands, guards, comments) as before, or the line is left as it was. The check is cheap for
the usual rewrite (the same tokens, only the blanks between them differ, and no token needs
the blanks around it: see `_same_tokens`); any other rewrite is re-parsed and compared. Lines
that do not parse are left alone (trailing blanks aside). The layout depends only on the tokens,
not on the old whitespace, so formatting is idempotent.
"""

from __future__ import annotations

import re

from ..cancellation import checkpoint
from ..syntax.ast import Directive, Instruction, Label, LineSyntax
from ..syntax.parser import parse_line

INDENT = 4
COMMENT_GAP = 2
MAX_COMMENT_COLUMN = 80
_BLANKS = " \t\f\v"


# a token: a comment (to the end of the line), a word (names, registers, numbers, dotted names;
# `.` and `%` included so that `iadd.u32` differs from `iadd .u32`), or one other character
_TOKEN = re.compile(r"[;#].*|[\w.%]+|\S")
# blanks that the grammar reads: inside a guard (`@ p1`), before a hint, inside `! p1` or a
# memory operand: a line with any of these is checked by parsing it
_SPACED = re.compile(r"[@!\[]")


def _same_tokens(old: str, new: str) -> bool:
    """Whether `new` is `old` with only the blanks between tokens changed, where those blanks
    cannot change what the line means (else the caller re-parses)."""
    old, new = old.rstrip(_BLANKS), new.rstrip(_BLANKS)
    code = old.split(";", 1)[0].split("#", 1)[0]
    if _SPACED.search(code):
        return False
    return _TOKEN.findall(old) == _TOKEN.findall(new)


def _joined(text: str, items) -> str:
    """Operands joined: a plain comma separator becomes ', ', anything else is kept."""
    out = []
    for i, item in enumerate(items):
        if i:
            sep = text[items[i - 1].end:item.start]
            out.append(", " if sep.strip() == "," else sep)
        out.append(item.text)
    return "".join(out)


def _instruction_parts(text: str, ins: Instruction) -> tuple[str, str] | None:
    """(head with guard and hint, operands) of an instruction, or None to leave the line as is."""
    head = ins.head
    if ins.guard is not None:
        if ins.guard.spaced:
            return None
        head = f"@{'!' if ins.guard.negated else ''}{ins.guard.register.text} {head}"
    if ins.hint is not None:
        head += f" {ins.hint.text}"
    return head, _joined(text, ins.operands)


def _signature(syntax: LineSyntax) -> tuple:
    """What a line means, for checking that formatting changed whitespace only."""
    parts = []
    for s in syntax.statements:
        if isinstance(s, Instruction):
            g = s.guard
            parts.append(("i", g and (g.negated, g.register.text), s.head, s.hint and s.hint.text,
                          tuple((o.syntax, o.text, o.value, o.suffix) for o in s.operands)))
        elif isinstance(s, Label):
            parts.append(("l", s.name.text))
        else:
            parts.append(("d", s.name.text, tuple((a.syntax, a.text, a.value) for a in s.args)))
    return tuple(parts), syntax.comment and syntax.comment.text, syntax.problem


class _Line:
    """A line being laid out: code before the operands column, operands, trailing comment."""

    def __init__(self, prefix: str, head: str, operands: str, comment: str | None,
                 aligned: bool) -> None:
        self.prefix, self.head, self.operands, self.comment = prefix, head, operands, comment
        self.aligned = aligned  # an instruction taking part in operand alignment


def _layout(text: str, syntax: LineSyntax) -> _Line | str:
    """A line's parts, or its final text when it needs no alignment."""
    if syntax.problem is not None:
        return text.rstrip(_BLANKS)
    comment = syntax.comment.text if syntax.comment else None
    stmts = syntax.statements
    if not stmts:
        if comment is None:
            return ""
        indented = text[:len(text) - len(text.lstrip(_BLANKS))] != ""
        return (" " * INDENT if indented else "") + comment
    labels = [s for s in stmts if isinstance(s, Label)]
    rest = [s for s in stmts if not isinstance(s, Label)]
    if len(labels) > 1 or len(rest) > 1 or (labels and stmts[0] is not labels[0]):
        return text.rstrip(_BLANKS)
    label = f"{labels[0].name.text}:" if labels else ""
    if not rest:
        return _Line(label, "", "", comment, False)
    stmt = rest[0]
    if isinstance(stmt, Directive):
        args = _joined(text, stmt.args)
        code = f".{stmt.name.text}" + (f" {args}" if args else "")
        return _Line(f"{label} {code}" if label else code, "", "", comment, False)
    parts = _instruction_parts(text, stmt)
    if parts is None:
        return text.rstrip(_BLANKS)
    prefix = label.ljust(INDENT) if len(label) < INDENT else label + " "
    return _Line(prefix, parts[0], parts[1], comment, True)


def _render(lines: list[_Line]) -> list[str]:
    """Align operands and comments over a run of consecutive code lines."""
    width = max((len(l.head) for l in lines if l.aligned and l.operands), default=0)
    codes = []
    for l in lines:
        if l.aligned:
            code = l.prefix + (l.head.ljust(width) + " " + l.operands if l.operands else l.head)
        else:
            code = l.prefix
        codes.append(code.rstrip())
    column = max((len(c) for c, l in zip(codes, lines) if l.comment), default=0) + COMMENT_GAP
    out = []
    for code, l in zip(codes, lines):
        if l.comment is None:
            out.append(code)
        elif column <= MAX_COMMENT_COLUMN:
            out.append(code.ljust(column) + l.comment)
        else:
            out.append(code + " " * COMMENT_GAP + l.comment)
    return out


def format_lines(lines: list[str], syntax: list[LineSyntax] | None = None) -> list[str]:
    """The formatted text of every line (same number of lines)."""
    syntax = syntax or [parse_line(t) for t in lines]
    laid = []
    for number, (t, s) in enumerate(zip(lines, syntax)):
        if not number & 1023:
            checkpoint()
        laid.append(_layout(t, s))
    out: list[str] = []
    run: list[_Line] = []
    for item in laid + [""]:
        if isinstance(item, _Line) and item.aligned:
            run.append(item)
            continue
        if run:
            out.extend(_render(run))
            run = []
        if isinstance(item, _Line):
            out.extend(_render([item]))
        else:
            out.append(item)
    out.pop()  # the sentinel
    for i, (old, new) in enumerate(zip(lines, out)):
        if old != new and not _same_tokens(old, new) \
                and _signature(parse_line(new)) != _signature(syntax[i]):
            out[i] = old  # never change what a line means
    return out


def format_text(text: str) -> str:
    """Format a whole source text (LF, CRLF and CR breaks are kept)."""
    from ..syntax.document import split_lines

    lines, breaks = split_lines(text)
    return "".join(line + brk for line, brk in zip(format_lines(lines), breaks))
