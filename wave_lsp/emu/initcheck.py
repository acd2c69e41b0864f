"""Uninitialised reads: what a real GPU does differently from the emulator, which zeroes
registers and local memory (compute-sanitizer's initcheck is the model; it checks device memory
only, this also checks local memory and registers).

The specification leaves three things undefined that the emulator gives as 0 (DESIGN.md §1):
register contents at thread start "unless explicitly initialized" (seed 000, §3.4 of v0.1),
local memory "at Workgroup start" (seed 000 §3.3, seed 004) and device memory that nothing
wrote. Predicates are not covered: the specification says nothing about their start value.
A run reports, as warnings with the reading line, thread and lanes:

- `uninitialised_register`: a lane reads a general register that nothing wrote in that thread
  (a `--set-reg` initialises a register for every thread);
- `uninitialised_local`: a lane reads local memory that no thread of its workgroup wrote in the
  launch (loads, local atomics and mma tile loads);
- `uninitialised_device`: a lane reads device memory that no `--arg`, `--fill-*`, store or
  atomic initialised (loads and atomics; not checked with more than 1 GiB of device memory).

Wave operations are checked on the executing lanes' own source register. `instrument` wraps a
compiled kernel's ops; the shadows are bytes per memory byte and, for registers, one flag per
register saying every lane has written it (per-lane rows only for registers written in part), so
an instruction whose registers are all settled costs one list lookup. The native core keeps the
same shadows and reports the same warnings (native/initcheck.c; the text is `messages`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import messages
from .compile_ops import exec_mask
from .kernel_launch import MemoryInit, initialised_ranges
from .plan import register_uses
from .state import Batch

KINDS = ("uninitialised_register", "uninitialised_local", "uninitialised_device")
FULL_WORD = 0x01010101       # four initialised bytes, seen through a u32 view of the shadow
MAX_SHADOWED_DEVICE = 1 << 30   # beyond this, device reads are not checked (the shadow would
                                # double the memory of the run; the native core stops at 256 MiB)


class InitShadow:
    """The launch-wide device shadow and the shadows of the batch being run."""

    def __init__(self, device_size: int, memory_init: Sequence[MemoryInit],
                 set_regs: dict[int, int], registers: int, instructions: int):
        self.device: np.ndarray | None = None      # None: device reads are not checked
        if device_size <= MAX_SHADOWED_DEVICE:
            self.device = np.zeros((device_size + 3) & ~3, dtype=np.uint8)
            for offset, length in initialised_ranges(memory_init):
                self.device[offset:offset + length] = 1
        self.device_size = device_size
        self.preset = [0 <= r < registers and r in set_regs for r in range(registers)]
        self.instructions = instructions
        self.batch: Batch | None = None
        self.full: list[bool] = []          # per register: every lane of the batch wrote it
        self.rows: dict[int, np.ndarray] = {}   # register -> lanes that wrote it (in part)
        self.settled: list[bool] = []       # per instruction: its registers are all full
        self.local: np.ndarray | None = None

    def begin(self, b: Batch) -> "InitShadow":
        """Fresh register and local shadows for a new batch (registers and local memory are
        per thread and per workgroup)."""
        self.batch = b
        self.full = list(self.preset)
        self.rows = {}
        self.settled = [False] * self.instructions
        self.local = None
        return self

    def local_bytes(self, b: Batch) -> np.ndarray:
        if self.local is None:
            self.local = np.zeros_like(b.local)
        return self.local

    def check_registers(self, b: Batch, ctx, index: int, mask, unguarded: bool,
                        reads: tuple[int, ...], writes: tuple[int, ...]) -> None:
        """Report the executing lanes that read a register nothing wrote; record the writes."""
        full = self.full
        pending = [r for r in reads if not full[r]]
        unwritten = [w for w in writes if not full[w]]
        if not pending and not unwritten:
            self.settled[index] = True
            return
        everyone = unguarded and b.full
        m = None if everyone else mask(b)
        for r in pending:
            row = self.rows.get(r)
            bad = (np.ones(b.n, dtype=bool) if m is None else m.copy()) if row is None \
                else (~row if m is None else m & ~row)
            if bad.any():
                lane = int(np.flatnonzero(bad)[0])
                ctx.warn(index, "uninitialised_register",
                         messages.uninitialised_register(r, _who(b, lane)), bad)
        for w in unwritten:
            if everyone:
                full[w] = True
                self.rows.pop(w, None)
                continue
            row = self.rows.get(w)
            if row is None:
                row = self.rows[w] = np.zeros(b.n, dtype=bool)
            row |= m
            if row[b.alive].all():        # lanes not alive never run again
                full[w] = True
                del self.rows[w]
        if all(full[r] for r in reads) and all(full[w] for w in writes):
            self.settled[index] = True


def _who(b: Batch, lane: int) -> str:
    return messages.who(b.global_thread(lane), *b.describe_lane(lane))


class MemoryCheck:
    """The memory side of one load, store, atomic or mma tile access."""

    def __init__(self, ins, local: bool, width: int, reads: bool, writes: bool, tile: bool):
        self.ins, self.local, self.width = ins, local, width
        self.reads, self.writes, self.tile = reads, writes, tile
        name = ins.spec.mnemonic
        self.addr, self.stride = ((ins.rd, ins.rs1) if name == "mma_store_c"
                                  else (ins.rs1, ins.rs2))

    def lanes_and_bytes(self, b: Batch, shadow: InitShadow, m):
        """(executing lanes, their byte indices into the shadow: (lanes, bytes) int64) of the
        in-bounds accesses; out-of-bounds ones are the op's fault to report."""
        lanes = np.arange(b.n) if m is None else np.flatnonzero(m)
        a = b.R[self.addr][lanes].astype(np.int64)
        if self.tile:
            rows = np.arange(4, dtype=np.int64)
            stride = b.R[self.stride][lanes].astype(np.int64)
            a = (a[:, None, None] + rows[None, :, None] * stride[:, None, None]
                 + 4 * rows[None, None, :]).reshape(lanes.size, 16)
            width = 4
        else:
            a = a[:, None]
            width = self.width
        size = b.local_size if self.local else shadow.device_size
        keep = ((a >= 0) & (a + width <= size)).all(axis=1)
        if not keep.all():
            lanes, a = lanes[keep], a[keep]
        if not lanes.size:
            return lanes, None
        if self.local:
            a = a + b.local_base[lanes][:, None]
        spans = (a[:, :, None] + np.arange(width, dtype=np.int64)).reshape(lanes.size, -1)
        return lanes, spans

    def run(self, b: Batch, ctx, index: int, shadow: InitShadow, m) -> None:
        memory = shadow.local_bytes(b) if self.local else shadow.device
        if m is None and not self.tile and self.width == 4:
            address = b.R[self.addr]
            size = b.local_size if self.local else shadow.device_size
            if not (address & 3).any() and int(address.max()) + 4 <= size:
                self.words(b, ctx, index, memory.view(np.uint32), address)
                return
        lanes, spans = self.lanes_and_bytes(b, shadow, m)
        if not lanes.size:
            return
        if self.reads:
            bad = (memory[spans] == 0).any(axis=1)
            if bad.any():
                first = spans[bad][:, 0]
                if self.local:
                    first = first - b.local_base[lanes[bad]]
                self.report(b, ctx, index, lanes[bad], first)
        if self.writes:
            memory[spans] = 1

    def words(self, b: Batch, ctx, index: int, memory32: np.ndarray, address) -> None:
        """The common case: every lane accesses one aligned, in-bounds word."""
        words = address >> 2
        if self.local:
            words = words + b.local_base_words
        if self.reads:
            bad = memory32[words] != FULL_WORD
            if bad.any():
                self.report(b, ctx, index, np.flatnonzero(bad), address[bad])
        if self.writes:
            memory32[words] = FULL_WORD


    def report(self, b: Batch, ctx, index: int, lanes: np.ndarray, addresses) -> None:
        if self.reads and self.writes:       # an atomic: lanes go in thread order, so only
            addresses = np.asarray(addresses, dtype=np.int64)     # the first at a word reads
            where = addresses + b.local_base[lanes] if self.local else addresses  # what nothing
            keep = np.sort(np.unique(where, return_index=True)[1])    # initialised
            lanes, addresses = lanes[keep], addresses[keep]
        lane = int(lanes[0])
        space = "local" if self.local else "device"
        ctx.warn(index, f"uninitialised_{space}",
                 messages.uninitialised_memory(space, int(addresses[0]), _who(b, lane)), lanes)


