"""Stale inline values: what a kernel's last run showed, kept on screen while the document is
edited until the next run's values arrive (as rust-analyzer keeps its hints), instead of
vanishing on every keystroke that leaves a line unassemblable.

A run's values belong to the text it ran on. After an edit each value moves with its line:
a line is carried to the new text when it is unchanged and in the same order (the longest
matching blocks of the two texts, `difflib`); a value whose line changed or went is dropped.
A kernel's values are stale while its current revision has no run with values (a run in
flight, or a source that does not assemble).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Sequence

from .run_results import KernelRun, LineResult

STALE_MARK = "⟳ "     # before a stale value's label: the editors draw it like the others


def carried_lines(old: Sequence[str], new: Sequence[str]) -> dict[int, int]:
    """Old line -> new line, for the lines an edit left unchanged and in order."""
    matcher = SequenceMatcher(None, list(old), list(new), autojunk=False)
    out: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for i in range(block.size):
            out[block.a + i] = block.b + i
    return out


def stale_values(kept: dict[str, tuple[KernelRun, tuple[str, ...]]], current: list[KernelRun],
                 lines: Sequence[str]) -> list[tuple[int, KernelRun, LineResult]]:
    """(new line, run, line result) for each value a kernel without a current run with values
    showed last, on the line it moved to (`kept`: kernel -> its last run with values and the
    text lines it ran on)."""
    fresh = {r.kernel for r in current if r.lines}
    out = []
    for kernel, (run, text) in kept.items():
        if kernel in fresh:
            continue
        moved = carried_lines(text, lines) if tuple(text) != tuple(lines) else None
        for line, result in run.lines.items():
            if not result.label:
                continue
            target = line if moved is None else moved.get(line)
            if target is not None and target < len(lines):
                out.append((target, run, result))
    return out
