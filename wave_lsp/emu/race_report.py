"""The `data_race` warnings, the same text on both engines: a race between two workgroups
(`workgroup_races` finds it on the numpy engine, native/meeting.c on the core) and a race between
two waves of a workgroup (`racecheck` on the numpy engine, native/waverace.c on the core). No
numpy."""

from __future__ import annotations

from dataclasses import dataclass

from .report import EmuWarning

# the race check between waves (`racecheck`, native/waverace.c alike)
MAX_GROUPS = 256          # words examined for a non-benign race per epoch and workgroup
MAX_LOGGED = 4 << 20      # words logged per epoch before they are checked early (memory bound)


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


RACE_VERBS = {"read": "reads", "write": "writes", "atomic": "atomically updates"}


@dataclass(frozen=True)
class WaveAccess:
    """One access of a race between waves: instruction index, wave, lane in the wave, kind
    ("read", "write" or "atomic")."""

    index: int
    wave: int
    lane: int
    kind: str


def wave_race_kind(kinds: tuple[str, str], same_value: bool) -> str:
    """What a race only the strict check reports is, said after its message (else "")."""
    if same_value:
        return " (both wrote the same value)"
    if "atomic" in kinds:
        return " (store vs atomic)" if "write" in kinds else " (read vs atomic)"
    return ""


def wave_race_warning(space: str, address: int, workgroup, first: WaveAccess,
                      other: WaveAccess, same_value: bool, pcs: list[int],
                      lines: list[int | None]) -> EmuWarning:
    """The `data_race` warning for two waves of `workgroup` (its id) accessing one word of
    `space` ("local" or "device") at byte `address` (local: in the workgroup's memory)."""
    i, j = first.index, other.index

    def where(k: int) -> str:
        return f"line {lines[k] + 1}" if lines[k] is not None else f"pc 0x{pcs[k]:04x}"

    message = (f"data race on {space} address 0x{address:x} in workgroup {workgroup}: wave "
               f"{first.wave} {RACE_VERBS[first.kind]} it ({where(i)}, lane {first.lane}) and "
               f"wave {other.wave} {RACE_VERBS[other.kind]} it ({where(j)}, lane {other.lane}) "
               "with no barrier between them" + wave_race_kind((first.kind, other.kind),
                                                               same_value))
    return EmuWarning("data_race", message, pcs[i], lines[i], workgroup, first.wave,
                      (first.lane,), 1, address=address, other_pc=pcs[j], other_line=lines[j],
                      other_workgroup=workgroup, other_wave=other.wave, other_lanes=(other.lane,),
                      other_access=other.kind)
