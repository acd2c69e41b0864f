"""The native core's findings (findings.c: warnings, and the error that stopped a run) as the
numpy engine's `EmuWarning` and `EmuError`, with its text (`emu.messages`), fields and lanes.

The core gives each finding as (kind, instruction, linear workgroup, first lane in the
workgroup, the lanes of that lane's wave as bits, count, detail, detail2, and for a race between
waves, waverace.c, the other access's instruction and lane and the race's flags: core.h's
Finding); the kinds are in the order of core.h's WARN_* and ERR_* (checked by the tests). No
numpy."""

from __future__ import annotations

from ...asm.ir import KernelCode
from ...isa import MAX_CALL_DEPTH, MIN_DIVERGENCE_DEPTH
from .. import messages
from ..geometry import Geometry
from ..race_report import WaveAccess, wave_race_warning
from ..report import EmuError, EmuWarning

WARNINGS = ("unaligned_access", "inactive_shuffle_source", "out_of_range_shuffle_source",
            "uninitialised_register", "uninitialised_local", "uninitialised_device",
            "data_race")
ACCESS_KINDS = ("read", "write", "atomic")       # a race's flags: waverace.c's kinds
ERRORS = ("out_of_bounds", "divergent_barrier", "deadlock", "control_stack_overflow",
          "call_stack_overflow", "register_out_of_range", "instruction_limit", "time_limit",
          "cancelled", "invalid_instruction")
UNMATCHED = ("else", "endif", "endloop", "break", "continue")   # INVALID_*; then the call target
# what is left in the core's state at an error the numpy engine reports the same way only when
# it runs that workgroup alone; the time limit and a cancel stop at no defined point anyway
TIMING = ("time_limit", "cancelled")


def _lanes(bits: int) -> tuple[int, ...]:
    return tuple(i for i in range(64) if bits >> i & 1)


class Findings:
    """Turns the core's findings about one run of `kernel` with geometry `geo` into reports."""

    def __init__(self, kernel: KernelCode, geo: Geometry, device_size: int,
                 max_instructions: int) -> None:
        self.kernel, self.geo = kernel, geo
        self.device_size, self.max_instructions = device_size, max_instructions

    def _place(self, workgroup: int, lane: int):
        """(workgroup id, wave, lane in the wave, global thread) of a lane of a workgroup."""
        wave, in_wave = divmod(lane, self.geo.wave_width)
        return (self.geo.workgroup_id(workgroup), wave, in_wave,
                workgroup * self.geo.threads_per_wg + lane)

    def warning(self, found: tuple) -> EmuWarning:
        kind, index, workgroup, lane, bits, count, detail, _, other, other_lane, race = found
        name = WARNINGS[kind]
        if name == "data_race":
            return self._wave_race(index, workgroup, lane, detail, other, other_lane, race)
        ins = self.kernel.instructions[index]
        wg, wave, in_wave, thread = self._place(workgroup, lane)
        where = messages.who(thread, wg, wave, in_wave)
        if name == "unaligned_access":
            access = ins.spec.memory
            message = messages.unaligned(access.width, access.space, detail)
        elif name == "inactive_shuffle_source":
            message = messages.inactive_shuffle(ins.spec.mnemonic)
        elif name == "out_of_range_shuffle_source":
            message = messages.out_of_range_shuffle(ins.spec.mnemonic)
        elif name == "uninitialised_register":
            message = messages.uninitialised_register(detail, where)
        else:
            message = messages.uninitialised_memory(name.removeprefix("uninitialised_"), detail,
                                                    where)
        return EmuWarning(name, message, ins.offset, ins.line, wg, wave, _lanes(bits), count)

    def _wave_race(self, index: int, workgroup: int, lane: int, address: int, other: int,
                   other_lane: int, flags: int) -> EmuWarning:
        """The `data_race` warning of a race between two waves of a workgroup (waverace.c)."""
        W = self.geo.wave_width
        pcs = [ins.offset for ins in self.kernel.instructions]
        lines = [ins.line for ins in self.kernel.instructions]
        return wave_race_warning(
            "device" if flags & 1 else "local", address, self.geo.workgroup_id(workgroup),
            WaveAccess(index, lane // W, lane % W, ACCESS_KINDS[flags >> 1 & 3]),
            WaveAccess(other, other_lane // W, other_lane % W, ACCESS_KINDS[flags >> 3 & 3]),
            bool(flags >> 5 & 1), pcs, lines)

    def error(self, found: tuple) -> EmuError:
        kind, index, workgroup, lane, bits, _, detail, detail2 = found[:8]
        instructions = self.kernel.instructions
        ins = instructions[index] if index < len(instructions) else None
        name = ERRORS[kind]
        details: dict = {}
        if name == "out_of_bounds" and ins.spec.memory is None:     # an mma tile
            message = messages.mma_tile_out_of_bounds(detail, self.geo.local_memory)
            details = {"address": detail, "space": "local", "width": detail2}
        elif name == "out_of_bounds":
            space = ins.spec.memory.space
            size = self.geo.local_memory if space == "local" else self.device_size
            message = messages.out_of_bounds(detail, detail2, space, size)
            details = {"address": detail, "space": space, "width": detail2}
        elif name == "divergent_barrier":
            message = messages.divergent_barrier(detail, detail2)
            details = {"active": detail, "expected": detail2}
        elif name == "deadlock":
            message = messages.DEADLOCK
        elif name == "control_stack_overflow":
            message = messages.control_stack_overflow(MIN_DIVERGENCE_DEPTH)
        elif name == "call_stack_overflow":
            message = messages.call_stack_overflow(MAX_CALL_DEPTH)
        elif name == "register_out_of_range":
            from .program import registers_beyond
            bad = registers_beyond(ins, self.geo.registers)
            message = messages.register_out_of_range(bad, self.geo.registers)
            details = {"registers": bad}
        elif name == "instruction_limit":
            message = messages.instruction_limit(detail, self.max_instructions)
        elif name == "time_limit":
            message = messages.TIME_LIMIT
        elif name == "cancelled":
            message = messages.CANCELLED
        else:
            message = (messages.unmatched(UNMATCHED[detail]) if detail < len(UNMATCHED)
                       else messages.call_target(ins.imm))
        workgroup_id = wave = None
        in_wave: tuple[int, ...] = ()
        if lane >= 0:
            workgroup_id, wave, _, thread = self._place(workgroup, lane)
            in_wave = _lanes(bits)
            details["thread"] = thread
            details["mnemonic"] = ins.spec.mnemonic
        return EmuError(name, message, workgroup_id, wave, in_wave,
                        None if ins is None else ins.offset, None if ins is None else ins.line,
                        details)
