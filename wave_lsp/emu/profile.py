"""The kernel profile: per source line, what its executions cost on each target.

One run records (`ProfileRecord`, filled by `profiler.Profiler` in the numpy engine and by the
native core): per instruction, its wave-instructions executed and its divergent branches when
lanes are grouped into waves of every width of `RECORD_WIDTHS` (and the launch's), its executing
lanes, and the distinct memory access patterns with how often each ran. `profile_for(record,
target)` computes the counters of any `isa.profile_presets.PROFILE_PRESETS` from that record:

- `executions`: wave-instructions a GPU issues. A wave executes an instruction when
  at least one of its lanes is *active* there: in WAVE's structured control flow (if/else,
  loop/break/continue, call/return, halt) and not halted. The guard does not matter: a guarded
  instruction whose guard fails in every active lane is still issued, predicated off, as
  NVIDIA's `@P` and AMD's EXEC-masked instructions are. A wave with no active lane issues
  nothing: a compiler turns WAVE's structured regions into branches, and a wave whose lanes all
  skip a region (an `if` none of its lanes takes, the rest of a loop all its lanes left) takes
  that branch uniformly and never steps through the region. This is not `--stats`' count, which
  keeps upstream wave-emu's (`emu.stats`: waves still stepping through a region, active lanes
  or not).
- `active_lanes`: lanes that executed it (active and passing the guard);
  `lane_slots` = executions x wave width.
- `divergent_branches`: on a branch-like instruction (`if`, `break`, `continue`, a guarded
  `call`), the wave executions whose condition split the wave's active lanes: some take the
  branch (enter the `if`'s then side, leave the loop or iteration, enter the callee) and some
  do not. Nsight Compute's source view calls these "divergent branches"; a uniform branch
  counts 0. An `else` line has none of its own: its `if` made the split.
- local memory: per wave-instruction, the active lanes' `bank_bytes` units grouped by bank
  (unit index mod banks); the passes are the most distinct units in one bank (lanes reading one
  unit share it: a broadcast). Ideal: ceil(active lanes x access bytes / (banks x bank_bytes)).
- device memory: the distinct `sector_bytes` segments the active lanes' bytes touch; ideal:
  ceil(active lanes x access bytes / sector_bytes). Atomics are accesses of 4 bytes.

Another wave width regroups the launch's threads: thread t of a workgroup is lane t % w of wave
t // w. A lane's active mask does not depend on which lanes share its wave, so counters at
another width are exact whenever no thread's path or addresses depend on the wave width (no wave
operation, `sr_lane_id`, `sr_wave_id` or `sr_wave_width` feeding a branch or an address);
otherwise they describe the launch's threads regrouped, an estimate. At the launch's own width
they are exact always.

The patterns kept are bounded: at most `MAX_PATTERNS` distinct ones per instruction
and `MAX_PATTERN_WORDS` words (lanes and addresses) in the whole record, an instruction's first
pattern always kept. An access whose pattern is new once a bound is reached is counted
(`InstructionAccesses.dropped`, `dropped_lanes`) but not kept: that instruction's memory counters
are then estimated, those of its kept patterns scaled by its executing lanes over the kept ones'
(`KernelProfile.estimated` says which lines and what share of their lanes' accesses was kept).
A kernel whose addresses follow a new pattern every iteration would otherwise keep its whole
address trace. `profile_for` and `bank_layout` take a `check` callable, called between
instructions, that raises (`AnalysisStopped`) to stop the analysis at a time limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from typing import Callable

import numpy as np

from ..isa.profile_presets import ProfilePreset, profile_preset

RECORD_WIDTHS = (1, 2, 4, 8, 16, 32, 64, 128)
PATTERN_ALIGN = 4096         # patterns are kept relative to a base aligned to this many bytes
COUNTERS = ("executions", "active_lanes", "lane_slots", "local_wavefronts",
            "local_ideal_wavefronts", "global_sectors", "global_ideal_sectors",
            "divergent_branches")
MAX_PATTERNS = 256           # distinct access patterns kept per memory instruction...
MAX_PATTERN_WORDS = 1 << 20  # ...and words (lanes, addresses) kept in one record: 4 MiB
CHUNK_LANES = 1 << 15        # lanes counted by one numpy call (`_chunks`)
BRANCHES = frozenset({"if", "break", "continue"})     # and a guarded `call` (`is_branch`)


@dataclass(frozen=True)
class LineCounters:
    """The counters of one source line (`line` 0-based; the pc for `.wbin` input)."""

    line: int
    executions: int = 0
    active_lanes: int = 0
    lane_slots: int = 0
    local_wavefronts: int = 0
    local_ideal_wavefronts: int = 0
    global_sectors: int = 0
    global_ideal_sectors: int = 0
    divergent_branches: int = 0

    def to_json(self, by_pc: bool = False) -> dict:
        data = {"line": self.line if by_pc else self.line + 1}
        data.update({name: getattr(self, name) for name in COUNTERS})
        return data


@dataclass(frozen=True)
class KernelProfile:
    """The profile of one run under one preset: lines in source order, and kernel totals."""

    target: str
    lines: tuple[LineCounters, ...]
    totals: dict
    by_pc: bool = False                  # `.wbin` input: `line` is a pc
    preset: ProfilePreset | None = None
    # lines whose memory counters are estimated: line -> share of its lanes' accesses kept
    estimated: dict[int, float] = field(default_factory=dict)

    def to_json(self) -> dict:
        data = {"target": self.target, "lines": [c.to_json(self.by_pc) for c in self.lines],
                "totals": dict(self.totals)}
        if self.estimated:
            data["estimated"] = [{"line": line if self.by_pc else line + 1,
                                  "kept_share": round(share, 4)}
                                 for line, share in sorted(self.estimated.items())]
        return data

    def estimate_note(self, lines=None) -> str:
        """What says that the figures of the estimated lines (of `lines`, default all) are
        scaled from a sample ("" when none is)."""
        shown = sorted(line for line in self.estimated if lines is None or line in lines)
        if not shown:
            return ""
        names = ", ".join(f"0x{n:04x}" if self.by_pc else str(n + 1) for n in shown[:8]) + \
            (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
        low = min(self.estimated[n] for n in shown)
        what = ("pc" if self.by_pc else "line") + "s" * (len(shown) > 1)
        return (f"estimated: the memory figures of {what} {names} "
                f"are scaled from a sample ({_share(low)} or more of their accesses: the first "
                f"distinct access patterns of each instruction are kept, at most {MAX_PATTERNS} "
                f"and {MAX_PATTERN_WORDS * 4 >> 20} MiB in all; the others only counted)")

    def hottest(self) -> list[LineCounters]:
        """Lines by cost (wave-instructions plus memory passes: local wavefronts and device
        sectors), then source order."""
        return sorted(self.lines, key=lambda c: (-(c.executions + c.local_wavefronts
                                                   + c.global_sectors), c.line))


@dataclass
class AccessPattern:
    """One distinct access of a memory instruction by one lock-step step: the executing lanes
    (None: all `lanes` lanes of the step) and their addresses relative to an aligned base."""

    lanes: np.ndarray | None
    addresses: np.ndarray
    lane_count: int
    lanes_per_wg: int
    count: int = 1


@dataclass
class InstructionAccesses:
    space: str                   # "local" or "device"
    width: int                   # bytes per lane
    patterns: dict = field(default_factory=dict)     # key -> AccessPattern
    dropped: int = 0             # accesses whose new pattern was past the bounds: not kept...
    dropped_lanes: int = 0       # ...and their executing lanes

    def kept_share(self) -> float:
        """The share of the executing lanes' accesses whose pattern was kept (1.0: all)."""
        if not self.dropped:
            return 1.0
        kept = sum(p.count * (p.lane_count if p.lanes is None else p.lanes.size)
                   for p in self.patterns.values())
        return kept / (kept + self.dropped_lanes) if kept + self.dropped_lanes else 1.0


