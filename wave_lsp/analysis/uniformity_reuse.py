"""Re-analysing an edited kernel from where the edit is, not from its first instruction.

The uniformity pass runs over the kernel's top-level items (instructions, `if` and `loop`
constructs) in order, carrying a `State`. An item is unchanged when it covers the same lines as
in the previous analysis and none of its instructions changed (the document patches a kernel's
instruction list in place, so unchanged entries are the very same objects). Unchanged items
before the first changed one behave exactly as before: their events and the state after them
are taken from the previous analysis. From the first change on the pass runs again; as soon as
it reaches an unchanged item of the tail with a state equal to the one the previous analysis
had there, everything after it is the same too, and is taken over.

Equal means equal levels and equal cause chains (compared by value), so the diagnostics built
from a reused part are exactly those a fresh analysis would build. Kernels with `call` are always
analysed in full (a function body is read from elsewhere in the kernel).
"""

from __future__ import annotations

from .uniformity_model import Cause
from .uniformity_state import State
from .uniformity_steps import IfNode


def span(item) -> tuple:
    """An item's kind and the lines it covers."""
    if type(item) is tuple:
        return (0, item[0], item[0])
    return (1 if type(item) is IfNode else 2, item.line, _last_line(item))


def _last_line(node) -> int:
    if node.end_line is not None:
        return node.end_line
    last = node.line
    for part in ((node.then, node.else_ or []) if type(node) is IfNode else (node.body,)):
        for item in part:
            last = max(last, item[0] if type(item) is tuple else _last_line(item))
    return last


def changed_lines(old: list, new: list) -> tuple[int, int] | None:
    """The first and last line whose instructions differ between two (line, instruction)
    lists (unchanged entries are the very same objects), or None when they are equal."""
    n, m = len(new), len(old)
    first = 0
    while first < n and first < m and new[first] is old[first]:
        first += 1
    if first == n == m:
        return None
    suffix = 0
    while suffix < n - first and suffix < m - first and new[n - 1 - suffix] is old[m - 1 - suffix]:
        suffix += 1
    lines = [entry[0] for entry in new[first:n - suffix]] + \
            [entry[0] for entry in old[first:m - suffix]]
    if not lines:   # only an insertion point: the neighbours bound it
        lines = [e[0] for e in (new[first - 1:first] + new[n - suffix:n - suffix + 1])] or [0]
    return min(lines), max(lines)


def has_call(items) -> bool:
    for item in items:
        if type(item) is tuple:
            if item[1].mnemonic == "call":
                return True
        elif type(item) is IfNode:
            if has_call(item.then) or (item.else_ and has_call(item.else_)):
                return True
        elif has_call(item.body):
            return True
    return False


def same_state(a: State, b: State) -> bool:
    """Equal levels, and causes equal link by link."""
    if a.lv != b.lv:
        return False
    seen: set[tuple[int, int]] = set()
    for key, cause in a.why.items():
        if not _same_cause(cause, b.why.get(key), seen):
            return False
    return len(a.why) == len(b.why)


def _same_cause(x: Cause | None, y: Cause | None, seen: set[tuple[int, int]]) -> bool:
    while x is not None and y is not None:
        if x is y or (id(x), id(y)) in seen:
            return True
        if (x.line, x.start, x.end, x.text) != (y.line, y.start, y.end, y.text):
            return False
        seen.add((id(x), id(y)))
        x, y = x.parent, y.parent
    return x is None and y is None


CHECKPOINT_EVERY = 32   # plain instructions between saved states (every construct gets one)


class TopLevelRun:
    """What the next analysis of the kernel needs from this one: the items' spans, the state
    (and event count) before some items — every `if`/`loop` and every 32nd item — and the
    events and final state."""

    __slots__ = ("instructions", "spans", "checkpoints", "events", "final")

    def __init__(self, instructions: list) -> None:
        self.instructions = instructions   # the kernel's (line, instruction) list, copied
        self.spans: list[tuple] = []
        self.checkpoints: dict[int, tuple[State, int]] = {}
        self.events: list = []
        self.final: State | None = None


def run_top_level(analysis, items: list, instructions: list,
                  previous: TopLevelRun | None) -> tuple[State, TopLevelRun]:
    """Run `analysis._block` over the top-level items, reusing `previous` where it provably
    gives the same. Returns the final state and the record of this run."""
    record = TopLevelRun(list(instructions))
    record.spans = spans = [span(item) for item in items]
    n = len(items)
    start, resume = 0, n
    if previous is not None:
        old = previous.spans
        changed = changed_lines(previous.instructions, record.instructions)
        lo, hi = changed if changed is not None else (-1, -2)   # (-1, -2): no line changed

        def same(i: int, j: int) -> bool:
            return spans[i] == old[j] and (spans[i][2] < lo or spans[i][1] > hi)

        limit = min(n, len(old))
        while start < limit and same(start, start):
            start += 1
        suffix = 0
        while (suffix < n - start and suffix < len(old) - start
               and same(n - 1 - suffix, len(old) - 1 - suffix)):
            suffix += 1
        resume = n - suffix   # from here on the items equal the previous run's tail
        # restart from the last saved state at or before the first changed item
        start = max((k for k in previous.checkpoints if k <= start), default=0)
        state, count = previous.checkpoints.get(start, (State(), 0))
        state = state.copy()
        analysis.events = previous.events[:count]
        record.checkpoints = {k: v for k, v in previous.checkpoints.items() if k < start}
    else:
        state = State()
        analysis.events = []
    for i in range(start, n):
        item = items[i]
        if previous is not None and i >= resume:
            j = i - n + len(previous.spans)
            saved = previous.checkpoints.get(j)
            if saved is not None and same_state(state, saved[0]):
                shift = len(analysis.events) - saved[1]
                for k, (st, count) in previous.checkpoints.items():
                    if k >= j:
                        record.checkpoints[k - j + i] = (st, count + shift)
                analysis.events = analysis.events + previous.events[saved[1]:]
                record.events = analysis.events
                record.final = previous.final
                return previous.final.copy(), record
        if i == 0 or type(item) is not tuple or i % CHECKPOINT_EVERY == 0:
            record.checkpoints[i] = (state.copy(), len(analysis.events))
        state = analysis._block([item], state, ())
    record.events = analysis.events
    record.final = state.copy()
    return state, record
