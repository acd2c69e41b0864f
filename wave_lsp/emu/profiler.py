"""The numpy engine's profile recorder: an observer of the run (see `recording`) that fills a
`profile.ProfileRecord`.

Executions at every recorded width follow `control.py`'s notion of a *present* wave: a group of
w threads executes an instruction while it would still step through it running on its own. That
is: it has a live lane, and a lane of the *anchor* mask — every thread at the start; a loop's
remaining lanes from its second iteration on; the guard-passing lanes inside a guarded call —
with the anchor restored when the loop exits or the call returns. At the launch's width this is
exactly the engine's `present` (the statistics' counts), which the tests check.
"""

from __future__ import annotations

import numpy as np

from .profile import add_pattern, new_record
from .state import Batch

_CONTROL = frozenset({"loop", "endloop", "call", "return", "halt"})


class Profiler:
    """Records executions, executing lanes and memory access patterns per instruction."""

    single_workgroup = False

    def __init__(self, compiled, geo):
        instructions = compiled.instructions
        self.record = new_record(geo.wave_width, instructions)
        self.widths = self.record.widths
        self.lanes_per_wg = geo.lanes_per_wg
        self.guards = [(i.pred_reg, i.pred_neg) if i.guarded else None for i in instructions]
        self.control = [i.spec.mnemonic if i.spec.mnemonic in _CONTROL else None
                        for i in instructions]
        self.memory = [(i.rs1, self.record.accesses[k]) if k in self.record.accesses else None
                       for k, i in enumerate(instructions)]
        self.guarded_calls = [i.guarded for i in instructions]
        self._executions = np.zeros_like(self.record.executions)
        self._lanes = [0] * len(instructions)
        self._visits: list[int] = []          # instructions run since `present` last changed
        self.present = None

    # ---- the observer protocol ---------------------------------------------------------------
    def attach(self, b: Batch) -> None:
        self.anchor = np.ones(b.n, dtype=bool)
        self.stack: list = []                     # ("loop" | "call", anchor)
        self._active = None
        self._count = 0
        self._present(b)

    def before(self, index: int, b: Batch):
        guard = self.guards[index]
        if guard is None:
            mask = b.active
            if mask is not self._active:
                self._active = mask
                self._count = int(np.count_nonzero(mask))
            count = self._count
        else:
            mask = b.guard_mask(*guard)
            count = int(np.count_nonzero(mask))
        self._visits.append(index)
        self._lanes[index] += count
        memory = self.memory[index]
        if memory is not None and count:
            register, accesses = memory
            values = b.R[register]
            if count == b.n:
                add_pattern(accesses, None, values, b.n, self.lanes_per_wg)
            else:
                lanes = np.flatnonzero(mask)
                add_pattern(accesses, lanes, values[lanes], b.n, self.lanes_per_wg)
        if self.control[index] is None:
            return None
        return len(b.ctrl), len(b.calls), b.alive

    def after(self, index: int, b: Batch, before) -> None:
        if before is None:
            return
        depth, calls, alive = before
        name = self.control[index]
        changed = b.alive is not alive
        if name == "loop" and len(b.ctrl) > depth:
            self.stack.append(("loop", self.anchor))
        elif name == "endloop":
            if len(b.ctrl) == depth:              # another iteration: the remaining lanes
                self.anchor = b.active.copy()
            else:
                self.anchor = self.stack.pop()[1]
            changed = True
        elif name == "call" and len(b.calls) > calls:
            self.stack.append(("call", self.anchor))
            if self.guarded_calls[index]:
                self.anchor = b.active.copy()
                changed = True
        elif name == "return" and len(b.calls) < calls:
            while True:
                kind, anchor = self.stack.pop()
                if kind == "call":
                    break
            self.anchor = anchor
            changed = True
        if changed:
            self._present(b)

    def skipped(self, start: int, stop: int) -> None:
        """Instructions [start, stop) stepped over with no executing lane (`RunContext.skip`)."""
        self._executions[start:stop] += self.present

    def _flush(self) -> None:
        """Add `present` to the executions of every instruction run since it last changed."""
        if self._visits:
            visits = np.bincount(self._visits, minlength=len(self._lanes))
            self._executions += visits[:, None] * self.present
            self._visits = []

    def finish(self) -> None:
        self._flush()
        self.record.executions += self._executions
        self.record.active_lanes += np.array(self._lanes, dtype=np.int64)
        self._executions[:] = 0
        self._lanes = [0] * len(self._lanes)

    # ---- present groups at every width -------------------------------------------------------
    def _present(self, b: Batch) -> None:
        if self.present is not None:
            self._flush()
        per_wg = self.lanes_per_wg
        anchor = self.anchor.reshape(b.wg_count, per_wg)
        alive = b.alive.reshape(b.wg_count, per_wg)
        counts = []
        for width in self.widths:
            counts.append(int((_any(anchor, width) & _any(alive, width)).sum()))
        self.present = np.array(counts, dtype=np.int64)


def _any(mask: np.ndarray, width: int) -> np.ndarray:
    """Per workgroup row, whether each group of `width` consecutive lanes has a lane set."""
    rows, cols = mask.shape
    if cols % width:
        pad = np.zeros((rows, width - cols % width), dtype=bool)
        mask = np.concatenate([mask, pad], axis=1)
    return mask.reshape(rows, -1, width).any(axis=2)
