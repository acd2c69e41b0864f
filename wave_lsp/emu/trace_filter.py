"""What the trace flags of `wave-lsp run` select: `--trace-wave N`, `--trace-lane N` and
`--trace-pc START:END` (a `TraceFilter`, for `--trace`, `--trace-lines` and `--mem-trace`), and
`--break PC|line:N` (a `Breakpoint`). Parsed here from their flag texts (`LaunchFlagError`, one
line naming the flag); a breakpoint is resolved against the kernel when the run starts
(`LaunchError`). No numpy.

- `--trace-wave N`: only wave N of each workgroup (the `wave[N]` of the trace lines).
- `--trace-lane N`: only lane N of a wave: a `--trace` line is kept when lane N executed the
  instruction (it was active and passed the guard); a `--mem-trace` line when lane N made the
  access.
- `--trace-pc START:END`: only instructions at byte offsets START <= pc < END (END exclusive,
  as `--dump-memory START:END`); either side may be left out (`0x40:` or `:0x80`).
- `--break PC` stops before the instruction at byte offset PC (decimal or 0x-hex, the `pc=`
  of the trace); `--break line:N` before the first instruction of 1-based source line N
  (`.wave` source only).
"""

from __future__ import annotations

from dataclasses import dataclass

from .launch_flags import LaunchFlagError, number
from .limits import MAX_WAVE_WIDTH

MAX_PC = (1 << 32) - 1


@dataclass(frozen=True)
class TraceFilter:
    """Which waves, lanes and pcs the trace lines are kept for (None: all)."""

    wave: int | None = None
    lane: int | None = None
    pc_start: int = 0
    pc_end: int | None = None       # exclusive; None: to the end of the code

    def keeps_pc(self, pc: int) -> bool:
        return self.pc_start <= pc and (self.pc_end is None or pc < self.pc_end)

    def keeps_wave(self, wave: int) -> bool:
        return self.wave is None or wave == self.wave


@dataclass(frozen=True)
class Breakpoint:
    """A `--break` value: a byte offset (`pc`) or a 1-based source line (`line`)."""

    pc: int | None = None
    line: int | None = None

    def __str__(self) -> str:
        return f"line:{self.line}" if self.line is not None else f"0x{self.pc:x}"


def _index(text: str, flag: str, high: int, what: str, low: int = 0) -> int:
    value = number(text, flag)
    if not low <= value <= high:
        raise LaunchFlagError(f"{flag}: {what} must be {low}..{high}, got {value}", flag)
    return value


def trace_filter(wave: str | None, lane: str | None, pcs: str | None) -> TraceFilter | None:
    """The filter of the flags' texts (None where no filter flag was given)."""
    if wave is None and lane is None and pcs is None:
        return None
    start, end = 0, None
    if pcs is not None:
        low, sep, high = pcs.partition(":")
        if not sep:
            raise LaunchFlagError(f"--trace-pc: expected START:END (byte offsets, END "
                                  f"exclusive), got '{pcs}'", "--trace-pc")
        start = _index(low, "--trace-pc", MAX_PC, "START") if low.strip() else 0
        end = _index(high, "--trace-pc", MAX_PC, "END") if high.strip() else None
        if end is not None and end <= start:
            raise LaunchFlagError(f"--trace-pc: END must be greater than START (END is "
                                  f"exclusive), got '{pcs}'", "--trace-pc")
    return TraceFilter(
        wave=None if wave is None else _index(wave, "--trace-wave", MAX_WAVE_WIDTH * 1024,
                                              "the wave"),
        lane=None if lane is None else _index(lane, "--trace-lane", MAX_WAVE_WIDTH - 1,
                                              "the lane"),
        pc_start=start, pc_end=end)


def breakpoint_of(text: str) -> Breakpoint:
    """A `--break` value: `PC` (decimal or 0x-hex byte offset) or `line:N`."""
    word = text.strip()
    if word.lower().startswith("line:"):
        return Breakpoint(line=_index(word[5:], "--break", 1 << 24, "the line", 1))
    if not word or not (word[0].isdigit()):
        raise LaunchFlagError(f"--break: expected a pc (e.g. 0x10) or line:N, got '{text}'",
                              "--break")
    return Breakpoint(pc=_index(word, "--break", MAX_PC, "the pc"))


def resolve(breakpoints, instructions, kernel: str) -> frozenset[int]:
    """The instruction indices the breakpoints stop at (`LaunchError` for a pc that starts no
    instruction, a line with none, or a line breakpoint on a `.wbin`)."""
    from .launch import LaunchError
    at: set[int] = set()
    for bp in breakpoints:
        if bp.pc is not None:
            found = [i for i, ins in enumerate(instructions) if ins.offset == bp.pc]
            if not found:
                pcs = ", ".join(f"0x{ins.offset:x}" for ins in instructions[:4])
                raise LaunchError(f"--break: pc 0x{bp.pc:x} is not the start of an "
                                  f"instruction of kernel '{kernel}' (they start at {pcs}, …)")
        else:
            if instructions and all(ins.line is None for ins in instructions):
                raise LaunchError(f"--break {bp}: a .wbin has no source lines; give a pc")
            found = [i for i, ins in enumerate(instructions) if ins.line == bp.line - 1][:1]
            if not found:
                raise LaunchError(f"--break {bp}: line {bp.line} holds no instruction of "
                                  f"kernel '{kernel}'")
        at.update(found)
    return frozenset(at)
