"""The vocabulary of the uniformity analysis: how widely a value is shared (`Uniformity`) and why
a value varies (`Cause`, a chain of instructions back to where the variation starts)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..isa import SPECIAL_BY_NAME
from .anchors import KernelRelated, LineMention, Message, Text
from .diagnostic import Range


class Uniformity(enum.IntEnum):
    """Over which threads a value is guaranteed to be the same; larger means more varying.

    The order is a lattice: joining two values takes the larger level.
    """

    DISPATCH = 0    # the same for every thread of the dispatch (constants, launch arguments)
    WORKGROUP = 1   # the same within each workgroup, may differ between workgroups
    WAVE = 2        # the same within each wave, may differ between the waves of a workgroup
    THREAD = 3      # may differ from thread to thread

    @property
    def phrase(self) -> str:
        """How the value behaves, as a predicate for messages and hover: `varies per thread`."""
        return _PHRASES[self]

    @classmethod
    def of_special(cls, name: str) -> "Uniformity":
        """The level of a special register, from the ISA table's `varies_per`."""
        special = SPECIAL_BY_NAME.get(name)
        if special is None:
            return cls.DISPATCH
        return _VARIES_PER.get(special.varies_per, cls.THREAD)


_PHRASES = {
    Uniformity.DISPATCH: "is uniform",
    Uniformity.WORKGROUP: "is uniform per workgroup",
    Uniformity.WAVE: "is uniform per wave but may differ between the waves of a workgroup",
    Uniformity.THREAD: "varies per thread",
}

_VARIES_PER = {
    "dispatch": Uniformity.DISPATCH,
    "workgroup": Uniformity.WORKGROUP,
    "wave": Uniformity.WAVE,
    "thread": Uniformity.THREAD,
}


@dataclass(frozen=True, slots=True, eq=False)
class Cause:
    """One link of a cause chain: an instruction (or construct) and the link it depends on.

    `text` reads like `p1 ← icmp_lt r4, r7`; `parent` is the cause of the operand that made this
    value vary, or None where the variation starts (a special register, a load, a wave op...).
    """

    line: int
    start: int
    end: int
    text: Message            # may quote lines (`LineMention`)
    parent: "Cause | None" = None

    @property
    def range(self) -> Range:
        return Range(self.line, self.start, self.line, self.end)

    def chain(self, limit: int = 12) -> list["Cause"]:
        """This cause and its ancestors, nearest first (at most `limit`, no repeats)."""
        out: list[Cause] = []
        seen: set[int] = set()
        cause: Cause | None = self
        while cause is not None and len(out) < limit and id(cause) not in seen:
            seen.add(id(cause))
            out.append(cause)
            cause = cause.parent
        return out

    def origin(self) -> "Cause":
        """The last link: where the variation starts."""
        return self.chain()[-1]


def related_chain(cause: Cause | None, limit: int = 12) -> list[KernelRelated]:
    """The chain of `cause` as related locations; the origin's message quotes its line."""
    if cause is None:
        return []
    links = cause.chain(limit)
    out = []
    for i, link in enumerate(links):
        text = link.text
        if i == len(links) - 1:
            text = Text(text, ", ", LineMention(link.line))
        out.append(KernelRelated(link.range, text))
    return out
