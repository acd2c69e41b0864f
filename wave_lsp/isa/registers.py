"""Registers: general registers, predicates and the 20 special registers (reference §2.4)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_REGISTER = 254          # r0..r254 are encodable; r255 is rejected upstream
PREDICATE_COUNT = 4         # p0..p3
DEFAULT_REGISTER_COUNT = 32  # `.registers` default written to the metadata
MAX_REGISTER_COUNT = 256     # the most registers a kernel may declare: 8-bit fields name r0-r255


def register_count_problem(count: int) -> str | None:
    """Why a declared register count (`.registers`, a `.wbin` record, `--registers`) cannot be
    run or translated, or None. Every reader of a count applies this one limit."""
    if 1 <= count <= MAX_REGISTER_COUNT:
        return None
    return f"the register count must be 1-{MAX_REGISTER_COUNT}, got {count}"
REGISTER_SUFFIXES = ("lo", "hi")  # accepted and ignored by the assembler


@dataclass(frozen=True)
class SpecialRegister:
    """A read-only, hardware-populated register readable with `mov_sr` (or `mov`)."""

    name: str
    index: int
    meaning: str
    value_range: str
    varies_per: str  # "thread", "wave", "workgroup" or "dispatch": where its value may differ


SPECIAL_REGISTERS: tuple[SpecialRegister, ...] = (
    SpecialRegister("sr_thread_id_x", 0, "Thread position within the workgroup, x",
                    "0 .. workgroup_size_x - 1", "thread"),
    SpecialRegister("sr_thread_id_y", 1, "Thread position within the workgroup, y",
                    "0 .. workgroup_size_y - 1", "thread"),
    SpecialRegister("sr_thread_id_z", 2, "Thread position within the workgroup, z",
                    "0 .. workgroup_size_z - 1", "thread"),
    SpecialRegister("sr_wave_id", 3, "Index of the wave within the workgroup",
                    "0 .. num_waves - 1", "wave"),
    SpecialRegister("sr_lane_id", 4, "Position of the thread within its wave",
                    "0 .. wave_width - 1", "thread"),
    SpecialRegister("sr_workgroup_id_x", 5, "Workgroup position within the grid, x",
                    "0 .. grid_size_x - 1", "workgroup"),
    SpecialRegister("sr_workgroup_id_y", 6, "Workgroup position within the grid, y",
                    "0 .. grid_size_y - 1", "workgroup"),
    SpecialRegister("sr_workgroup_id_z", 7, "Workgroup position within the grid, z",
                    "0 .. grid_size_z - 1", "workgroup"),
    SpecialRegister("sr_workgroup_size_x", 8, "Workgroup dimension x (threads)",
                    "1 .. MAX_WORKGROUP_SIZE", "dispatch"),
    SpecialRegister("sr_workgroup_size_y", 9, "Workgroup dimension y (threads)",
                    "1 .. MAX_WORKGROUP_SIZE", "dispatch"),
    SpecialRegister("sr_workgroup_size_z", 10, "Workgroup dimension z (threads)",
                    "1 .. MAX_WORKGROUP_SIZE", "dispatch"),
    SpecialRegister("sr_grid_size_x", 11, "Grid dimension x, counted in workgroups",
                    ">= 1", "dispatch"),
    SpecialRegister("sr_grid_size_y", 12, "Grid dimension y, counted in workgroups",
                    ">= 1", "dispatch"),
    SpecialRegister("sr_grid_size_z", 13, "Grid dimension z, counted in workgroups",
                    ">= 1", "dispatch"),
    SpecialRegister("sr_wave_width", 14, "Threads per wave (W)", "1 .. 64 (spec minimum 8)",
                    "dispatch"),
    SpecialRegister("sr_num_waves", 15, "Number of waves in the workgroup",
                    "ceil(workgroup threads / W)", "dispatch"),
    SpecialRegister("sr_mma_supported", 16, "1 when matrix multiply-accumulate is available",
                    "0 or 1", "dispatch"),
    SpecialRegister("sr_mma_m", 17, "MMA tile dimension M", "4 in the reference emulator",
                    "dispatch"),
    SpecialRegister("sr_mma_n", 18, "MMA tile dimension N", "4 in the reference emulator",
                    "dispatch"),
    SpecialRegister("sr_mma_k", 19, "MMA tile dimension K", "4 in the reference emulator",
                    "dispatch"),
)

SPECIAL_BY_NAME: dict[str, SpecialRegister] = {s.name: s for s in SPECIAL_REGISTERS}
SPECIAL_BY_INDEX: dict[int, SpecialRegister] = {s.index: s for s in SPECIAL_REGISTERS}
