"""The numpy engine's profile recorder: an observer of the run (see `observer`) that fills a
`profile.ProfileRecord`.

Executions follow `profile`'s rule: at every recorded width w, a group of w threads executes an
instruction when one of its lanes is active there (guard or not). The active mask is per lane,
so the groups are counted from the batch's own mask; `Batch.set_active` replaces the mask
rather than changing it, so the counts are redone only when the mask object changes. A
branch-like instruction (`profile.is_branch`) also counts, per width, the groups whose active
lanes its condition splits.
"""

from __future__ import annotations

import numpy as np

from ..isa import PREDICATE_COUNT
from .observer import Observer
from .profile import add_pattern, is_branch, new_record
from .state import Batch


class Profiler(Observer):
    """Records executions, divergent branches, executing lanes and memory access patterns per
    instruction."""

    kind = "profile"
    native = True

    def start(self, run) -> None:
        compiled, geo = run.compiled, run.geometry
        run.context.on_skip = self.skipped
        instructions = compiled.instructions
        self.record = new_record(geo.wave_width, instructions)
        self.widths = self.record.widths
        self.lanes_per_wg = geo.lanes_per_wg
        self.guards = [(i.pred_reg, i.pred_neg) if i.guarded else None for i in instructions]
        self.branches = [_condition(i) if is_branch(i) else None for i in instructions]
        self.memory = [(i.rs1, self.record.accesses[k]) if k in self.record.accesses else None
                       for k, i in enumerate(instructions)]
        self._executions = np.zeros_like(self.record.executions)
        self._lanes = [0] * len(instructions)
        self._visits: list[int] = []          # instructions run since the mask last changed
        self._active = None                   # the mask `_waves` and `_count` are of
        self._waves = np.zeros(len(self.widths), dtype=np.int64)
        self._count = 0

    # ---- the observer protocol ---------------------------------------------------------------
    def attach(self, b: Batch) -> None:
        self._follow(b.active, b)

    def before(self, index: int, b: Batch):
        if b.active is not self._active:
            self._follow(b.active, b)
        if not self._count:
            return None
        guard = self.guards[index]
        if guard is None:
            mask, count = b.active, self._count
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
                add_pattern(self.record, accesses, None, values, b.n, self.lanes_per_wg)
            else:
                lanes = np.flatnonzero(mask)
                add_pattern(self.record, accesses, lanes, values[lanes], b.n, self.lanes_per_wg)
        branch = self.branches[index]
        if branch is not None:
            self._divergence(index, b, mask, branch)
        return None

    def after(self, index: int, b: Batch, before) -> None:
        """Nothing: the next `before` sees the mask the instruction left."""

    def fill(self, report) -> None:
        report.profile = self.record

    def skipped(self, start: int, stop: int) -> None:
        """Instructions [start, stop) stepped over with no active lane (`RunContext.skip`):
        no wave executes them."""

    def finish(self) -> None:
        self._flush()
        self.record.executions += self._executions
        self.record.active_lanes += np.array(self._lanes, dtype=np.int64)
        self._executions[:] = 0
        self._lanes = [0] * len(self._lanes)

    # ---- groups at every width ---------------------------------------------------------------
    def _follow(self, active: np.ndarray, b: Batch) -> None:
        """Count the instructions run under the previous mask, then the groups of `active`."""
        self._flush()
        self._active = active
        self._count = int(np.count_nonzero(active))
        rows = active.reshape(b.wg_count, self.lanes_per_wg)
        self._waves = np.array([int(_any(rows, w).sum()) if self._count else 0
                                for w in self.widths], dtype=np.int64)

    def _flush(self) -> None:
        """Add the groups of the current mask to the executions of every instruction run since
        it was set."""
        if self._visits:
            visits = np.bincount(self._visits, minlength=len(self._lanes))
            self._executions += visits[:, None] * self._waves
            self._visits = []

    def _divergence(self, index: int, b: Batch, executing: np.ndarray, branch) -> None:
        """Groups whose active lanes the branch at `index` splits: some take it, some not."""
        if branch == "call":
            taken = executing
        elif branch >= PREDICATE_COUNT:
            return                                 # the instruction faults
        else:
            taken = executing & b.P[branch]
        rest = b.active & ~taken
        if not taken.any() or not rest.any():
            return
        shape = (b.wg_count, self.lanes_per_wg)
        taken, rest = taken.reshape(shape), rest.reshape(shape)
        split = [int((_any(taken, w) & _any(rest, w)).sum()) for w in self.widths]
        self.record.divergent[index] += np.array(split, dtype=np.int64)


def _condition(ins):
    """A branch's condition: the predicate of `if`/`break`/`continue`, or "call" (its guard)."""
    return "call" if ins.spec.mnemonic == "call" else ins.rs1


def _any(mask: np.ndarray, width: int) -> np.ndarray:
    """Per workgroup row, whether each group of `width` consecutive lanes has a lane set."""
    rows, cols = mask.shape
    if cols % width:
        pad = np.zeros((rows, width - cols % width), dtype=bool)
        mask = np.concatenate([mask, pad], axis=1)
    return mask.reshape(rows, -1, width).any(axis=2)
