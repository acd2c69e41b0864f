"""The vocabulary of static verification: the geometry a kernel is verified under, the verdict
per kernel and the witness of a race or a divergent barrier. Plain data (no solver): the CLI, the
editor and the JSON output read it without loading z3."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ...isa.launch_defaults import DEFAULT_LOCAL_MEMORY

PROVED, RACE, DIVERGENCE, UNKNOWN = "proved", "race", "divergence", "unknown"
VERDICTS = (PROVED, RACE, DIVERGENCE, UNKNOWN)


@dataclass(frozen=True)
class Geometry:
    """The launch a kernel is verified under: threads per workgroup, lanes per wave, and the grid
    in workgroups (None: unbounded, any number of workgroups in each dimension). Sizes of the
    memories bound the addresses a witness may use (an access outside them is an error of its
    own, not a race). `inputs`: registers a launch sets (the others start at zero); None: every
    register a kernel reads before writing is a symbolic kernel argument."""

    workgroup: tuple[int, int, int]
    wave_width: int
    grid: tuple[int, int, int] | None = None
    local_memory: int = DEFAULT_LOCAL_MEMORY
    device_memory: int = 1 << 20             # `wave-lsp run`'s (launch table) default
    inputs: dict[int, int] | None = None     # initial registers fixed by a launch, else any

    @property
    def threads(self) -> int:
        x, y, z = self.workgroup
        return x * y * z


@dataclass(frozen=True)
class Thread:
    """One thread of a witness: workgroup and thread ids (x, y, z), its global linear id."""

    workgroup: tuple[int, int, int]
    thread: tuple[int, int, int]
    global_id: int
    wave: int
    lane: int


@dataclass(frozen=True)
class Witness:
    """How a kernel fails. A race: `space`, the first shared byte `address`, two threads, the
    1-based source lines of their accesses and what they are ("read", "write", "atomic"). A
    divergence: the barrier's line for both threads (one reaches it, the other does not).
    `inputs`: the initial registers (kernel arguments) the witness needs; `memory`: the device
    words (4-aligned address -> 32-bit value) whose loaded values it needs — not set by its
    launch (docs/dev/verify.md says why); `exact`: found without
    any over-approximation (loop summaries, values loaded from memory), so it is a real
    execution; otherwise it holds only once a replay shows it."""

    kind: str
    threads: tuple[Thread, Thread]
    lines: tuple[int, int]
    accesses: tuple[str, str] = ()
    space: str | None = None
    address: int | None = None
    inputs: dict[int, int] = field(default_factory=dict)
    exact: bool = True
    grid: tuple[int, int, int] = (1, 1, 1)
    memory: dict[int, int] = field(default_factory=dict)   # device word -> the value loaded

    def launch_flags(self, geometry: Geometry) -> list[str]:
        """`wave-lsp run` flags that launch the two threads (the smallest grid holding both
        workgroups) with the witness's kernel arguments; a race's run checks races as the
        verifier defines them (`--racecheck strict`: a store racing an atomic, or two stores of
        one same value, are races too)."""
        x, y, z = geometry.workgroup
        flags = ["--grid", ",".join(map(str, self.grid)), "--workgroup", f"{x},{y},{z}",
                 "--wave-width", str(geometry.wave_width)]
        if self.kind == RACE:
            flags += ["--racecheck", "strict"]
        top = max([self.address if self.space == "device" and self.address is not None
                   else -1] + list(self.memory))
        if top + 16 > geometry.device_memory:
            flags += ["--device-memory", str(top + 16)]
        fixed = geometry.inputs or {}
        for reg, value in sorted({**fixed, **self.inputs}.items()):
            flags += ["--set-reg", f"r{reg}:{value}"]
        return flags + memory_flags(self.memory)


def memory_flags(memory: dict[int, int]) -> list[str]:
    """`wave-lsp run` flags that write each device word of `memory` (address -> 32-bit value).
    No flag writes a word as such: `--fill-iota A-4:f32:2:S` writes 0·S (±0.0) at A-4 and the
    f32 S at A, so S is the word's bits read as an f32 (exact: every non-NaN f32 prints and
    parses back to itself), given from the highest address down so that each ±0.0 lands before
    the word below it is written (a word the witness depends on is never left so). A word at
    address 0 (no A-4) or whose bits are an infinity or a NaN (0·S would be a NaN; a NaN's
    payload is not kept) cannot be written so: it is left out (`unwritable`)."""
    out, left = [], unwritable(memory)
    for address, value in sorted(memory.items(), reverse=True):
        if address in left:
            continue
        scale = struct.unpack("<f", (value & 0xFFFFFFFF).to_bytes(4, "little"))[0]
        out += ["--fill-iota", f"{address - 4}:f32:2:{scale!r}"]
    return out


def unwritable(memory: dict[int, int]) -> set[int]:
    """The words of `memory` that `memory_flags` cannot write: at address 0, an infinity or a
    NaN."""
    return {a for a, v in memory.items() if a < 4 or (v >> 23) & 0xFF == 0xFF}


@dataclass
class Verdict:
    """The verdict on one kernel: `verdict` one of VERDICTS, `reason` why (always set for
    `unknown`), the witness of a race or divergence, and the seconds it took."""

    kernel: str
    verdict: str
    reason: str = ""
    witness: Witness | None = None
    elapsed: float = 0.0
    geometry: Geometry | None = None
    line: int = 0                        # the `.kernel` line (0-based), for editors

    @property
    def decided(self) -> bool:
        return self.verdict != UNKNOWN

    def launch(self) -> str:
        """The witness's launch as `wave-lsp run` flags (empty without a witness)."""
        if self.witness is None or self.geometry is None:
            return ""
        flags = self.witness.launch_flags(self.geometry)
        if self.kernel:
            flags += ["--kernel", self.kernel]
        return " ".join(flags)

    def as_json(self) -> dict:
        """The `--json` shape (docs/user/verify.md): kernel, verdict, reason, elapsed_ms, witness."""
        out = {"kernel": self.kernel, "verdict": self.verdict, "reason": self.reason,
               "elapsed_ms": round(self.elapsed * 1000, 1), "witness": None}
        w = self.witness
        if w is not None:
            out["witness"] = {
                "kind": w.kind, "space": w.space, "address": w.address,
                "threads": [t.global_id for t in w.threads],
                "lines": [line + 1 for line in w.lines],
                "accesses": list(w.accesses), "launch": self.launch(),
                "exact": w.exact,
                "inputs": {f"r{reg}": value for reg, value in sorted(w.inputs.items())},
                "memory": {str(address): value for address, value in w.memory.items()},
                "thread_ids": [{"workgroup": list(t.workgroup), "thread": list(t.thread),
                                "wave": t.wave, "lane": t.lane} for t in w.threads]}
        return out

    def summary(self) -> str:
        """One line for a terminal or a code lens: `✓ race-free (proved, 0.3 s)`..."""
        secs = f"{self.elapsed:.1f} s"
        if self.verdict == PROVED:
            return f"✓ race-free (proved, {secs})"
        w = self.witness
        if self.verdict == RACE and w is not None:
            return f"✕ race: line {w.lines[0] + 1} ↔ line {w.lines[1] + 1}"
        if self.verdict == DIVERGENCE and w is not None:
            return f"✕ divergent barrier: line {w.lines[0] + 1}"
        return f"? unknown: {self.reason}"
