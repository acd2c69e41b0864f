"""What a run returns: final memory, registers of interest, statistics, warnings, errors and the
per-line records the editor shows inline. Plain data, no behaviour beyond small conveniences.

Warnings (`EmuWarning`) name one place: `pc`, `line` (0-based, None for `.wbin` input),
`workgroup`, `wave` and `lanes` (lanes within that wave), `count` lane-events folded in. A
`data_race` warning (two workgroups or two waves touched one word, at least one writing, with
no atomic or barrier between) is about two places: the fields above are the writing side, and
`address` (byte address of the word), `other_pc`, `other_line`, `other_workgroup`,
`other_wave`, `other_lanes` and `other_access` ("read" or "write"; "atomic" under `--racecheck
strict`) are the other side. A client that shows warnings per line can show it at `line` and,
with the same message, at `other_line`. The `uninitialised_*` warnings
(a read of a register, local or device memory nothing wrote) are described in `initcheck`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .run_report import RunReport  # noqa: F401 - part of the report
from .stats import Stats  # noqa: F401 - part of the report

# Stable `EmuError.kind` values (other layers compare against these strings).
ERROR_KINDS = (
    "out_of_bounds", "divergent_barrier", "deadlock", "control_stack_overflow",
    "call_stack_overflow", "register_out_of_range", "instruction_limit", "time_limit",
    "cancelled", "invalid_instruction",
)

# Stable `EmuWarning.kind` values.
WARNING_KINDS = ("unaligned_access", "inactive_shuffle_source", "out_of_range_shuffle_source",
                 "guarded_structure", "data_race", "uninitialised_register",
                 "uninitialised_local", "uninitialised_device")


@dataclass(frozen=True)
class EmuError:
    """A run-time error that stopped the run."""

    kind: str
    message: str
    workgroup: tuple[int, int, int] | None = None
    wave: int | None = None
    lanes: tuple[int, ...] = ()
    pc: int | None = None        # byte offset within the kernel's code
    line: int | None = None      # 0-based source line when the program came from source
    details: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class EmuWarning:
    """Something that worked but is probably a bug (recorded once per instruction and kind)."""

    kind: str
    message: str
    pc: int | None = None
    line: int | None = None
    workgroup: tuple[int, int, int] | None = None
    wave: int | None = None
    lanes: tuple[int, ...] = ()
    count: int = 1               # how many lane-events were folded into this warning
    # data races only (kind "data_race"): the word's byte address and the other side
    address: int | None = None
    other_pc: int | None = None
    other_line: int | None = None
    other_workgroup: tuple[int, int, int] | None = None
    other_wave: int | None = None
    other_lanes: tuple[int, ...] = ()
    other_access: str | None = None     # "read", "write" or "atomic" (racecheck strict)


@dataclass
class WriteRecord:
    """What one execution of an instruction wrote, for the recorded threads that were active."""

    target: str                  # "r5", "p1", "device[0x100]", "local[0x10]", "mma C#0"
    values: dict[int, int]       # recorded thread id -> written bits (u32; 0/1 for predicates)
    kind: str = "u32"            # display hint: u32, i32, f32, f16, bf16, pred, f64lo, f64hi


@dataclass
class LineRecord:
    """Everything recorded for one source line (or, for `.wbin` input, one instruction)."""

    line: int | None
    pc: int
    mnemonic: str
    count: int = 0               # executions while a recorded thread's wave was present
    first_active: tuple[bool, ...] = ()   # per recorded thread, on the first execution
    writes: list[list[WriteRecord]] = field(default_factory=list)  # per execution (capped)
