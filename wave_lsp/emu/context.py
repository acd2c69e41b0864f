"""Run-wide context shared by compiled instructions: statistics, warnings and the current batch."""

from __future__ import annotations

import numpy as np

from .report import EmuWarning, Stats
from .state import Batch

MAX_WARNINGS = 200


class RunContext:
    """Collects statistics and warnings for one run; knows the batch being executed."""

    def __init__(self, pcs: list[int], lines: list[int | None]):
        self.stats = Stats()
        self.warnings: list[EmuWarning] = []
        self._warning_index: dict[tuple[int, str], int] = {}
        self.batch: Batch | None = None
        self.pcs = pcs
        self.lines = lines
        self.index = 0              # instruction being executed (set on faults and polls)
        self.counts: list[int] = []  # present waves summed per instruction (statistics)
        self.executed = 0           # wave-instructions already moved from counts into stats
        self.extra_steps = 0        # instructions skipped over empty regions, this batch

    def skip(self, b: Batch, start: int, stop: int) -> None:
        """Account for instructions [start, stop) stepped over with no active lane."""
        present = b.present_count
        counts = self.counts
        for i in range(start, stop):
            counts[i] += present
        self.extra_steps += stop - start

    def warner(self, index: int):
        """A `warn(kind, message, lanes)` function for the instruction at `index`."""
        def warn(kind: str, message: str, lanes: np.ndarray) -> None:
            self.warn(index, kind, message, lanes)
        return warn

    def warn(self, index: int, kind: str, message: str, lanes: np.ndarray) -> None:
        key = (index, kind)
        lanes = np.asarray(lanes)
        count = int(lanes.size) if lanes.dtype != bool else int(lanes.sum())
        if lanes.dtype == bool:
            lanes = np.flatnonzero(lanes)
        if key in self._warning_index:
            i = self._warning_index[key]
            old = self.warnings[i]
            self.warnings[i] = EmuWarning(old.kind, old.message, old.pc, old.line, old.workgroup,
                                          old.wave, old.lanes, old.count + count)
            return
        if len(self.warnings) >= MAX_WARNINGS or not lanes.size:
            return
        b = self.batch
        wg, wave, _ = b.describe_lane(int(lanes[0]))
        in_wave = tuple(int(l) % b.W for l in lanes[:256]
                        if b.describe_lane(int(l))[:2] == (wg, wave))[:64]
        self._warning_index[key] = len(self.warnings)
        self.warnings.append(EmuWarning(kind, message, self.pcs[index], self.lines[index],
                                        wg, wave, in_wave, count))
