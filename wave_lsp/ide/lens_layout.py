"""The layout of the code lenses of one line: the leading lenses (the run lenses: `▶ Run`,
`▶ Run again`, the outcome, `✕ Clear`, then `◔ Profile`, ...) first, then the rest in the order
they were made; and every line's titles, joined as an editor shows them (" | "), within
LINE_BUDGET characters so the actions stay on screen.

Titles too long for their line lose their last " · " part (the longest such title first, while
it is longer than DOTTED_FLOOR; then any title, a later lens on a tie), and only then is the
longest cut with "…"; its full text moves to the lens's tooltip (kept when it already has
one).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import groupby
from typing import Any

Lens = Any      # `lenses.Lens` (a frozen dataclass: line, start, end, title, tooltip, leads)

# 120 characters a line, less what an editor adds itself: VS Code's " | Debug Kernel".
LINE_BUDGET = 104
SEPARATOR = " | "
MIN_TITLE = 12      # a title is never cut shorter than this (plus "…")
DOTTED_FLOOR = 20   # " · " parts are dropped from titles longer than this


def arrange(lenses: list[Lens]) -> list[Lens]:
    """The lenses by line, the leading ones first on each line, each line fitted."""
    ordered = sorted(lenses, key=lambda lens: (lens.line, 0 if lens.leads else 1))
    out: list[Lens] = []
    for _line, group in groupby(ordered, key=lambda lens: lens.line):
        # Clients that sort a line's lenses by their start column (Neovim) keep this order.
        out += [replace(lens, start=min(lens.start + index, lens.end))
                for index, lens in enumerate(fit(list(group)))]
    return out


def fit(lenses: list[Lens], budget: int = LINE_BUDGET) -> list[Lens]:
    """`lenses` (one line's) with their titles shortened until they join within `budget`."""
    titles = [lens.title for lens in lenses]
    tooltips = [lens.tooltip for lens in lenses]

    def length() -> int:
        return len(SEPARATOR.join(titles))

    def shorten(title: str) -> str:
        return title.rsplit(" · ", 1)[0]

    # First the least important " · " part of the longer titles, then of any title (a later
    # lens before an earlier one: the run lenses lead), and only then cut the longest.
    while length() > budget:
        indices = range(len(titles))
        dotted = [i for i in indices if " · " in titles[i] and len(titles[i]) > DOTTED_FLOOR] or \
            [i for i in indices if " · " in titles[i] and len(shorten(titles[i])) >= MIN_TITLE // 2]
        shrinkable = dotted or [i for i in indices if len(titles[i]) > MIN_TITLE + 1]
        if not shrinkable:
            break
        longest = max(shrinkable, key=lambda i: (len(titles[i]), i))
        if tooltips[longest] is None:
            tooltips[longest] = titles[longest]
        if dotted:
            titles[longest] = shorten(titles[longest])
        else:
            keep = max(MIN_TITLE, len(titles[longest]) - (length() - budget) - 1)
            titles[longest] = titles[longest][:keep].rstrip() + "…"
    return [replace(lens, title=title, tooltip=tooltip)
            for lens, title, tooltip in zip(lenses, titles, tooltips)]
