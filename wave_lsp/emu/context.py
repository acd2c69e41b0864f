"""Run-wide context shared by compiled instructions: statistics, warnings and the current batch.

Warnings are reported as running the workgroups one at a time, in order, would report them,
whatever the batches (several workgroups run in lock-step): a warning is placed (workgroup, wave,
lanes, text) at the first event of the lowest workgroup that had it, the list is in the order
those places were first reached workgroup by workgroup, and at most MAX_WARNINGS are kept, the
first in that order; `count` folds in every event. The native core reports the same list."""

from __future__ import annotations

import numpy as np

from .race_report import WaveAccess, wave_race_warning
from .report import EmuWarning, Stats
from .state import Batch

MAX_WARNINGS = 200
class RunContext:
    """Collects statistics and warnings for one run; knows the batch being executed."""

    def __init__(self, pcs: list[int], lines: list[int | None]):
        self.stats = Stats()
        self.warnings: list[EmuWarning] = []        # in the order they were found
        self._warning_index: dict[tuple[int, str], int] = {}
        self._places: list[tuple[int, int]] = []    # per warning: (its workgroup, event number)
        self._events = 0
        self.batch: Batch | None = None
        self.pcs = pcs
        self.lines = lines
        self.index = 0              # instruction being executed (set on faults and polls)
        self.counts: list[int] = []  # present waves summed per instruction (statistics)
        self.executed = 0           # wave-instructions already moved from counts into stats
        self.extra_steps = 0        # instructions skipped over empty regions, this batch
        self._races: dict[tuple[str, int, int], int] = {}   # race -> its warning
        self.workgroup_race: EmuWarning | None = None   # workgroup_races: first a launch
        self.on_skip = None         # the profiler's `skipped(start, stop)`, when profiling

    def end_epoch(self, b: Batch) -> None:
        """A barrier or the end of the batch: report a race between waves of a workgroup in
        the epoch that ends (once per pair of instructions), and start a new epoch."""
        for log in b.epochs.values():
            for race in log.races():
                self._report_race(b, race)

    def _report_race(self, b: Batch, race) -> None:
        """A race between waves of a workgroup, once per pair of instructions: placed at the
        lowest workgroup that had it, as running the workgroups one at a time does (a batch
        may reach a higher workgroup's epoch first)."""
        key = (race.space, race.write[0], race.other[0])
        workgroup = b.first_wg + race.write[1] // b.lanes_per_wg
        i = self._races.get(key)
        if i is None:
            self._races[key] = self._add(self._race_warning(b, race), workgroup)
        elif workgroup < self._places[i][0]:
            self._events += 1
            self.warnings[i] = self._race_warning(b, race)
            self._places[i] = (workgroup, self._events)

    def _race_warning(self, b: Batch, race) -> EmuWarning:
        (i, lane), (j, other) = race.write, race.other
        wg, wave, in_wave = b.describe_lane(lane)
        _, wave2, in_wave2 = b.describe_lane(other)
        address = race.word * 4
        if race.space == "local":
            address -= (lane // b.lanes_per_wg) * b.local_stride
        return wave_race_warning(race.space, address, wg, WaveAccess(i, wave, in_wave,
                                                                     race.kinds[0]),
                                 WaveAccess(j, wave2, in_wave2, race.kinds[1]),
                                 race.same_value, self.pcs, self.lines)

    def skip(self, b: Batch, start: int, stop: int) -> None:
        """Account for instructions [start, stop) stepped over with no active lane."""
        present = b.present_count
        counts = self.counts
        for i in range(start, stop):
            counts[i] += present
        self.extra_steps += stop - start
        if self.on_skip is not None:
            self.on_skip(start, stop)

    def warner(self, index: int):
        """A `warn(kind, message, lanes)` function for the instruction at `index`."""
        def warn(kind: str, message: str, lanes: np.ndarray) -> None:
            self.warn(index, kind, message, lanes)
        return warn

    def warn(self, index: int, kind: str, message: str, lanes: np.ndarray) -> None:
        """`lanes` (batch lanes, ascending, or a mask) of instruction `index` met `kind`: one
        warning per instruction and kind (see the module doc)."""
        key = (index, kind)
        lanes = np.asarray(lanes)
        count = int(lanes.size) if lanes.dtype != bool else int(lanes.sum())
        if lanes.dtype == bool:
            lanes = np.flatnonzero(lanes)
        i = self._warning_index.get(key)
        if not lanes.size:
            return
        b = self.batch
        first = b.first_wg + int(lanes[0]) // b.lanes_per_wg
        if i is not None and first >= self._places[i][0]:
            old = self.warnings[i]
            self.warnings[i] = EmuWarning(old.kind, old.message, old.pc, old.line, old.workgroup,
                                          old.wave, old.lanes, old.count + count)
            return
        wg, wave, _ = b.describe_lane(int(lanes[0]))
        in_wave = tuple(int(l) % b.W for l in lanes[:256]
                        if b.describe_lane(int(l))[:2] == (wg, wave))[:64]
        warning = EmuWarning(kind, message, self.pcs[index], self.lines[index], wg, wave,
                             in_wave, count)
        if i is None:
            self._warning_index[key] = self._add(warning, first)
        else:             # a lower workgroup met it later in the batch: it is placed there
            self._events += 1
            self.warnings[i] = EmuWarning(kind, message, self.pcs[index], self.lines[index], wg,
                                          wave, in_wave, self.warnings[i].count + count)
            self._places[i] = (first, self._events)

    def _add(self, warning: EmuWarning, workgroup: int) -> int:
        self._events += 1
        self.warnings.append(warning)
        self._places.append((workgroup, self._events))
        return len(self.warnings) - 1

    def ordered_warnings(self) -> list[EmuWarning]:
        """The warnings as the report gives them (see the module doc)."""
        order = sorted(range(len(self.warnings)), key=self._places.__getitem__)
        return [self.warnings[i] for i in order[:MAX_WARNINGS]]
