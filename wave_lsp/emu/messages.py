"""The text of the emulator's run-time warnings and errors, the one place both engines take it
from (the numpy engine's ops and checks, and `native.findings`, which turns the native core's
findings into the same `EmuWarning` and `EmuError`). No numpy."""

from __future__ import annotations

TIME_LIMIT = "time limit exceeded"
CANCELLED = "run cancelled"
DEADLOCK = ("deadlock detected: a wave of the workgroup has halted while the others wait at a "
            "barrier")


def who(thread: int, workgroup: tuple[int, int, int], wave: int, lane: int) -> str:
    """One lane, as a warning names it."""
    return f"thread {thread}: workgroup {workgroup}, wave {wave}, lane {lane}"


def uninitialised_register(register: int, where: str) -> str:
    return (f"r{register} is read before anything wrote it ({where}); a GPU's registers are "
            "undefined at thread start (the emulator reads 0)")


def uninitialised_memory(space: str, address: int, where: str) -> str:
    wrote = ("no thread of the workgroup wrote it in this launch; a GPU's local memory is "
             "undefined at workgroup start" if space == "local" else
             "no --arg, fill, store or atomic initialised it; a GPU's device memory holds "
             "whatever was there")
    return f"{space} memory at 0x{address:x} is read but {wrote} ({where}; the emulator reads 0)"


def unaligned(width: int, space: str, address: int) -> str:
    return f"unaligned {width}-byte {space} access at address 0x{address:x}"


def inactive_shuffle(mnemonic: str) -> str:
    return f"{mnemonic} reads an inactive lane; the result is 0"


def out_of_range_shuffle(mnemonic: str) -> str:
    return f"{mnemonic} reads a lane outside the wave; the result is 0"


def out_of_bounds(address: int, width: int, space: str, size: int) -> str:
    return (f"memory access out of bounds: address 0x{address:016x} ({width}-byte {space} "
            f"access, {space} memory is {size} bytes)")


def mma_tile_out_of_bounds(address: int, size: int) -> str:
    return (f"memory access out of bounds: address 0x{address & 0xFFFFFFFFFFFFFFFF:016x} "
            f"(mma tile in local memory of {size} bytes)")


def control_stack_overflow(depth: int) -> str:
    return f"stack overflow: control flow (more than {depth} nested if/loop levels)"


def call_stack_overflow(depth: int) -> str:
    return f"stack overflow: call (more than {depth} nested calls)"


def divergent_barrier(active: int, expected: int) -> str:
    return f"barrier in divergent control flow: active lanes {active:#x}, expected {expected:#x}"


def register_out_of_range(registers: list[int], count: int) -> str:
    names = ", ".join(f"r{r}" for r in registers)
    return f"register {names} is beyond the kernel's {count} registers (.registers {count})"


def instruction_limit(executed: int, limit: int) -> str:
    return (f"instruction limit exceeded: {executed} instructions (limit: {limit} "
            "wave-instructions for the whole launch)")


def call_target(offset: int) -> str:
    return f"call target 0x{offset:x} is not the start of an instruction of this kernel"


def unmatched(what: str) -> str:
    """A control instruction out of place: "else" and "endif" without their if, "endloop"
    without its loop, "break" or "continue" outside of one."""
    return {"else": "else without matching if", "endif": "endif without matching if",
            "endloop": "endloop without matching loop"}.get(what, f"{what} outside of loop")
