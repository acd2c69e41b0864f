"""What the trace flags of `wave-lsp run` select: `--trace-wave N`, `--trace-lane N` and
`--trace-pc START:END` (a `TraceFilter`, for `--trace`, `--trace-lines` and `--mem-trace`), and
`--break PC|line:N` (a `Breakpoint`), parsed from their flag texts by `launch.flags`
(`LaunchFlagError`, one line naming the flag); a breakpoint is resolved against the kernel when
the run starts (`LaunchError`, `resolve`). No numpy.

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


def resolve(breakpoints, instructions, kernel: str) -> frozenset[int]:
    """The instruction indices the breakpoints stop at (`LaunchError` for a pc that starts no
    instruction, a line with none, or a line breakpoint on a `.wbin`)."""
    from .kernel_launch import LaunchError
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
