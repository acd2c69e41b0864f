"""Fusing straight-line runs of independent fma instructions into one numpy evaluation.

A GEMM inner loop is mostly runs of `fma` (an 8x8 register block is eight runs of eight); run one
at a time, each costs a handful of numpy calls on one register row. A run of unguarded fma where
no instruction reads or rewrites a register written earlier in the run gives the same registers
when every source is read first and every result written after, so the run is evaluated once on
(instructions, lanes) arrays: register rows in arithmetic progression are strided views of the
register matrix (no copy), others are gathered. Rounding is `alu.fma_f32`'s, element for element.

`fuse(instructions, registers)` gives, per instruction index, None or `(op, span)`: `op(batch)`
runs the `span` instructions from that index at once. The engine uses it only when every lane of
the batch is active and no limit poll falls inside the run, so counts, limits and faults are
those of running the instructions one by one.
"""

from __future__ import annotations

import numpy as np

from .alu import fma_f32
from .state import Batch

MIN_RUN = 2


def _rows(regs: list[int]):
    """A function (matrix) -> array of the rows `regs` as (len(regs), lanes) or broadcastable."""
    first = regs[0]
    if all(r == first for r in regs):
        return lambda M: M[first:first + 1]
    step = regs[1] - regs[0]
    if step > 0 and all(b - a == step for a, b in zip(regs, regs[1:])):
        stop = regs[-1] + 1
        return lambda M: M[first:stop:step]
    index = np.array(regs, dtype=np.intp)
    return lambda M: M[index]


def _writer(regs: list[int]):
    """A function (matrix, float64 rows) storing the rows, rounded to f32, into `regs`."""
    step = regs[1] - regs[0]
    if step > 0 and all(b - a == step for a, b in zip(regs, regs[1:])):
        first, stop = regs[0], regs[-1] + 1
        return lambda M, values: np.copyto(M[first:stop:step], values, casting="same_kind")
    index = np.array(regs, dtype=np.intp)

    def write(M, values):
        M[index] = values
    return write


def _fused_fma(run: list[tuple[int, int, int, int]]):
    """The op of a run of (rd, rs1, rs2, rs3) fma instructions."""
    a, b, c = (_rows([ins[k] for ins in run]) for k in (1, 2, 3))
    write = _writer([ins[0] for ins in run])
    k = len(run)

    def op(batch: Batch):
        F = batch.F
        scratch = batch.fma_scratch(k)
        write(F, fma_f32(a(F), b(F), c(F), scratch, out=scratch[0]))
    return op


def _fusable_fma(ins, registers: int) -> tuple[int, int, int, int] | None:
    if ins.spec.mnemonic != "fma" or ins.guarded:
        return None
    regs = (ins.rd, ins.rs1, ins.rs2, ins.rs3)
    return regs if all(r < registers for r in regs) else None


def fuse(instructions, registers: int) -> list:
    """Per instruction index: None, or (op, span) for a fusable run starting there."""
    fused: list = [None] * len(instructions)
    i = 0
    while i < len(instructions):
        first = _fusable_fma(instructions[i], registers)
        if first is None:
            i += 1
            continue
        run = [first]
        written = {first[0]}
        j = i + 1
        while j < len(instructions):
            regs = _fusable_fma(instructions[j], registers)
            if regs is None or regs[0] in written or written.intersection(regs[1:]):
                break
            run.append(regs)
            written.add(regs[0])
            j += 1
        if len(run) >= MIN_RUN:
            fused[i] = (_fused_fma(run), len(run))
        i = j
    return fused