class AnalysisStopped(Exception):
    """The profile's counting was stopped (a time limit, a cancel): the message says which."""


@dataclass
class ProfileRecord:
    """What one run recorded (see the module doc); `profile_for` turns it into counters."""

    wave_width: int
    widths: tuple[int, ...]
    keys: tuple[int, ...]                # per instruction: its line (or pc when by_pc)
    by_pc: bool
    executions: np.ndarray               # (instructions, widths) int64
    active_lanes: np.ndarray             # (instructions,) int64
    divergent: np.ndarray                # (instructions, widths) int64: divergent branches
    accesses: dict[int, InstructionAccesses] = field(default_factory=dict)
    pattern_words: int = 0               # words the kept patterns hold (`MAX_PATTERN_WORDS`)

    def column(self, width: int, counts: np.ndarray | None = None) -> np.ndarray:
        """`counts` (default: the executions) at wave width `width`."""
        if width not in self.widths:
            raise ValueError(f"the profile records wave widths {', '.join(map(str, self.widths))}"
                             f"; {width} is not one of them")
        return (self.executions if counts is None else counts)[:, self.widths.index(width)]


def is_branch(ins) -> bool:
    """Whether a decoded instruction is branch-like: its condition may split a wave."""
    name = ins.spec.mnemonic
    return name in BRANCHES or (name == "call" and ins.guarded)


