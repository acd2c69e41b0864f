"""Folding and selection ranges: which line spans can collapse (kernels, if/else/loop blocks,
runs of comment lines) and the chain of ranges "expand selection" walks (token, statement,
line, enclosing blocks, kernel, document). Plain data; the server translates.
"""

from __future__ import annotations

from typing import NamedTuple

from ..analysis.diagnostic import Range
from ..syntax.blocks import blocks
from .locate import target_at
from .state import DocumentState


# The chain is sent as nested `parent` objects, which are serialised recursively; in a file with
# hundreds of nested blocks only the innermost and outermost `MAX_BLOCKS // 2` blocks are kept, so
# no nesting depth can exhaust the serialiser's recursion.
MAX_BLOCKS = 128


class Fold(NamedTuple):
    """Lines first..last can collapse; `kind` is "region" or "comment"."""

    first: int
    last: int
    kind: str


def comment_runs(state: DocumentState) -> list[tuple[int, int]]:
    """(first, last) line of each run of two or more comment-only lines."""
    out = []
    start = None
    for number, syntax in enumerate(state.syntax + [None]):
        is_comment = syntax is not None and syntax.comment is not None \
            and not syntax.statements and syntax.problem is None
        if is_comment and start is None:
            start = number
        elif not is_comment and start is not None:
            if number - 1 > start:
                out.append((start, number - 1))
            start = None
    return out


def folds(state: DocumentState) -> list[Fold]:
    """Every fold, outermost first; a block folds up to the line before its closing line, so
    `.end`/`endif` stay visible."""
    out = [Fold(s, e - 1, "region") for s, e, _ in blocks(state.program) if e - 1 > s]
    out += [Fold(s, e, "comment") for s, e in comment_runs(state)]
    out.sort(key=lambda f: (f.first, -f.last))
    return out


def _contains(outer: Range, inner: Range) -> bool:
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) and \
        (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def selection_chain(state: DocumentState, line: int, col: int) -> list[Range]:
    """Ranges around a position, innermost first, each strictly containing the previous."""
    lines = state.lines
    text = lines[line]
    candidates: list[Range] = []
    target = target_at(state.document, line, col)
    if target is not None:
        candidates.append(Range.on_line(line, target.start, target.end))
    for stmt in state.syntax[line].statements:
        if stmt.start <= col <= stmt.end:
            candidates.append(Range.on_line(line, stmt.start, stmt.end))
    body = len(text) - len(text.lstrip())
    candidates.append(Range.on_line(line, body, len(text.rstrip())))
    candidates.append(Range.on_line(line, 0, len(text)))
    spans = sorted(((s, e) for s, e, _k in blocks(state.program) if s <= line <= e),
                   key=lambda se: se[1] - se[0])
    if len(spans) > MAX_BLOCKS:
        spans = spans[:MAX_BLOCKS // 2] + spans[-(MAX_BLOCKS // 2):]
    for s, e in spans:
        candidates.append(Range(s, 0, e, len(lines[e])))
    last = len(lines) - 1
    candidates.append(Range(0, 0, last, len(lines[last])))
    out: list[Range] = []
    for rng in candidates:
        if out and (rng == out[-1] or not _contains(rng, out[-1])):
            continue
        if rng.start_line == rng.end_line and rng.start_col > rng.end_col:
            continue
        out.append(rng)
    return out
