"""The whole hover at a position, as the editor shows it, in one entry (`hover_at`): what the
job kinds contribute for that line (`parts`, in their order: a register's values or the dumps
of a run, the line's profile counters, ...), then the element's own text (`hover.hover_markdown`),
separated by rules; on a kernel, the vendors' compilers' figures below (`with_vendor`: their
register counts replace the `.registers` estimate in its table). The server converts the
answer (range, markup) and computes only the vendors' figures, off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

from .hover import hover_markdown, kernel_markdown
from .locate import Target, TargetKind, target_at
from .state import DocumentState
from .vendor_help import absent_markdown
from .vendor_usage import figures_markdown

# what a job kind adds to the hover at a line (given the element there, or None)
HoverPart = Callable[[int, "Target | None"], "str | None"]
RULE = "\n\n---\n"          # between the parts and the element's own text


@dataclass(frozen=True, slots=True)
class HoverAnswer:
    """The hover's Markdown and the element it covers: `range` (line, start, end) in code
    points, None when only the parts speak; `kernel`: the kernel hovered (the vendors' figures
    go below it); `parts`: what the job kinds contributed (kept for `with_vendor`)."""

    markdown: str
    range: tuple[int, int, int] | None
    kernel: str | None = None
    parts: tuple[str, ...] = ()


def hover_at(doc: DocumentState, line: int, col: int, compat: bool, targets: tuple[str, ...],
             parts: Iterable[HoverPart] = ()) -> HoverAnswer | None:
    """The hover at (line, col) (settings: `compat` mode, `targets`), or None where nothing
    speaks: the parts' texts, then the element's, each once, separated by rules."""
    target = target_at(doc, line, col)
    added = tuple(text for part in parts if (text := part(line, target)) is not None)
    if target is None and not added:
        return None
    own = hover_markdown(doc, target, compat, targets) if target is not None else None
    text = RULE.join(t for t in (*added, own) if t)
    if not text:
        return None
    if target is None:
        return HoverAnswer(text, None, None, added)
    kernel = target.text if target.kind is TargetKind.KERNEL else None
    return HoverAnswer(text, (line, target.start, target.end), kernel, added)


def with_vendor(answer: HoverAnswer, doc: DocumentState, targets: tuple[str, ...],
                figures: list | None, waited_s: float, absent: list = ()) -> HoverAnswer:
    """A kernel's hover with the vendors' compilers' `figures` (None: still running after
    `waited_s` seconds), their register counts in the kernel's table, and a paragraph per
    `absent` compiler of a configured target (what it would add, how to install it)."""
    text = answer.markdown
    if figures is None:
        vendor = (f"*vendor compilers still running (more than {waited_s} s): their figures "
                  "are being computed; hover again for them*")
    else:
        vendor = figures_markdown(figures)
        if figures:
            table = kernel_markdown(doc, answer.kernel, targets, figures)
            text = RULE.join(t for t in (*answer.parts, table) if t)
    missing = absent_markdown(list(absent))
    return replace(answer, markdown="\n\n".join(t for t in (text, vendor, missing) if t))