def record_widths(wave_width: int) -> tuple[int, ...]:
    return tuple(sorted(set(RECORD_WIDTHS) | {wave_width}))


def new_record(wave_width: int, instructions) -> ProfileRecord:
    """An empty record for a kernel's decoded instructions."""
    widths = record_widths(wave_width)
    by_pc = any(i.line is None for i in instructions)
    keys = tuple(i.offset if by_pc else i.line for i in instructions)
    record = ProfileRecord(wave_width, widths, keys, by_pc,
                           np.zeros((len(keys), len(widths)), dtype=np.int64),
                           np.zeros(len(keys), dtype=np.int64),
                           np.zeros((len(keys), len(widths)), dtype=np.int64))
    for index, ins in enumerate(instructions):
        access = ins.spec.memory
        if access is not None:
            record.accesses[index] = InstructionAccesses(access.space, access.width)
    return record


def add_pattern(record: ProfileRecord, accesses: InstructionAccesses, lanes,
                addresses: np.ndarray, lane_count: int, lanes_per_wg: int,
                count: int = 1) -> None:
    """Record one access (`lanes` None: every lane of the step) of byte `addresses`: its
    pattern counted, kept when new and within the bounds (the module doc)."""
    if not addresses.size:
        return
    base = int(addresses.min()) & ~(PATTERN_ALIGN - 1)
    relative = (addresses.astype(np.int64) - base).astype(np.uint32)
    key = (lane_count, b"" if lanes is None else lanes.tobytes(), relative.tobytes())
    known = accesses.patterns.get(key)
    if known is not None:
        known.count += count
        return
    words = relative.size * (1 if lanes is None else 2)
    if accesses.patterns and (len(accesses.patterns) >= MAX_PATTERNS
                              or record.pattern_words + words > MAX_PATTERN_WORDS):
        accesses.dropped += count
        accesses.dropped_lanes += count * relative.size
        return
    record.pattern_words += words
    accesses.patterns[key] = AccessPattern(None if lanes is None else np.array(lanes, np.int64),
                                           relative, lane_count, lanes_per_wg, count)


