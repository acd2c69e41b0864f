"""The layout of the code lenses of one line: run lenses (`▶ Run`, `▶ Run again`, the outcome,
`✕ Clear`) first, then the rest in the order they were made; and every line's titles, joined as
an editor shows them (" | "), within LINE_BUDGET characters so the actions stay on screen.

Titles too long for their line lose their last " · " part (the longest such title first, while
it is longer than DOTTED_FLOOR; then any title, a later lens on a tie), and only then is the
longest cut with "…"; its full text moves to the command's tooltip (kept when it already has
one).
"""

from __future__ import annotations

from itertools import groupby

from lsprotocol import types

# 120 characters a line, less what an editor adds itself: VS Code's " | Debug Kernel".
LINE_BUDGET = 104
SEPARATOR = " | "
MIN_TITLE = 12      # a title is never cut shorter than this (plus "…")
DOTTED_FLOOR = 20   # " · " parts are dropped from titles longer than this


def arrange(lenses: list[types.CodeLens], first: tuple[str, ...]) -> list[types.CodeLens]:
    """The lenses by line, those running `first` commands leading each line, each line fitted."""
    def key(lens: types.CodeLens) -> tuple[int, int]:
        command = lens.command.command if lens.command else ""
        return lens.range.start.line, 0 if command in first else 1

    ordered = sorted(lenses, key=key)
    for _line, group in groupby(ordered, key=lambda lens: lens.range.start.line):
        same_line = list(group)
        fit([lens.command for lens in same_line if lens.command is not None])
        # Clients that sort a line's lenses by their start column (Neovim) keep this order.
        for index, lens in enumerate(same_line):
            start, end = lens.range.start, lens.range.end
            column = min(start.character + index, end.character) if end.line == start.line \
                else start.character + index
            lens.range = types.Range(start=types.Position(line=start.line, character=column),
                                     end=end)
    return ordered


def fit(commands: list[types.Command], budget: int = LINE_BUDGET) -> None:
    """Shortens the titles of `commands` (one line's) until they join within `budget`."""
    def length() -> int:
        return len(SEPARATOR.join(c.title for c in commands))

    def shorten(title: str) -> str:
        return title.rsplit(" · ", 1)[0]

    # First the least important " · " part of the longer titles, then of any title (a later
    # lens before an earlier one: the run lenses lead), and only then cut the longest.
    while length() > budget:
        dotted = [c for c in commands if " · " in c.title and len(c.title) > DOTTED_FLOOR] or \
            [c for c in commands if " · " in c.title and len(shorten(c.title)) >= MIN_TITLE // 2]
        shrinkable = dotted or [c for c in commands if len(c.title) > MIN_TITLE + 1]
        if not shrinkable:
            return
        later = {id(c): i for i, c in enumerate(commands)}
        longest = max(shrinkable, key=lambda c: (len(c.title), later[id(c)]))
        if longest.tooltip is None:
            longest.tooltip = longest.title
        if dotted:
            longest.title = shorten(longest.title)
        else:
            keep = max(MIN_TITLE, len(longest.title) - (length() - budget) - 1)
            longest.title = longest.title[:keep].rstrip() + "…"
