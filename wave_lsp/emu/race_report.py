"""A race between two workgroups (`workgroup_races` finds it on the numpy engine,
native/meeting.c on the core) and its `data_race` warning, the same text on both. No numpy."""

from __future__ import annotations

from dataclasses import dataclass

from .report import EmuWarning


@dataclass(frozen=True)
class Meeting:
    """Two accesses of different workgroups to one device word, the first a write or atomic."""

    address: int                   # byte address of the word
    write: tuple[int, int]         # (instruction index, global thread)
    other: tuple[int, int]
    other_writes: bool


def race_warning(meeting: Meeting, geo, pcs: list[int], lines: list[int | None],
                 instructions) -> EmuWarning:
    """The `data_race` warning for two workgroups' accesses to one device word (`instructions`:
    the kernel's, which say which access is an atomic)."""
    (i, thread), (j, other) = meeting.write, meeting.other

    def atomic(k: int) -> bool:
        access = instructions[k].spec.memory
        return access is not None and access.kind == "atomic"

    def place(t: int):
        wg, local = divmod(t, geo.threads_per_wg)
        return geo.workgroup_id(wg), local // geo.wave_width, local % geo.wave_width

    def where(k: int) -> str:
        return f"line {lines[k] + 1}" if lines[k] is not None else f"pc 0x{pcs[k]:04x}"

    (wg, wave, in_wave), (wg2, wave2, in_wave2) = place(thread), place(other)
    first = "updates it atomically" if atomic(i) else "writes it"
    second = "updates it atomically" if atomic(j) else \
        "writes it" if meeting.other_writes else "reads it"
    # an atomic orders nothing against a plain access of another workgroup
    unordered = ", a plain access racing an atomic" if atomic(i) or atomic(j) else \
        " with no atomic between them"
    message = (f"data race on device address 0x{meeting.address:x}: workgroup {wg} {first} "
               f"({where(i)}, thread {thread}) and workgroup {wg2} {second} "
               f"({where(j)}, thread {other}){unordered}; "
               "results are those of running workgroups one at a time, in order")
    return EmuWarning("data_race", message, pcs[i], lines[i], wg, wave, (in_wave,), 1,
                      address=meeting.address, other_pc=pcs[j], other_line=lines[j],
                      other_workgroup=wg2, other_wave=wave2, other_lanes=(in_wave2,),
                      other_access="write" if meeting.other_writes else "read")