def _memory_check(ins) -> MemoryCheck | None:
    access = ins.spec.memory
    name = ins.spec.mnemonic
    if access is not None:
        atomic = access.kind not in ("load", "store")
        return MemoryCheck(ins, access.space == "local", access.width,
                           access.kind == "load" or atomic, access.kind == "store" or atomic,
                           False)
    if name in ("mma_load_a", "mma_load_b", "mma_store_c"):
        return MemoryCheck(ins, True, 4, name != "mma_store_c", name == "mma_store_c", True)
    return None


def check_launch(compiled, ctx, launch, options, registers: int, device_size: int,
                 set_regs: dict[int, int]) -> "InitShadow | None":
    """Instrument `compiled` for one run of `launch` when the options' check is on (`run` and
    the debugger's stepping run alike); the shadow it checks against (None: off)."""
    if not options.initcheck:
        return None
    shadow = InitShadow(device_size, launch.memory_init, set_regs, registers,
                        len(compiled.ops))
    instrument(compiled, ctx, shadow, registers)
    return shadow


def instrument(compiled, ctx, shadow: InitShadow, registers: int) -> None:
    """Wrap every op (and fused run) of `compiled` with the checks of its instruction."""
    checks = []
    for index, ins in enumerate(compiled.instructions):
        reads, writes = register_uses(ins)
        faults = any(r >= registers for r in (*reads, *writes))
        if faults:                        # the op faults (register_out_of_range): leave it be
            reads, writes = (), ()
        guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
        checks.append((tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(writes)),
                       exec_mask(guard), guard is None, None if faults else _memory_check(ins)))
    compiled.ops = [_checked(op, index, checks[index], ctx, shadow)
                    if checks[index][0] or checks[index][1] or checks[index][4] else op
                    for index, op in enumerate(compiled.ops)]
    compiled.fused = [None if run is None else (_checked_run(run, index, checks, ctx, shadow),
                                                 run[1])
                      for index, run in enumerate(compiled.fused or [])]


def _checked(op, index: int, check, ctx, shadow: InitShadow):
    reads, writes, mask, unguarded, memory = check

    def checked(b: Batch):
        s = shadow if shadow.batch is b else shadow.begin(b)
        if not s.settled[index]:
            s.check_registers(b, ctx, index, mask, unguarded, reads, writes)
        if memory is not None and b.any_active and (memory.local or s.device is not None):
            m = None if unguarded and b.full else mask(b)
            if m is None or m.any():
                memory.run(b, ctx, index, s, m)
        return op(b)
    return checked


def _checked_run(run, first: int, checks, ctx, shadow: InitShadow):
    """A fused run (unguarded fma, every lane active): the checks of each instruction in turn."""
    fused, span = run

    def checked(b: Batch):
        s = shadow if shadow.batch is b else shadow.begin(b)
        for index in range(first, first + span):
            if not s.settled[index]:
                reads, writes, mask, unguarded, _ = checks[index]
                s.check_registers(b, ctx, index, mask, unguarded, reads, writes)
        return fused(b)
    return checked
