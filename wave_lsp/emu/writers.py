"""The store-writer record (`RunOptions(writers=True)` → `report.writers`): per byte of device
memory, the source line (or pc for `.wbin` input) and the lane — the global linear thread id —
of the last store or atomic that wrote it.

`StoreWriters` is an observer of a run (see `observer`); the native core records the same
itself (native/record.c, `of_pages`). It keeps its tables in
pages of `PAGE` bytes made when first written, so the memory it takes follows what the kernel
wrote, not the size of device memory (12 bytes per written byte; nothing for the rest).
`at(address)` answers "which line and lane wrote this"; `line_at`/`last` give the line alone
(comparisons of memory images: `compare`, `wave_widths`).
"""

from __future__ import annotations

from .observer import Observer


class StoreWriters(Observer):
    """Observer recording the last store (line or pc, lane) of every device byte."""

    kind = "writers"
    native = True
    refusal = "the store-writer record"
    PAGE_BITS = 16

    @classmethod
    def of_pages(cls, size: int, pages: dict) -> StoreWriters:
        """The record of a run on the native core: `pages` maps a page to its (line, lane) per
        byte tables (any int sequences)."""
        writers = cls()
        writers.size = size
        writers.pages = {page: lines for page, (lines, _) in pages.items()}
        writers.lanes = {page: lanes for page, (_, lanes) in pages.items()}
        return writers

    def start(self, run) -> None:
        compiled = run.compiled
        self.size = run.launch.device_memory
        self.threads_per_wg = run.geometry.threads_per_wg
        self.pages: dict = {}                      # page -> line (pc) per byte, -1: never
        self.lanes: dict = {}                      # page -> global thread id per byte
        self.plans = []
        for ins in compiled.instructions:
            access = ins.spec.memory
            wanted = access is not None and access.space == "device" and access.kind != "load"
            where = ins.line if ins.line is not None else ins.offset
            self.plans.append((ins, access.width, where) if wanted else None)
        self._threads = None

    def fill(self, report) -> None:
        report.writers = self

    def attach(self, b) -> None:
        """A new batch: the global thread id of each of its lanes."""
        self._threads = (b.first_wg + b.wg_of_lane) * self.threads_per_wg + b.local_thread

    def before(self, index: int, b):
        plan = self.plans[index]
        if plan is None:
            return None
        import numpy as np
        ins = plan[0]
        mask = b.guard_mask(ins.pred_reg, ins.pred_neg) if ins.guarded else b.active
        return b.R[ins.rs1][mask].astype(np.int64), self._threads[mask]

    def after(self, index: int, b, seen) -> None:
        if seen is None or not seen[0].size:
            return
        import numpy as np
        addresses, threads = seen
        _ins, width, where = self.plans[index]
        bits, size = self.PAGE_BITS, self.size
        low = (1 << bits) - 1
        for k in range(width):
            at = addresses + k
            inside = (at >= 0) & (at < size)
            at, lanes = at[inside], threads[inside]
            pages = at >> bits
            for page in np.unique(pages).tolist():
                table = self.pages.get(page)
                if table is None:
                    table = self.pages[page] = np.full(1 << bits, -1, dtype=np.int32)
                    self.lanes[page] = np.full(1 << bits, -1, dtype=np.int64)
                here = pages == page
                table[at[here] & low] = where
                self.lanes[page][at[here] & low] = lanes[here]

    def line_at(self, address: int) -> int:
        """The line (pc) of the last store that wrote the byte at `address`; -1: never."""
        table = self.pages.get(address >> self.PAGE_BITS)
        return -1 if table is None else int(table[address & ((1 << self.PAGE_BITS) - 1)])

    def at(self, address: int) -> tuple[int, int] | None:
        """(line or pc, lane) of the last store that wrote the byte at `address` (the lane is
        the writing thread's global linear id), or None: nothing stored there."""
        page = address >> self.PAGE_BITS
        table = self.pages.get(page)
        if table is None:
            return None
        where = int(table[address & ((1 << self.PAGE_BITS) - 1)])
        if where < 0:
            return None
        return where, int(self.lanes[page][address & ((1 << self.PAGE_BITS) - 1)])

    def last(self, address: int, count: int) -> int | None:
        """The largest line (pc) that wrote one of `count` bytes from `address`, or None."""
        found = [self.line_at(a) for a in range(address, min(address + count, self.size))]
        found = [f for f in found if f >= 0]
        return max(found) if found else None
