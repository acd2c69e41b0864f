"""A kernel's stated arguments: the registers its dispatch sets before it runs, which it may
read before writing. A kernel states them with `; wave-lsp args: r0 r1 r2` (registers separated
by blanks or commas), or by a launch line that sets them (`; wave-lsp run: ... --set-reg 0:64`);
both belong to the kernel as every tool comment does (`tool_comments.kernel_comment_lines`).

Only the register of each `--set-reg REG:VALUE` is read here (the whole flag is parsed by
`launch.flags` when the line runs); a word that names no register is left out.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .memo import line_memo
from .tool_comments import (ARGS_COMMENT, LAUNCH_MARKER, SET_REG, kernel_comment_lines,
                            launch_comment, marker, ARGS)

_WORD = re.compile(r"[^\s,]+")
_REGISTER = re.compile(r"[rR]?(0[xX][0-9a-fA-F]+|\d+)")
_ARGS_MARKER = marker(ARGS)


class StatedArgument(NamedTuple):
    """A register a kernel states as an argument, and where (line, columns of the word)."""

    register: int
    line: int
    start: int
    end: int


def _register(text: str) -> int | None:
    m = _REGISTER.fullmatch(text)
    if m is None:
        return None
    digits = m.group(1)
    return int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)


@line_memo
def declared_registers(text: str) -> tuple[tuple[int | None, int, int], ...] | None:
    """(register or None for a word that is not one, start, end) of every word of an args
    comment, or None if `text` is not one."""
    m = ARGS_COMMENT.match(text) if _ARGS_MARKER in text else None
    if m is None:
        return None
    base = m.start("text")
    out = []
    for w in _WORD.finditer(m.group("text")):
        word = w.group()
        value = _register(word) if word[:1] in "rR" else None
        out.append((value, base + w.start(), base + w.end()))
    return tuple(out)


@line_memo
def set_registers(text: str) -> tuple[tuple[int, int, int], ...]:
    """(register, start, end of REG in the REG:VALUE word) of every `--set-reg` of a launch
    line."""
    flags = launch_comment(text) if LAUNCH_MARKER in text else None
    if flags is None:
        return ()
    words = [(w.group(), w.start(), w.end()) for w in re.finditer(r"\S+", text[flags:])]
    out = []
    for i, (word, start, end) in enumerate(words):
        if word == SET_REG and i + 1 < len(words):
            value, start, end = words[i + 1]
        elif word.startswith(SET_REG + "="):
            value, start = word[len(SET_REG) + 1:], start + len(SET_REG) + 1
        else:
            continue
        if value[:1] in "\"'":
            value, start = value[1:], start + 1
        reg = value.partition(":")[0]
        register = _register(reg)
        if register is not None:
            out.append((register, flags + start, flags + start + len(reg)))
    return tuple(out)


def tool_lines(lines: list[str], kernel) -> tuple[tuple[int, str], ...]:
    """(line, text) of every line that may be a tool comment of `kernel` (a cheap scan: what
    the stated arguments depend on besides the kernel's position)."""
    span = kernel_comment_lines(lines, kernel)
    return tuple((n, text) for n, text in enumerate(lines[span.start:span.stop], span.start)
                 if "wave-lsp" in text)


def stated_arguments(lines: list[str], kernel, found=None) -> tuple[StatedArgument, ...]:
    """Every register `kernel` states as an argument (args comments first, then launch lines'
    `--set-reg`s), in line order. Empty when the kernel states none. `found`: its
    `tool_lines`, when the caller has them."""
    out = []
    for number, text in (tool_lines(lines, kernel) if found is None else found):
        declared = declared_registers(text)
        if declared is not None:
            out += [StatedArgument(r, number, s, e) for r, s, e in declared if r is not None]
        else:
            out += [StatedArgument(r, number, s, e) for r, s, e in set_registers(text)]
    return tuple(out)
