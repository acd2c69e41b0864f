"""The memory access log of `--mem-trace`: an observer of a numpy-engine run (see
`recording`) making one `mem_access.MemAccess` per lane per load, store or atomic, on device
and local memory, in execution order (the native core makes the same records itself, see
`mem_access.from_native`; the format is described there).

Order: workgroups one at a time, in workgroup order; within one, the engine steps its waves in
lock-step, so the accesses of one instruction come wave by wave, and within a wave lane by lane
(the order in which colliding stores and atomics take effect). `step` is the index of the
wave-instruction in the launch, counting every wave that steps through an instruction as
`--trace-lines` prints them (all accesses of one wave-instruction share a step; steps only
grow). `mma_load_a`/`mma_load_b` and `mma_store_c` log each lane's 16 words of its 4x4 tile in
local memory (row by row) as 4-byte loads and stores.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .mem_access import MMA_TILES, MemAccess, atomic_result
from .observer import Observer
from .trace_filter import TraceFilter

if TYPE_CHECKING:
    from .state import Batch


class MemTracer(Observer):
    """Observer writing (or collecting) one `MemAccess` per lane access."""

    kind = "mem_trace"
    single_workgroup = True
    sees_empty = True
    native = True

    def __init__(self, sink=None, keep: bool = False, where: TraceFilter | None = None):
        self.out = sink                   # as given: the native core's log is written to it
        self.filter = where
        self.sink = None if keep else (sink or (lambda text: sys.stderr.write(text + "\n")))
        self.records: list[MemAccess] = []
        self.keep = keep
        self.where = where or TraceFilter()

    def start(self, run) -> None:
        compiled = self.compiled = run.compiled
        self.records = []
        self.step = 0
        self.plans = []
        for ins in compiled.instructions:
            access = MMA_TILES.get(ins.spec.mnemonic, ins.spec.memory)
            wanted = access is not None and self.where.keeps_pc(ins.offset)
            self.plans.append(access if wanted else None)

    def attach(self, b: Batch) -> None:
        self.wg = b.geo.workgroup_id(b.first_wg)

    def fill(self, report) -> None:
        if self.keep:
            report.mem_trace = self.records

    def before(self, index: int, b: Batch):
        import numpy as np     # loaded by a numpy-engine run only
        present = b.present.copy()
        access = self.plans[index]
        if access is None:
            return present, None
        ins = self.compiled.instructions[index]
        mask = b.guard_mask(ins.pred_reg, ins.pred_neg) if ins.guarded else b.active
        lanes = np.flatnonzero(mask)
        if not lanes.size:
            return present, None
        if ins.spec.mnemonic in MMA_TILES:
            return present, self._tile(ins, access, b, lanes)
        local = access.space == "local"
        size = b.local_size if local else b.device_size
        memory = b.local if local else b.device
        width = access.width
        addresses = b.R[ins.rs1][lanes].astype(np.int64)
        if ((addresses + width) > size).any():
            return present, None              # the instruction faults: its error says where
        absolute = addresses + b.local_base[lanes] if local else addresses
        extra = None
        if access.kind == "load":
            values = [int.from_bytes(memory[a:a + width].tobytes(), "little")
                      for a in absolute.tolist()]
        elif access.kind == "store":
            values = [sum(int(b.R[ins.rs2 + i][lane]) << (32 * i) for i in range(access.words))
                      & ((1 << (8 * width)) - 1) for lane in lanes.tolist()]
        else:
            values, extra = self._atomic(ins, access, b, lanes, absolute, memory)
        return present, (access, lanes, addresses, values, extra)

    @staticmethod
    def _tile(ins, access, b: Batch, lanes):
        """An mma tile's 16 words per lane (row by row): addresses and values (a store's from
        the C fragment), as `compile_ops.build_mma` moves them."""
        import numpy as np     # loaded by a numpy-engine run only
        load = access.kind == "load"
        base_reg, stride_reg = (ins.rs1, ins.rs2) if load else (ins.rd, ins.rs1)
        rows = np.arange(4, dtype=np.int64)
        offsets = (b.R[base_reg][lanes].astype(np.int64)[:, None, None]
                   + rows[None, :, None] * b.R[stride_reg][lanes].astype(np.int64)[:, None, None]
                   + 4 * rows[None, None, :]).reshape(len(lanes), 16)
        if offsets.size and (offsets.min() < 0 or offsets.max() + 4 > b.local_size):
            return None                       # the instruction faults: its error says where
        if load:
            at = (offsets + b.local_base[lanes][:, None]).reshape(-1)
            values = [int.from_bytes(b.local[a:a + 4].tobytes(), "little") for a in at.tolist()]
        else:
            fragment = b.fragments.get(("C", ins.rs2))
            words = (np.zeros((len(lanes), 16), dtype=np.uint32) if fragment is None
                     else fragment[lanes].reshape(len(lanes), 16).view(np.uint32))
            values = words.reshape(-1).tolist()
        return access, np.repeat(lanes, 16), offsets.reshape(-1), values, None

    def _atomic(self, ins, access, b, lanes, absolute, memory):
        """Old values in thread order (colliding lanes see each other's results)."""
        import numpy as np     # loaded by a numpy-engine run only
        operation = access.operation
        operands = b.R[ins.rs2][lanes].tolist()
        swaps = b.R[ins.rs3][lanes].tolist() if operation == "cas" else [None] * lanes.size
        current: dict[int, int] = {}
        olds = []
        for a, value, swap in zip(absolute.tolist(), operands, swaps):
            old = current.get(a)
            if old is None:
                old = int.from_bytes(memory[a:a + 4].tobytes(), "little")
            olds.append(old)
            current[a] = atomic_result(operation, old, value, swap)
        return olds, (operands, swaps)

    def after(self, index: int, b: Batch, seen) -> None:
        import numpy as np     # loaded by a numpy-engine run only
        present, payload = seen
        count = int(present.sum())
        if payload is None:
            self.step += count
            return
        access, lanes, addresses, values, extra = payload
        ins = self.compiled.instructions[index]
        line = ins.line + 1 if ins.line is not None else None
        kind = access.kind if access.kind in ("load", "store") else f"atomic_{access.operation}"
        W, per_wg = b.W, b.lanes_per_wg
        offset = np.cumsum(present) - present          # present waves before each wave
        where = self.where
        for k, lane in enumerate(lanes.tolist()):
            wave, in_wave = divmod(lane % per_wg, W)
            if not where.keeps_wave(wave) or (where.lane is not None and in_wave != where.lane):
                continue
            operand, swap = (extra[0][k], extra[1][k]) if extra is not None else (None, None)
            record = MemAccess(self.step + int(offset[lane // W]), self.wg, wave, in_wave,
                               ins.offset, line, access.space, kind, access.width,
                               int(addresses[k]), values[k], operand, swap)
            if self.keep:
                self.records.append(record)
            else:
                self.sink(record.text())
        self.step += count
