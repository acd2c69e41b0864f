"""The history of a debug session's run, for reverse execution: checkpoints plus re-execution.

The emulator is deterministic, so any earlier moment of the run is reached by restoring the
nearest earlier checkpoint (`SteppingRun.snapshot`) and stepping forward again. A moment is a
*position*: the number of steps taken since the launch began (`SteppingRun.position`; one step
runs one instruction for every wave of the current workgroup, so a position names a workgroup
and an instruction count within it).

While the run goes forward a checkpoint is taken every `interval` steps: a power of two, at least
64, chosen from the measured (smoothed) cost of a checkpoint and of a step so that checkpoints
take about a tenth of the forward time (a reverse step then re-executes about ten checkpoints'
time at most). Checkpoints live within
a memory budget (`checkpointBudgetMiB`, default `DEFAULT_BUDGET_MIB`): when the next one would
exceed it, every other checkpoint is dropped and the interval doubles, so the history stays
complete and a reverse step re-executes at most `interval` steps more. When a single
checkpoint is larger than the budget, reverse execution is off and `off` says why.

Editing the state (setVariable, writeMemory) makes the run differ from its history: the
history then starts again at that moment (`restart_here`).
"""

from __future__ import annotations

import bisect
import time

from ..emu import FAULTED, FINISHED

DEFAULT_BUDGET_MIB = 256
DEFAULT_INTERVAL = 64
MAX_REPLAY = 50_000_000        # steps one reverse request may re-execute
SHARE = 0.1                    # at most this share of forward time goes to checkpoints


class TimelineError(Exception):
    """A reverse request that cannot be served (the message is for the user)."""


