"""The data the uniformity pass carries: register levels with their causes (`State`), the
enclosing constructs (`IfFrame`, `LoopFrame`, `CallFrame`) and the barriers and wave operations
it meets (`Event`), which the divergence lints read."""

from __future__ import annotations

from dataclasses import dataclass, field

from .uniformity_model import Cause
from .uniformity_steps import IfNode, LoopNode, Step


@dataclass(slots=True)
class IfFrame:
    """An enclosing `if`: the level of its condition (guard included) and why."""

    node: IfNode
    level: int
    cause: Cause | None
    in_else: bool = False


@dataclass(slots=True)
class LoopFrame:
    """An enclosing `loop`: how much its exit may differ between threads, and its `continue`s."""

    node: LoopNode
    exit_level: int = 0
    exit_cause: Cause | None = None
    continues: list[tuple[int, int, Cause | None]] = field(default_factory=list)

    def skipping(self, line: int) -> tuple[int, Cause | None]:
        """The most varying `continue` before `line` (it skips what follows it), or (0, None)."""
        best: tuple[int, Cause | None] = (0, None)
        for at, level, cause in self.continues:
            if at < line and level > best[0]:
                best = (level, cause)
        return best


@dataclass(slots=True)
class CallFrame:
    """A `call` whose function body is being analysed in the caller's context."""

    line: int
    step: Step
    label: str


@dataclass(slots=True)
class Event:
    """A barrier or wave operation met in the final pass, with its surroundings."""

    line: int
    step: Step
    frames: tuple
    guard: tuple[int, Cause | None]
    halt: tuple[int, Cause | None]


class State:
    """Register/predicate levels (absent = DISPATCH) and their causes."""

    __slots__ = ("lv", "why")

    def __init__(self, lv: dict[int, int] | None = None,
                 why: dict[int, Cause] | None = None) -> None:
        self.lv = lv if lv is not None else {}
        self.why = why if why is not None else {}

    def copy(self) -> "State":
        return State(dict(self.lv), dict(self.why))

    def join(self, other: "State") -> None:
        """Raise every level to the other state's where that is higher."""
        lv, why = self.lv, self.why
        olv, owhy = other.lv, other.why
        for k, level in olv.items():
            if level > lv.get(k, 0):
                lv[k] = level
                why[k] = owhy.get(k)

    def raise_to(self, keys, level: int, make_cause) -> None:
        """Control dependence: every key in `keys` varies at least at `level`."""
        lv, why = self.lv, self.why
        for k in keys:
            if lv.get(k, 0) < level:
                lv[k] = level
                why[k] = make_cause(k)
