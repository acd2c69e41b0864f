"""Matching structured blocks: `if` [`else`] `endif` and `loop` `endloop` (roles from
`isa.blocks`), over any sequence of mnemonics (a kernel's instructions, or decoded ones).

`match_blocks` is the one matcher: the structure checks report its `problems`, the uniformity
analysis nests instructions with its `blocks`, folding and selection show them, the emulator
plans its skips with them. Recovery from broken nesting (never raises): an `else` counts only
on an innermost `if` that has none; an end closes the innermost block of its kind when one is
open, closing the blocks left open inside it; any other delimiter is a problem and is ignored;
blocks still open at the end stay open (`close` None).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple, Sequence

from ..isa import BLOCK_ROLES, OPENER, BlockRole

if TYPE_CHECKING:              # annotations only: the emulator's plan needs no syntax tree
    from .program import Program


@dataclass(slots=True)
class Block:
    """A matched construct; positions are the indices (or lines) given to the matcher."""

    kind: str                    # "if" or "loop"
    open: int
    else_: int | None = None
    close: int | None = None     # None: never closed
    closed_by_outer: bool = False  # closed implicitly by the end of an enclosing block
    depth: int = 0               # open blocks around it


class Problem(NamedTuple):
    """A delimiter that does not fit: `why` is "stray else", "second else", "stray end",
    "crossing end" (an end that closes inner blocks too) or "unclosed"."""

    why: str
    at: int
    mnemonic: str
    innermost: str | None        # kind of the innermost open block there, if any
    other: int | None = None     # the `if` of a second else


@dataclass(slots=True)
class Matching:
    blocks: list[Block] = field(default_factory=list)      # in order of their openers
    problems: list[Problem] = field(default_factory=list)  # in order of position
    exits_outside_loops: list[int] = field(default_factory=list)  # break/continue, no loop
    top_level_halts: list[int] = field(default_factory=list)      # halt outside any block


def match_blocks(items: Iterable[tuple[int, str | None]]) -> Matching:
    """Match the delimiters of `items`: (position, mnemonic) pairs in order; a None mnemonic
    (or one without a block role) is not a delimiter."""
    out = Matching()
    stack: list[Block] = []
    for at, mnemonic in items:
        rule = BLOCK_ROLES.get(mnemonic) if mnemonic is not None else None
        if rule is None:
            continue
        role, kind = rule
        if role is BlockRole.OPEN:
            block = Block(kind, at, depth=len(stack))
            out.blocks.append(block)
            stack.append(block)
        elif role is BlockRole.ELSE:
            top = stack[-1] if stack else None
            if top is None or top.kind != kind:
                out.problems.append(Problem("stray else", at, mnemonic, _kind(stack)))
            elif top.else_ is not None:
                out.problems.append(Problem("second else", at, mnemonic, kind, top.open))
            else:
                top.else_ = at
        elif role is BlockRole.CLOSE:
            if stack and stack[-1].kind == kind:
                stack.pop().close = at
            elif any(b.kind == kind for b in stack):
                out.problems.append(Problem("crossing end", at, mnemonic, _kind(stack)))
                while stack[-1].kind != kind:
                    inner = stack.pop()
                    inner.close, inner.closed_by_outer = at, True
                stack.pop().close = at
            else:
                out.problems.append(Problem("stray end", at, mnemonic, _kind(stack)))
        elif role is BlockRole.EXIT:
            if not any(b.kind == kind for b in stack):
                out.exits_outside_loops.append(at)
        elif not stack:           # HALT
            out.top_level_halts.append(at)
    for block in stack:
        out.problems.append(Problem("unclosed", block.open, OPENER[block.kind], block.kind))
    out.problems.sort(key=lambda p: p.at)
    return out


def _kind(stack: list[Block]) -> str | None:
    return stack[-1].kind if stack else None


class Region(NamedTuple):
    """A foldable span: first line, closing line, kind ("kernel", "if", "else", "loop")."""

    first: int
    closing: int
    kind: str


def blocks(program: Program) -> list[Region]:
    """Every closed kernel and structured block of a program, by lines: an `if` with an `else`
    gives two regions (`if` up to the `else`, `else` up to the `endif`)."""
    out: list[Region] = []
    for kernel in program.kernels:
        if kernel.end_line is not None:
            out.append(Region(kernel.line, kernel.end_line, "kernel"))
        matching = match_blocks((line, ins.mnemonic.text) for line, ins in kernel.instructions)
        for b in matching.blocks:
            if b.close is None or b.closed_by_outer:
                continue
            if b.else_ is not None:
                out.append(Region(b.open, b.else_, b.kind))
                out.append(Region(b.else_, b.close, "else"))
            else:
                out.append(Region(b.open, b.close, b.kind))
    return out


def loop_writes(items: Sequence[tuple[int, object]],
                written: Callable[[object], Iterable[int]]) -> dict[int, set[int]]:
    """For each `loop` of a kernel's (line, Instruction) items (by index), the registers its
    body may write (`written(instruction)`), up to the `endloop` that ends it or to the end, in
    one pass: an inner loop's writes are also its outer loop's (a nest 10,000 deep stays linear)."""
    out: dict[int, set[int]] = {}
    open_loops: list[int] = []
    for index, (_line, ins) in enumerate(items):
        m = ins.mnemonic.text
        if m == "loop":
            open_loops.append(index)
            out[index] = set()
        elif m == "endloop" and open_loops:
            done = open_loops.pop()
            if open_loops:
                out[open_loops[-1]].update(out[done])
        elif open_loops:
            out[open_loops[-1]].update(written(ins))
    for inner, outer in zip(reversed(open_loops), reversed(open_loops[:-1])):
        out[outer].update(out[inner])      # unclosed loops: each holds the ones inside it
    return out