class Timeline:
    """Checkpoints of one `SteppingRun`, each with the session data `extra` saved beside it."""

    def __init__(self, budget_mib: float = DEFAULT_BUDGET_MIB, interval: int = DEFAULT_INTERVAL,
                 notify=None, on_restore=None, on_step=None):
        """`notify(text)` tells the user about the budget; `on_restore(extra)` and
        `on_step(index)` keep the session's own data in step with the run."""
        self.budget = int(budget_mib * 1024 * 1024)
        self.first_interval = interval
        self.notify = notify or (lambda text: None)
        self.on_restore = on_restore or (lambda extra: None)
        self.on_step = on_step or (lambda index: None)
        self.positions: list[int] = []
        self.checkpoints: dict[int, tuple[object, object]] = {}
        self.interval = interval
        self.used = 0
        self.off: str | None = None
        self.thinned = False
        self.edited = False        # the history starts where the user edited the state
        self.since = 0.0           # when the last checkpoint was taken (perf_counter)
        self.last_at = 0           # and at which position
        self.floor = interval      # the least interval (doubled when the budget thins)
        self.costs: list[float] = [0.0, 0.0]    # smoothed seconds per checkpoint, per step

    @property
    def start(self) -> int:
        """The earliest position the history reaches."""
        return self.positions[0] if self.positions else 0

    def restart_here(self, run, extra) -> None:
        """Forget the history; it starts at the run's current position."""
        self.positions, self.checkpoints, self.used = [], {}, 0
        self.interval, self.off, self.thinned = self.first_interval, None, False
        self.edited = False
        self.since, self.last_at = time.perf_counter(), run.position
        self.floor, self.costs = self.first_interval, [0.0, 0.0]
        checkpoint = run.snapshot()
        if checkpoint.nbytes > self.budget:
            self.off = (f"reverse execution is off for this launch: one checkpoint takes "
                        f"{_mib(checkpoint.nbytes)} MiB, more than the checkpoint budget of "
                        f"{_mib(self.budget)} MiB (raise the launch attribute "
                        f"'checkpointBudgetMiB' or the setting wave-lsp.debug."
                        f"checkpointBudgetMiB, or launch fewer workgroups)")
            self.notify(self.off + "\n")
            return
        self._keep(checkpoint, extra)

    def record(self, run, extra) -> None:
        """Called after each forward step: take a checkpoint every `interval` steps."""
        position = run.position
        if self.off is not None or position % self.interval or run.finished \
                or (self.positions and position <= self.positions[-1]):
            return
        last = self.checkpoints[self.positions[-1]][0] if self.positions else None
        began = time.perf_counter()
        checkpoint = run.snapshot(last)
        now = time.perf_counter()
        self._pace(now - began, (began - self.since) / max(1, position - self.last_at))
        self.since, self.last_at = now, position
        while self.used + self._added(checkpoint) > self.budget and len(self.positions) > 1:
            self._thin()
            if position % self.interval:
                return
        if self.used + self._added(checkpoint) > self.budget:
            return
        self._keep(checkpoint, extra)

    def _added(self, checkpoint) -> int:
        """The memory keeping `checkpoint` adds (device pages it shares with the last one are
        already counted)."""
        last = self.checkpoints[self.positions[-1]][0].all_pages if self.positions else ()
        shared = {id(page) for page in last}
        return checkpoint.own_bytes + sum(p.nbytes for p in checkpoint.all_pages
                                          if id(p) not in shared)

    def _pace(self, snapshot: float, step: float) -> None:
        """The interval from the smoothed costs of a checkpoint and of a step."""
        costs = self.costs
        costs[0] = snapshot if not costs[0] else 0.7 * costs[0] + 0.3 * snapshot
        costs[1] = step if not costs[1] else 0.7 * costs[1] + 0.3 * step
        wanted = costs[0] / (SHARE * costs[1]) if costs[1] > 0 else 0
        interval = self.floor
        while interval < wanted:
            interval *= 2
        self.interval = interval

    def _keep(self, checkpoint, extra) -> None:
        self.used += self._added(checkpoint)
        self.positions.append(checkpoint.position)
        self.checkpoints[checkpoint.position] = (checkpoint, dict(extra))

    def _recount(self) -> None:
        """`used` again from the checkpoints kept (each distinct device page once)."""
        pages: dict[int, int] = {}
        used = 0
        for checkpoint, _ in self.checkpoints.values():
            used += checkpoint.own_bytes
            for page in checkpoint.all_pages:
                pages[id(page)] = page.nbytes
        self.used = used + sum(pages.values())

    def _thin(self) -> None:
        """Drop every other checkpoint after the first; the interval doubles."""
        self.floor = max(self.floor * 2, self.interval * 2)
        self.interval = self.floor
        first = self.positions[0]
        kept = [first] + [p for p in self.positions[1:] if p % self.interval == 0]
        for p in set(self.positions) - set(kept):
            del self.checkpoints[p]
        self.positions = kept
        self._recount()
        if not self.thinned:
            self.thinned = True
            self.notify(f"checkpoint budget of {_mib(self.budget)} MiB reached: keeping a "
                        f"checkpoint every {self.interval} steps from now on (reverse steps "
                        f"re-execute more; raise 'checkpointBudgetMiB' to keep more)\n")

    def drop_after(self, position: int) -> None:
        """Forget checkpoints after `position` (the run's future changed)."""
        i = bisect.bisect_right(self.positions, position)
        for p in self.positions[i:]:
            del self.checkpoints[p]
        del self.positions[i:]
        self._recount()

    # ---- travelling --------------------------------------------------------------------------
    def check(self) -> None:
        if self.off is not None:
            raise TimelineError(self.off)
        if not self.positions:
            raise TimelineError("no history is recorded yet")

    def segments_before(self, position: int):
        """(checkpoint position, end) windows covering [start, position), latest first."""
        self.check()
        i = bisect.bisect_right(self.positions, max(position - 1, self.start)) - 1
        end = position
        while i >= 0:
            begin = self.positions[i]
            if begin < end:
                yield begin, end
            end = begin
            i -= 1

    def restore(self, run, at: int) -> None:
        """Restore the checkpoint at position `at` (and the session data saved with it)."""
        checkpoint, extra = self.checkpoints[at]
        run.restore(checkpoint)
        self.on_restore(dict(extra))

    def seek(self, run, position: int, cancelled=None) -> None:
        """Bring `run` to `position` (≥ `start`) by re-execution from the nearest checkpoint."""
        self.check()
        if position < self.start:
            raise TimelineError(f"step {position} is before the recorded history "
                                f"(it starts at step {self.start})")
        if position == run.position and not run.finished and run.error is None:
            return
        self.restore(run, self.positions[bisect.bisect_right(self.positions, position) - 1])
        self.replay(run, position, cancelled=cancelled)

    def replay(self, run, end: int, visit=None, cancelled=None) -> None:
        """Step `run` forward to position `end` (or its end); `visit(run)` before each step
        may return a callable, called with the run after that step."""
        if end - run.position > MAX_REPLAY:
            raise TimelineError(f"that moment is {end - run.position} steps away; at most "
                                f"{MAX_REPLAY} are re-executed at once")
        while run.position < end:
            if cancelled is not None and cancelled.is_set():
                raise TimelineError("cancelled")
            after = visit(run) if visit is not None else None
            index = run.index
            result = run.step()
            self.on_step(index)
            if after is not None:
                after(run)
            if result in (FAULTED, FINISHED):
                break


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.3g}"