def _groups(pattern: AccessPattern, width: int, known: dict) -> tuple[np.ndarray, int]:
    """(the wave, of `width` lanes, of each executing lane, numbered within the pattern; the
    number of waves); `known` keeps those of patterns where every lane executes."""
    key = (pattern.lane_count, pattern.lanes_per_wg) if pattern.lanes is None else None
    if key in known:
        return known[key]
    lanes = (np.arange(pattern.lane_count, dtype=np.int64) if pattern.lanes is None
             else pattern.lanes)
    per_wg = -(-pattern.lanes_per_wg // width)
    groups = (lanes // pattern.lanes_per_wg) * per_wg + (lanes % pattern.lanes_per_wg) // width
    result = groups, int(groups.max()) + 1
    if key is not None:
        known[key] = result
    return result


def _gather(patterns, width: int):
    """Every pattern's lanes at once: (wave of each lane, numbered across the patterns; the
    lanes' addresses; how often each wave's pattern ran)."""
    groups, addresses, weights = [], [], []
    offset = 0
    known: dict = {}
    for pattern in patterns:
        g, top = _groups(pattern, width, known)
        groups.append(g + offset)
        addresses.append(pattern.addresses.astype(np.int64))
        weights.append(np.full(top, pattern.count, dtype=np.int64))
        offset += top
    return np.concatenate(groups), np.concatenate(addresses), np.concatenate(weights)


def _units(groups: np.ndarray, addresses: np.ndarray, size: int, unit: int):
    """(group, unit index) of every `unit`-byte unit each lane's `size` bytes touch."""
    first = addresses // unit
    last = (addresses + size - 1) // unit
    gs, us = [groups], [first]
    for extra in range(1, int((last - first).max()) + 1):
        more = first + extra <= last
        gs.append(groups[more])
        us.append(first[more] + extra)
    return np.concatenate(gs), np.concatenate(us)


def _ideal(groups: np.ndarray, weights: np.ndarray, size: int, per_pass: int) -> int:
    lanes = np.bincount(groups, minlength=weights.size)
    return int(((-(-(lanes * size) // per_pass)) * weights).sum())


def _chunks(patterns) -> list[list]:
    """The patterns in runs of about `CHUNK_LANES` lanes (a wave lies in one pattern, so the
    counts of the runs add up): every numpy call stays short and lets other threads run."""
    out: list[list] = [[]]
    lanes = 0
    for pattern in patterns:
        n = pattern.lane_count if pattern.lanes is None else pattern.lanes.size
        if out[-1] and lanes + n > CHUNK_LANES:
            out.append([])
            lanes = 0
        out[-1].append(pattern)
        lanes += n
    return out


def _summed(count, patterns, *args) -> tuple[int, int]:
    return tuple(map(sum, zip(*(count(chunk, *args) for chunk in _chunks(patterns)))))


def local_passes(patterns, size: int, width: int, banks: int,
                 bank_bytes: int) -> tuple[int, int]:
    """(wavefronts, ideal wavefronts) of local access patterns, each times its count."""
    return _summed(_local_passes, patterns, size, width, banks, bank_bytes)


def _local_passes(patterns, size: int, width: int, banks: int,
                  bank_bytes: int) -> tuple[int, int]:
    groups, addresses, weights = _gather(patterns, width)
    g, u = _units(groups, addresses, size, bank_bytes)
    span = int(u.max()) + 1
    distinct = np.unique(g * span + u)
    g, u = distinct // span, distinct % span
    per_bank, counts = np.unique(g * banks + u % banks, return_counts=True)
    passes = np.zeros(weights.size, dtype=np.int64)
    np.maximum.at(passes, per_bank // banks, counts)
    return int((passes * weights).sum()), _ideal(groups, weights, size, banks * bank_bytes)


def global_segments(patterns, size: int, width: int, sector: int) -> tuple[int, int]:
    """(sectors, ideal sectors) of device access patterns, each times its count."""
    return _summed(_global_segments, patterns, size, width, sector)


def _global_segments(patterns, size: int, width: int, sector: int) -> tuple[int, int]:
    groups, addresses, weights = _gather(patterns, width)
    g, u = _units(groups, addresses, size, sector)
    span = int(u.max()) + 1
    distinct = np.unique(g * span + u)
    sectors = np.bincount(distinct // span, minlength=weights.size)
    return int((sectors * weights).sum()), _ideal(groups, weights, size, sector)


def _scaled(passes: tuple[int, int], share: float) -> tuple[int, int]:
    return passes if share >= 1.0 else (round(passes[0] / share), round(passes[1] / share))


def _share(share: float) -> str:
    pct = 100 * share
    return "<0.1%" if pct < 0.1 else f"{pct:.1f}%" if pct < 10 else f"{round(pct)}%"


def profile_for(record: ProfileRecord, target: str | None = None,
                check: Callable[[], None] | None = None) -> KernelProfile:
    """The counters of `record` under the preset `target` (None: "default"); `check` is called
    before each memory instruction's counting (it raises to stop)."""
    preset = profile_preset(target)
    width = preset.wave_width or record.wave_width
    executions = record.column(width)
    n = len(record.keys)
    memory = np.zeros((n, 4), dtype=np.int64)
    estimated: dict[int, float] = {}
    for index, acc in record.accesses.items():
        patterns = list(acc.patterns.values())
        if not patterns:
            continue
        if check is not None:
            check()
        share = acc.kept_share()
        if share < 1.0:
            line = record.keys[index]
            estimated[line] = min(share, estimated.get(line, 1.0))
        if acc.space == "local":
            memory[index, 0:2] = _scaled(local_passes(patterns, acc.width, width, preset.banks,
                                                      preset.bank_bytes), share)
        else:
            memory[index, 2:4] = _scaled(global_segments(patterns, acc.width, width,
                                                         preset.sector_bytes), share)
    values = np.column_stack([executions, record.active_lanes, executions * width, memory,
                              record.column(width, record.divergent)])
    keys, where = np.unique(np.array(record.keys, dtype=np.int64), return_inverse=True)
    per_line = np.zeros((keys.size, len(COUNTERS)), dtype=np.int64)
    np.add.at(per_line, where.reshape(-1), values)
    lines = tuple(LineCounters(key, *row) for key, row in zip(keys.tolist(), per_line.tolist())
                  if row[0] or row[1])
    return KernelProfile(preset.name, lines, totals_of(lines, width, preset), record.by_pc,
                         preset, estimated)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def totals_of(lines, width: int, preset: ProfilePreset) -> dict:
    """Kernel totals: every counter summed, and the three ratios the table prints."""
    totals = {name: sum(getattr(c, name) for c in lines) for name in COUNTERS}
    totals["lane_utilisation"] = _ratio(totals["active_lanes"], totals["lane_slots"])
    totals["memory_efficiency"] = _ratio(totals["global_ideal_sectors"],
                                         totals["global_sectors"])
    totals["conflict_ratio"] = _ratio(totals["local_wavefronts"],
                                      totals["local_ideal_wavefronts"])
    totals.update(wave_width=width, banks=preset.banks, bank_bytes=preset.bank_bytes,
                  sector_bytes=preset.sector_bytes)
    return totals
