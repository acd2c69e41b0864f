"""Applying the mechanical fixes of diagnostics to source text (`wave-lsp lint --fix`, and the
language server's "fix all" actions).

A fix is safe when it cannot change what the author meant: the rewrites of legacy syntax (each
names the one current form) and the spelling of a literal or a guard. The rest are guesses (the
closest known name to a typo, dropping an unknown suffix): `lint --fix` applies those only with
`--unsafe-fixes`."""

from __future__ import annotations

from typing import Iterable

from ..syntax.document import split_lines
from .diagnostic import Diagnostic, TextEdit


SAFE_FIX_CODES = frozenset({"S102", "S103"})   # with every legacy rewrite (L4xx)


def is_safe_fix(diagnostic: Diagnostic) -> bool:
    """Whether the diagnostic's fix is certain (see the module docstring)."""
    return diagnostic.code.startswith("L4") or diagnostic.code in SAFE_FIX_CODES


def _without_overlaps(diagnostics: Iterable[Diagnostic], keep) -> list[Diagnostic]:
    """The diagnostics with a fix that `keep` accepts, in order, leaving out one whose first
    fix overlaps a fix taken before it."""
    taken: list[Diagnostic] = []
    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for d in sorted(diagnostics, key=lambda d: d.sort_key):
        if not d.fixes or not keep(d):
            continue
        mine = [((e.range.start_line, e.range.start_col), (e.range.end_line, e.range.end_col))
                for e in d.fixes[0].edits]
        if any(a < d_ and c < b or a == b == c == d_ for a, b in mine for c, d_ in spans):
            continue
        spans.extend(mine)
        taken.append(d)
    return taken


def fixes_to_apply(diagnostics: Iterable[Diagnostic], unsafe: bool = False) -> list[Diagnostic]:
    """The diagnostics whose first fix `lint --fix` applies: the safe ones (all with `unsafe`)."""
    return _without_overlaps(diagnostics, lambda d: unsafe or is_safe_fix(d))


def fix_edits(diagnostics: Iterable[Diagnostic], codes: Iterable[str] | None = None) -> list[TextEdit]:
    """The edits of every diagnostic's first fix (optionally only for some codes), leaving out
    a fix that overlaps one taken before it."""
    wanted = set(codes) if codes is not None else None
    chosen = _without_overlaps(diagnostics, lambda d: wanted is None or d.code in wanted)
    return [e for d in chosen for e in d.fixes[0].edits]


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping edits (positions in code points) to `text`."""
    lines, breaks = split_lines(text)
    starts = []
    total = 0
    for line, brk in zip(lines, breaks):
        starts.append(total)
        total += len(line) + len(brk)

    def offset(line: int, col: int) -> int:
        if line >= len(lines):
            return len(text)
        return starts[line] + min(col, len(lines[line]))

    out = text
    ordered = sorted(edits, key=lambda e: (e.range.start_line, e.range.start_col,
                                           e.range.end_line, e.range.end_col), reverse=True)
    for e in ordered:
        a = offset(e.range.start_line, e.range.start_col)
        b = offset(e.range.end_line, e.range.end_col)
        out = out[:a] + e.new_text + out[b:]
    return out
