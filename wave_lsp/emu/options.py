"""How a launch runs and what the run records (`RunOptions`), apart from what runs (`Launch`).

Limits (`max_instructions`: wave-instructions of the whole launch, 0 = unlimited; `time_limit`:
seconds; `cancel`: a callable polled while running), the trace (`trace`: True for our format
with lines and masks, "upstream" for upstream's, or a callable sink taking one line), the
per-line recording of the editor's inline results (`record_threads`: None, "first_wave" or
global linear thread ids; `record_limit` executions kept per line), the uninitialised-read check
(`initcheck`), the numpy engine's batch size (`max_batch_lanes`), the engine (`engine`: "auto"
picks the native core when it can run the launch and falls back to numpy; "numpy"; "native",
which raises `EngineUnavailable` when the core cannot run it), the store-writer record
(`writers`: per device byte, the source line and lane of the last store), the write log
(`write_log`: who wrote every value of the recorded workgroups, `write_log.WriteLogger`; of
the workgroups `record_workgroups` (linear ids, None: all), in the window of each one's steps
`record_steps` ((first, end), end None: to the end), within `record_budget` bytes; the native
core keeps the written values during the run only with `record_values`, otherwise the log
rebuilds them on first use by running again: `write_log.WriteLog.values`) and
the per-line profile counters (`profile`; see `pipeline`). The command line's observers: the
memory access log (`mem_trace`: True writes it to stderr, "record" keeps it in
`report.mem_trace`, a callable takes each line; see `mem_access`; the native core logs it too),
the filter of both traces (`trace_filter`, a `trace_filter.TraceFilter`), the breakpoints
(`breakpoints`: `Breakpoint`s) and how a breakpoint asks what to do (`break_prompt`: a callable
taking the prompt and returning the answer, None at end of input; without one a breakpoint only
writes the state; see `breakpoints`). `unobserved()` is the same run without them, as an editor
runs it. The data-race check between the waves of a workgroup (`racecheck`, `--racecheck`,
`isa.launch_defaults.RACECHECKS`): "benign" as compute-sanitizer's racecheck (atomics are not
checked, and waves that all store one same value to a word do not race), "strict" as the
specification and `wave-lsp verify` (any two unordered accesses to a byte, at least one a write,
not both atomic: a plain access meeting an atomic, and equal values stored, race too). No numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from .kernel_launch import LaunchError, launch_error
from ..isa.launch_defaults import RACECHECKS

ENGINES = ("auto", "native", "numpy")
DEFAULT_MAX_INSTRUCTIONS = 10_000_000
DEFAULT_RECORD_BUDGET = 256 << 20      # bytes of a run's write log (`--record-budget`, MiB)


@dataclass(frozen=True)
class RunOptions:
    """How to run a `Launch` (see the module doc); checked when made (`LaunchError`)."""

    max_instructions: int = DEFAULT_MAX_INSTRUCTIONS
    time_limit: float | None = None
    cancel: Callable[[], bool] | None = None
    trace: bool | str | Callable[[str], None] = False
    record_threads: str | Sequence[int] | None = None
    record_limit: int = 64
    initcheck: bool = True
    max_batch_lanes: int = 1 << 20
    engine: str = "auto"
    writers: bool = False
    profile: bool = False
    mem_trace: bool | str | Callable[[str], None] = False
    trace_filter: object | None = None
    breakpoints: tuple = ()
    break_prompt: Callable[[str], str | None] | None = None
    write_log: bool = False
    record_workgroups: tuple[int, ...] | None = None
    record_steps: tuple[int, int | None] | None = None
    record_budget: int = DEFAULT_RECORD_BUDGET
    record_values: bool = False
    racecheck: str = RACECHECKS[0]

    def unobserved(self) -> RunOptions:
        """These options without the command line's observers (trace, memory trace, trace
        filter, breakpoints): what an editor, a kernel test or the debugger runs."""
        from dataclasses import replace
        return replace(self, trace=False, mem_trace=False, trace_filter=None, breakpoints=(),
                       break_prompt=None)

    @property
    def observed(self) -> bool:
        """Whether the command line's observers see a numpy-engine run of these options (the
        numpy engine then steps through every instruction, as `--trace` shows them)."""
        return bool(self.trace or self.mem_trace or self.breakpoints)

    def __post_init__(self) -> None:
        if not isinstance(self.max_instructions, int) or self.max_instructions < 0:
            raise launch_error(f"--max-instructions: must be 0 (unlimited) or positive, got "
                               f"{self.max_instructions}", "--max-instructions")
        limit = self.time_limit
        if limit is not None and not (isinstance(limit, (int, float)) and math.isfinite(limit)
                                      and limit > 0):
            raise launch_error(f"--time-limit: must be a positive number of seconds, got "
                               f"{limit}", "--time-limit")
        if self.racecheck not in RACECHECKS:
            raise launch_error(f"--racecheck: must be one of {', '.join(RACECHECKS)}, got "
                               f"{self.racecheck!r}", "--racecheck")
        if self.engine not in ENGINES:
            raise LaunchError(f"engine: must be one of {', '.join(ENGINES)}, got "
                              f"{self.engine!r}")
        if self.trace not in (False, True, "upstream") and not callable(self.trace):
            raise LaunchError(f"trace: must be True, False, 'upstream' or a callable, got "
                              f"{self.trace!r}")
        if self.mem_trace not in (False, True, "record") and not callable(self.mem_trace):
            raise LaunchError(f"mem_trace: must be True, False, 'record' or a callable, got "
                              f"{self.mem_trace!r}")
        record = self.record_threads
        if record is not None and record != "first_wave" and (
                isinstance(record, str) or not all(isinstance(t, int) and t >= 0
                                                   for t in record)):
            raise LaunchError(f"record_threads: must be None, 'first_wave' or thread ids, got "
                              f"{record!r}")
        if self.record_limit < 0:
            raise LaunchError(f"record_limit: must not be negative, got {self.record_limit}")
        if self.max_batch_lanes < 1:
            raise LaunchError(f"max_batch_lanes: must be positive, got {self.max_batch_lanes}")
        if self.record_budget < 0:
            raise launch_error(f"--record-budget: must not be negative, got "
                               f"{self.record_budget}", "--record-budget")
        steps = self.record_steps
        if steps is not None and (steps[0] < 0 or (steps[1] is not None
                                                   and steps[1] <= steps[0])):
            raise launch_error(f"--record-steps: FIRST:END with 0 <= FIRST < END, got "
                               f"{steps[0]}:{'' if steps[1] is None else steps[1]}",
                               "--record-steps")
        if self.record_workgroups is not None and any(wg < 0 for wg in self.record_workgroups):
            raise launch_error("--record-workgroups: workgroup ids must not be negative",
                               "--record-workgroups")
        if self.cancel is not None and not callable(self.cancel):
            raise LaunchError("cancel: must be a callable returning True to stop the run")


class EngineUnavailable(LaunchError):
    """`RunOptions(engine="native")` and the native core cannot run the launch; `reason` says
    why (the fallback reason `run` would have reported)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the native core cannot run this launch: {reason}")
        self.reason = reason
