"""The WAVE source formatter (protocol-free), in the one layout the editors also indent by
(VS Code's indentation rules, Neovim's indent/wave.lua, Emacs' wave-mode): labels and directives
at column 0; instructions INDENT in and INDENT more inside each if/else/loop block (the block
roles of `isa.blocks`), comments inside a kernel with the code; block keywords and loop exits
with one blank before their operand; the operands of the other instructions of a block aligned
at the widest mnemonic that fits before OPERAND_TAB (longer ones take one blank); trailing
comments of neighbouring lines in one column, COMMENT_COLUMN or further out; blocks nested
deeper than the specification guarantees (K309) are indented MAX_INDENT_DEPTH levels. The project's
examples/ are written this way (a test keeps them fixed points).

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
from ..isa import MIN_DIVERGENCE_DEPTH
from ..isa.blocks import BLOCK_ROLES, BlockRole
from ..syntax.ast import Directive, Instruction, Label, LineSyntax
from ..syntax.parser import parse_line

INDENT = 4
OPERAND_TAB = 8           # operands start at most this far past the mnemonic's column
COMMENT_GAP = 2
COMMENT_COLUMN = 36       # trailing comments start here, unless the code reaches it
MAX_COMMENT_COLUMN = 80
# Blocks deeper than the specification guarantees (K309) are indented as at this depth: the
# answer stays linear in the text (10,000 nested blocks were a 36 MB edit per 3,000 levels).
MAX_INDENT_DEPTH = MIN_DIVERGENCE_DEPTH
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
                 aligned: bool, depth: int = 0) -> None:
        self.prefix, self.head, self.operands, self.comment = prefix, head, operands, comment
        self.aligned = aligned  # an instruction taking part in operand alignment
        self.depth = depth      # blocks open around it (its run of aligned lines shares it)
        self.remark = False     # a line holding only a comment

    def code(self, width: int) -> str:
        """The line without its comment, operands at `width` past the head's start."""
        if not self.operands:
            return (self.prefix + self.head).rstrip()
        return self.prefix + self.head.ljust(width) + " " + self.operands


def _indent(depth: int) -> str:
    return " " * (INDENT * (1 + min(depth, MAX_INDENT_DEPTH)))


def _layout(text: str, syntax: LineSyntax,
            depth: int | None) -> tuple[_Line | str, int | None]:
    """A line's parts (or its final text), and the block depth after it. `depth` counts the
    if/else/loop blocks open before the line (None outside any kernel): a block keyword sits at
    the depth of its block, the lines inside one level further in."""
    if syntax.problem is not None:
        return text.rstrip(_BLANKS), depth
    comment = syntax.comment.text if syntax.comment else None
    stmts = syntax.statements
    if not stmts:
        if comment is None:
            return "", depth
        # a comment inside a kernel sits with the code around it; outside, at column 0
        line = _Line(_indent(depth) if depth is not None else "", comment, "", None, False)
        line.remark = True
        return line, depth
    labels = [s for s in stmts if isinstance(s, Label)]
    rest = [s for s in stmts if not isinstance(s, Label)]
    if len(labels) > 1 or len(rest) > 1 or (labels and stmts[0] is not labels[0]):
        return text.rstrip(_BLANKS), depth
    label = f"{labels[0].name.text}:" if labels else ""
    if not rest:
        return _Line(label, "", "", comment, False), depth
    stmt = rest[0]
    if isinstance(stmt, Directive):
        if stmt.name.text == "kernel":
            depth = 0
        elif stmt.name.text == "end":
            depth = None
        args = _joined(text, stmt.args)
        code = f".{stmt.name.text}" + (f" {args}" if args else "")
        return _Line(f"{label} {code}" if label else code, "", "", comment, False), depth
    parts = _instruction_parts(text, stmt)
    if parts is None:
        return text.rstrip(_BLANKS), depth
    role = BLOCK_ROLES.get(stmt.mnemonic.text, (None,))[0]
    depth = depth or 0   # code outside a kernel (wave-asm rejects it) is indented as inside
    at = depth - 1 if role in (BlockRole.ELSE, BlockRole.CLOSE) else depth
    at = max(at, 0)
    after = at + 1 if role in (BlockRole.OPEN, BlockRole.ELSE) else at
    indent = _indent(at)
    prefix = label.ljust(len(indent)) if len(label) < len(indent) else label + " "
    # block keywords and exits stand alone: never padded, and they end a run of aligned operands
    return _Line(prefix, parts[0], parts[1], comment, role is None, at), after


def _operand_width(run: list[_Line]) -> int:
    """The head width of a run: the widest head that fits before the operand tab stop; longer
    heads are followed by one blank."""
    return max((len(l.head) for l in run if l.operands and len(l.head) < OPERAND_TAB), default=0)


def _with_comments(codes: list[str], comments: list[str | None]) -> list[str]:
    """Trailing comments of consecutive commented lines in one column: COMMENT_COLUMN, or
    further out when a line's code reaches it (each line's own when that passes
    MAX_COMMENT_COLUMN)."""
    out = list(codes)
    i = 0
    while i < len(codes):
        if comments[i] is None:
            i += 1
            continue
        j = i
        while j < len(codes) and comments[j] is not None:
            j += 1
        column = max([COMMENT_COLUMN] + [len(c) + COMMENT_GAP for c in codes[i:j]])
        for k in range(i, j):
            if column <= MAX_COMMENT_COLUMN:
                out[k] = codes[k].ljust(column) + comments[k]
            else:
                out[k] = codes[k] + " " * COMMENT_GAP + comments[k]
        i = j
    return out


def _aligned_runs(laid: list[_Line | str]) -> dict[int, int]:
    """line -> operand width, for every aligned instruction: a run is the aligned instructions of
    one block depth, which blank and comment-only lines do not interrupt."""
    widths: dict[int, int] = {}
    run: list[int] = []

    def close() -> None:
        width = _operand_width([laid[n] for n in run])
        widths.update((n, width) for n in run)
        run.clear()

    for n, item in enumerate(laid):
        if isinstance(item, _Line) and item.aligned:
            if run and laid[run[-1]].depth != item.depth:
                close()
            run.append(n)
        elif item == "" or (isinstance(item, _Line) and item.remark):
            continue  # a blank or comment-only line keeps the run going
        else:
            close()
    close()
    return widths


def format_lines(lines: list[str], syntax: list[LineSyntax] | None = None) -> list[str]:
    """The formatted text of every line (same number of lines)."""
    syntax = syntax or [parse_line(t) for t in lines]
    laid: list[_Line | str] = []
    depth: int | None = None
    for number, (t, s) in enumerate(zip(lines, syntax)):
        if not number & 1023:
            checkpoint()
        item, depth = _layout(t, s, depth)
        laid.append(item)
    widths = _aligned_runs(laid)
    codes = [item.code(widths.get(n, 0)) if isinstance(item, _Line) else item
             for n, item in enumerate(laid)]
    comments = [item.comment if isinstance(item, _Line) else None for item in laid]
    out = _with_comments(codes, comments)
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
