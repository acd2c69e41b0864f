"""`--break PC|line:N`: an observer of a numpy-engine run (see `recording`) that stops before a
breakpoint's instruction in every wave that reaches it with at least one active lane, writes
the wave's registers for every lane to stderr and, given a `prompt` (the command gives one when
stdin is a terminal), waits for `c` (continue to the next breakpoint), `s` (step: stop again
before the next instruction this wave executes) or `q` (quit: the run ends with an error).
Without a prompt it writes the state and goes on, so the run's results are those of the run
without `--break`. An empty answer continues; end of input continues without asking again.

The state, one block per stop:

    break at pc=0x0010 line 5: wg(0,0,0) wave[0] active 0xf (lanes 0-3)
      r0  i32 : 0, 1, 2, 3
      r1  f32 : 1.5, 1.5, 1.5, 1.5
      p0      : 0x5 (lanes 0,2)

One row per register of the kernel (`.registers`), each lane's value in lane order as the
editor's hints and the debugger read them (`isa.value_format.register_lanes`: the one
formatter), then one row per predicate. Lanes are those of the wave's threads.
"""

from __future__ import annotations

import sys

import numpy as np

from ..isa import PREDICATE_COUNT
from ..isa.value_format import lane_ranges, register_lanes
from .observer import Observer
from .state import Batch, Fault
from .trace_filter import resolve

PROMPT = "[c]ontinue, [s]tep, [q]uit? "


class Breaker(Observer):
    """Observer stopping at the breakpoints (see the module doc)."""

    kind = "breakpoints"
    single_workgroup = True
    sees_empty = True
    refusal = "--break"

    def __init__(self, breakpoints, prompt=None, sink=None):
        self.breakpoints = breakpoints
        self.prompt = prompt
        self.sink = sink or (lambda text: sys.stderr.write(text + "\n"))

    def start(self, run) -> None:
        """`LaunchError` for a breakpoint that is not in the kernel."""
        self.compiled = compiled = run.compiled
        self.at = resolve(self.breakpoints, compiled.instructions, run.kernel.name)
        self.registers = run.geometry.registers
        self.wg_threads = run.geometry.threads_per_wg
        self.stepping: set[int] = set()       # waves (within the workgroup) being stepped

    def attach(self, b: Batch) -> None:
        self.wg = b.geo.workgroup_id(b.first_wg)
        self.stepping = set()

    def finish(self) -> None:
        pass

    def before(self, index: int, b: Batch):
        if index not in self.at and not self.stepping:
            return None
        W = b.W
        active = b.active.reshape(b.n_waves, W)
        for wave in np.flatnonzero(active.any(axis=1)).tolist():
            if index in self.at or wave in self.stepping:
                self.stepping.discard(wave)
                self._stop(index, b, wave)
        return None

    def after(self, index: int, b: Batch, seen) -> None:
        pass

    def _stop(self, index: int, b: Batch, wave: int) -> None:
        ins = self.compiled.instructions[index]
        for text in state_lines(b, wave, ins, self.wg, self.registers, self.wg_threads):
            self.sink(text)
        while self.prompt is not None:
            answer = self.prompt(PROMPT)
            if answer is None:                       # end of input: run on, never ask again
                self.prompt = None
                return
            answer = answer.strip().lower()
            if answer in ("", "c", "continue"):
                return
            if answer in ("s", "step"):
                self.stepping.add(wave)
                return
            if answer in ("q", "quit"):
                line = f" line {ins.line + 1}" if ins.line is not None else ""
                raise Fault("cancelled", f"run quit at the breakpoint at pc=0x{ins.offset:04x}"
                                         f"{line}", np.flatnonzero(b.active))
            self.sink("answer c, s or q")


def state_lines(b: Batch, wave: int, ins, wg, registers: int, threads: int) -> list[str]:
    """The block a stop writes for `wave` of the batch's workgroup (see the module doc)."""
    W = b.W
    first = wave * W
    lanes = slice(first, first + max(0, min(W, threads - first)))
    active = b.active[lanes].tolist()
    on = [i for i, a in enumerate(active) if a]
    mask = sum(1 << i for i in on)
    x, y, z = wg
    line = f" line {ins.line + 1}" if ins.line is not None else ""
    out = [f"break at pc=0x{ins.offset:04x}{line}: wg({x},{y},{z}) wave[{wave}] active "
           f"0x{mask:x} (lanes {lane_ranges(on) or 'none'})"]
    width = len(f"r{registers - 1}")
    for r in range(registers):
        kind, texts = register_lanes(b.R[r][lanes].tolist(), "auto")
        out.append(f"  {f'r{r}':<{width}} {kind:<4}: {', '.join(texts)}")
    for p in range(PREDICATE_COUNT):
        bits = b.P[p][lanes].tolist()
        set_lanes = [i for i, v in enumerate(bits) if v]
        value = sum(1 << i for i in set_lanes)
        out.append(f"  {f'p{p}':<{width}} {'':<4}: 0x{value:x} "
                   f"(lanes {lane_ranges(set_lanes) or 'none'})")
    return out
