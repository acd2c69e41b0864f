"""The `--trace` printer: one stderr line per wave per executed instruction.

`--trace` writes upstream wave-emu's format:

    wg(X,Y,Z) wave[N] pc=0xPPPP: TEXT

with TEXT as upstream's mini-disassembler writes it (special registers by number: `mov r0,
sr_4`), and, as upstream, two more lines after `break` and `endloop`:

      BREAK: active_mask=0xA, pred_mask=0xP, pred_reg=pN
      BREAK: new_active_mask=0xB, jump=None            (jump=Some(0) when no lane is left)
      ENDLOOP: active_mask=0xA
      ENDLOOP: new_active_mask=0xB, jump=Some(START)  (START: byte offset after `loop`, decimal;
                                                       jump=None and the entry mask on exit)

`--trace-lines` writes ours, with the 1-based source line (omitted for `.wbin` input) and the
lanes of the wave that executed the instruction (bit i = lane i):

    wg(X,Y,Z) wave[N] pc=0xPPPP: TEXT ; line L mask=0xMMMM

`--trace-wave`, `--trace-lane` and `--trace-pc` keep the lines of one wave, of the
instructions one lane executed (active and passing the guard), of a pc range (`trace_filter`);
the lines kept are exactly those of the unfiltered trace that match, in the same order.

Tracing runs one workgroup at a time, in workgroup order, with its waves in lock-step. For
`--trace` the lines are put in the order of upstream's round-robin scheduler (`RoundRobin`):
where waves leave a loop after different numbers of iterations, the waves that left run on in
upstream meanwhile, and their lines are interleaved the same way here.
"""

from __future__ import annotations

import sys
from collections import deque

import numpy as np

from ..isa import InstructionClass, OperandKind
from .observer import Observer
from .recording import _mask_of, render
from .state import Batch
from .trace_filter import TraceFilter


# Upstream's trace disassembler differs from the assembly syntax for a few instructions: the
# bit-field group prints no operands, `dsqrt` and every `mma_*` print more register fields,
# and no instruction prints its scope.
_BARE = ("bitcount", "bitfind", "bitrev", "bfe", "bfi")
_FIELDS = {"dsqrt": ("rd", "rs1", "rs2")}
_MMA_FIELDS = ("rd", "rs1", "rs2", "rs3")


def upstream_text(ins) -> str:
    """The instruction as upstream wave-emu's trace writes it (see above; special registers by
    number: `mov r0, sr_4` for `mov_sr`); everything else as `render` without the scope."""
    spec = ins.spec
    guard = f"@{'!' if ins.pred_neg else ''}p{ins.pred_reg} " if ins.guarded else ""
    name = spec.mnemonic
    if any(o.kind is OperandKind.SPECIAL for o in spec.operands):
        return f"{guard}mov r{ins.rd}, sr_{ins.rs1}"
    if name in _BARE:
        return guard + name
    fields = _MMA_FIELDS if spec.iclass is InstructionClass.MMA else _FIELDS.get(name)
    if fields:
        return guard + name + " " + ", ".join(f"r{getattr(ins, f)}" for f in fields)
    text = render(ins)
    if any(o.kind is OperandKind.SCOPE for o in spec.operands):
        text = text.rsplit(",", 1)[0] if "," in text else text.split(" .")[0]
    return text


def _bits(mask) -> int:
    return sum(1 << i for i, on in enumerate(mask.tolist()) if on)


