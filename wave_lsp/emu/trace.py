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

Tracing runs one workgroup at a time, in workgroup order, with its waves in lock-step: lines of
waves at the same instruction come in wave order as upstream's round-robin scheduler writes
them. Where waves leave a loop after different numbers of iterations, upstream lets the waves
that left run on meanwhile, so its lines interleave differently (the same lines, in another
order).
"""

from __future__ import annotations

import sys

import numpy as np

from ..isa import InstructionClass, OperandKind
from .recording import _mask_of, render
from .state import Batch


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


class Tracer:
    """Prints one line per wave per executed instruction (see the module docstring)."""

    single_workgroup = True

    def __init__(self, compiled, geo, sink=None, detailed: bool = True):
        self.compiled = compiled
        self.geo = geo
        self.sink = sink or (lambda text: sys.stderr.write(text + "\n"))
        self.detailed = detailed
        self.texts = [render(ins) if detailed else upstream_text(ins)
                      for ins in compiled.instructions]
        self.names = [ins.spec.mnemonic for ins in compiled.instructions]

    def attach(self, b: Batch) -> None:
        self.wg = b.geo.workgroup_id(b.first_wg)

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
        for wave in np.flatnonzero(present).tolist():
            lanes = slice(wave * W, (wave + 1) * W)
            text = f"{head} wave[{wave}] pc=0x{ins.offset:04x}: {self.texts[index]}"
            if self.detailed:
                line = f" line {ins.line + 1}" if ins.line is not None else ""
                self.sink(f"{text} ;{line} mask=0x{_bits(mask[lanes]):x}")
                continue
            self.sink(text)
            name = self.names[index]
            if name == "break":
                self._break(b, ins, active[lanes], lanes)
            elif name == "endloop":
                self._endloop(b, active[lanes], lanes, top)

    def _break(self, b: Batch, ins, active, lanes) -> None:
        pred = active & b.P[ins.rs1][lanes] if ins.rs1 < b.P.shape[0] else active & False
        after = _bits(b.active[lanes])
        self.sink(f"  BREAK: active_mask=0x{_bits(active):x}, pred_mask=0x{_bits(pred):x}, "
                  f"pred_reg=p{ins.rs1}")
        self.sink(f"  BREAK: new_active_mask=0x{after:x}, jump={'Some(0)' if not after else 'None'}")

    def _endloop(self, b: Batch, active, lanes, frame) -> None:
        """`frame`: the loop's frame (top of the stack before `endloop`); still on top after
        it when the batch goes round again."""
        self.sink(f"  ENDLOOP: active_mask=0x{_bits(active):x}")
        now = b.active[lanes]
        again = bool(b.ctrl) and b.ctrl[-1] is frame and frame is not None
        if again and now.any():
            start = self.compiled.pcs[frame.start]
            self.sink(f"  ENDLOOP: new_active_mask=0x{_bits(now):x}, jump=Some({start})")
        else:                          # this wave leaves the loop with its entry lanes
            entry = frame.entry[lanes] & b.alive[lanes] if again else now
            self.sink(f"  ENDLOOP: new_active_mask=0x{_bits(entry):x}, jump=None")