class Tracer(Observer):
    """Prints one line per wave per executed instruction (see the module docstring)."""

    kind = "trace"
    single_workgroup = True
    sees_empty = True
    refusal = "--trace"

    def __init__(self, sink=None, detailed: bool = True, where: TraceFilter | None = None):
        self.where = where or TraceFilter()
        self.sink = sink or (lambda text: sys.stderr.write(text + "\n"))
        self.detailed = detailed

    def start(self, run) -> None:
        compiled = self.compiled = run.compiled
        self.geo = run.geometry
        self.texts = [render(ins) if self.detailed else upstream_text(ins)
                      for ins in compiled.instructions]
        self.names = [ins.spec.mnemonic for ins in compiled.instructions]
        self.order: RoundRobin | None = None

    def attach(self, b: Batch) -> None:
        self.finish()
        self.wg = b.geo.workgroup_id(b.first_wg)
        if not self.detailed:
            self.order = RoundRobin(b.n_waves, self.sink)

    def finish(self) -> None:
        """The workgroup is over: write what is still held back."""
        if self.order is not None:
            self.order.finish()
            self.order = None

    def before(self, index: int, b: Batch):
        ins = self.compiled.instructions[index]
        top = b.ctrl[-1] if b.ctrl else None
        return _mask_of(b, ins).copy(), b.present.copy(), b.active.copy(), top

    def after(self, index: int, b: Batch, before) -> None:
        mask, present, active, top = before
        ins = self.compiled.instructions[index]
        x, y, z = self.wg
        W = b.W
        head = f"wg({x},{y},{z})"
        name = self.names[index]
        where = self.where
        shown_pc = where.keeps_pc(ins.offset)
        for wave in np.flatnonzero(present).tolist():
            lanes = slice(wave * W, (wave + 1) * W)
            shown = shown_pc and where.keeps_wave(wave) and (
                where.lane is None or (where.lane < W and bool(mask[wave * W + where.lane])))
            if self.detailed and not shown:
                continue
            text = f"{head} wave[{wave}] pc=0x{ins.offset:04x}: {self.texts[index]}"
            if self.detailed:
                line = f" line {ins.line + 1}" if ins.line is not None else ""
                self.sink(f"{text} ;{line} mask=0x{_bits(mask[lanes]):x}")
                continue
            lines = [text]
            if name == "break":
                lines += self._break(b, ins, active[lanes], lanes)
            elif name == "endloop":
                lines += self._endloop(b, active[lanes], lanes, top)
            waits = name == "barrier" and (not ins.guarded or bool(mask[lanes].any()))
            self.order.add(wave, lines if shown else [], waits)   # kept in upstream's order
        if not self.detailed:
            self.order.drain()

    def _break(self, b: Batch, ins, active, lanes) -> list[str]:
        pred = active & b.P[ins.rs1][lanes] if ins.rs1 < b.P.shape[0] else active & False
        after = _bits(b.active[lanes])
        return [f"  BREAK: active_mask=0x{_bits(active):x}, pred_mask=0x{_bits(pred):x}, "
                f"pred_reg=p{ins.rs1}",
                f"  BREAK: new_active_mask=0x{after:x}, jump={'Some(0)' if not after else 'None'}"]

    def _endloop(self, b: Batch, active, lanes, frame) -> list[str]:
        """`frame`: the loop's frame (top of the stack before `endloop`); still on top after
        it when the batch goes round again."""
        first = f"  ENDLOOP: active_mask=0x{_bits(active):x}"
        now = b.active[lanes]
        again = bool(b.ctrl) and b.ctrl[-1] is frame and frame is not None
        if again and now.any():
            start = self.compiled.pcs[frame.start]
            return [first, f"  ENDLOOP: new_active_mask=0x{_bits(now):x}, jump=Some({start})"]
        entry = frame.entry[lanes] & b.alive[lanes] if again else now   # the wave leaves
        return [first, f"  ENDLOOP: new_active_mask=0x{_bits(entry):x}, jump=None"]


class RoundRobin:
    """Writes the waves' lines in the order of upstream's scheduler: in rounds, each wave that
    is not waiting at a barrier writes its next instruction; the last wave to reach a barrier
    releases them all at once (the round goes on). Lines of a wave that has none yet (it left a
    loop that other waves still run) are waited for, so they come out where upstream puts them.
    """

    def __init__(self, waves: int, sink):
        self.queues: list[deque] = [deque() for _ in range(waves)]
        self.waiting = [False] * waves
        self.done = [False] * waves
        self.turn = 0
        self.sink = sink

    def add(self, wave: int, lines: list[str], waits: bool) -> None:
        self.queues[wave].append((lines, waits))

    def drain(self) -> None:
        n = len(self.queues)
        idle = 0                       # waves passed over since the last line written
        while idle < n:
            w = self.turn
            self.turn = (w + 1) % n
            if self.done[w] or self.waiting[w]:
                idle += 1
                continue
            if not self.queues[w]:
                self.turn = w          # its next line is not known yet
                return
            lines, waits = self.queues[w].popleft()
            for text in lines:
                self.sink(text)
            idle = 0
            if waits:
                self.waiting[w] = True
                if all(a or b for a, b in zip(self.waiting, self.done)):
                    self.waiting = [False] * n

    def finish(self) -> None:
        """No more lines: waves with none left are done; write the rest in order."""
        while True:
            for w, queue in enumerate(self.queues):
                if not queue:
                    self.done[w] = True
            if all(self.done):
                return
            if all(a or b for a, b in zip(self.waiting, self.done)):
                self.waiting = [False] * len(self.queues)
            before = sum(len(q) for q in self.queues)
            self.drain()
            if sum(len(q) for q in self.queues) == before:   # nothing movable: write as is
                for queue in self.queues:
                    while queue:
                        for text in queue.popleft()[0]:
                            self.sink(text)
