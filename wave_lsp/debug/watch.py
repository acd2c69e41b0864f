"""Data breakpoints: stop where a register lane of one thread or a word of device memory is
written, going forward or backward (DAP `dataBreakpointInfo` / `setDataBreakpoints`).

A watch looks at each step: `before(run)` reads what it needs before the instruction runs and
returns a check (or None when the step cannot write the target), called after the step; the
check says whether the step wrote the target. A register lane is written when the instruction
writes that register (`emu.write_plan`) and the lane executes it, or when its value changed;
a device word when a store of an executing lane covers it, or when its value changed (atomics).

A register watch names a thread by its global linear id (as `--lanes` counts), so it holds in
that thread's workgroup only. `dataId`s: `reg:r4:thread:35`, `mem:device:0x40`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..emu import write_plan

_REG_ID = re.compile(r"reg:r(\d{1,3}):thread:(\d{1,12})")
_MEM_ID = re.compile(r"mem:device:0x([0-9a-f]{1,12})")
_ADDRESS = re.compile(r"\s*(?:(?:device|global)\s*\[\s*)?(0x[0-9a-fA-F]{1,12}|\d{1,12})\s*\]?\s*")


@dataclass
class RegisterWatch:
    reg: int
    thread: int
    id: int = 0

    @property
    def data_id(self) -> str:
        return f"reg:r{self.reg}:thread:{self.thread}"

    def describe(self) -> str:
        return f"r{self.reg} of thread {self.thread}"

    def place(self, run) -> tuple[int, int, int]:
        """(workgroup, wave, lane) of the watched thread."""
        workgroup, within = divmod(self.thread, run.geo.threads_per_wg)
        wave, lane = divmod(within, run.geo.wave_width)
        return workgroup, wave, lane

    def before(self, run, writes):
        workgroup, wave, lane = self.place(run)
        if run.workgroup != workgroup or run.batch is None or run.current is None:
            return None
        written = self.reg in writes[run.index] and bool(run.executing(wave)[lane])
        old = int(run.registers_of(wave)[self.reg, lane])

        def check(after) -> bool:
            if after.workgroup != workgroup or after.batch is None:
                return written
            return written or int(after.registers_of(wave)[self.reg, lane]) != old
        return check


@dataclass
class MemoryWatch:
    address: int
    id: int = 0

    @property
    def data_id(self) -> str:
        return f"mem:device:0x{self.address:x}"

    def describe(self) -> str:
        return f"device word 0x{self.address:x}"

    def before(self, run, writes):
        if run.current is None or self.address + 4 > run.device.size:
            return None
        old = run.device[self.address:self.address + 4].tobytes()
        stored = self._stored(run)

        def check(after) -> bool:
            return stored or after.device[self.address:self.address + 4].tobytes() != old
        return check

    def _stored(self, run) -> bool:
        ins = run.current
        access = ins.spec.memory
        if access is None or access.kind != "store" or access.space == "local":
            return False
        for item in write_plan(ins):
            if item[0] != "mem":
                continue
            _, _, address_reg, _, words = item
            for wave in range(run.waves):
                lanes = run.executing(wave)[:run.lane_count(wave)]
                if not lanes.any():
                    continue
                starts = run.registers_of(wave)[address_reg][:lanes.size][lanes]
                starts = starts.astype(np.int64)
                if np.any((starts < self.address + 4) & (starts + 4 * words > self.address)):
                    return True
        return False


def watch_of(data_id: str, run):
    """The watch a `dataId` names (ValueError with the reason when it names none)."""
    m = _REG_ID.fullmatch(data_id)
    if m:
        reg, thread = int(m.group(1)), int(m.group(2))
        if reg >= run.geo.registers:
            raise ValueError(f"r{reg} does not exist")
        if thread >= run.geo.threads_per_wg * run.geo.workgroup_count:
            raise ValueError(f"thread {thread} is not in the launch")
        return RegisterWatch(reg, thread)
    m = _MEM_ID.fullmatch(data_id)
    if m:
        address = int(m.group(1), 16)
        if address % 4 or address + 4 > run.device.size:
            raise ValueError(f"0x{address:x} is not a word of device memory (aligned, below "
                             f"0x{run.device.size:x})")
        return MemoryWatch(address)
    raise ValueError(f"'{data_id}' is not a data breakpoint id of this debugger")


def address_info(name: str, run) -> dict:
    """`dataBreakpointInfo` of a device address given by name (`0x40`, `device[0x40]`)."""
    m = _ADDRESS.fullmatch(name)
    if not m:
        return {"dataId": None, "description": f"'{name}' is not a device address (0x40, "
                                               f"device[0x40]) or a register lane"}
    address = int(m.group(1), 0) & ~3
    try:
        watch = watch_of(f"mem:device:0x{address:x}", run)
    except ValueError as err:
        return {"dataId": None, "description": str(err)}
    return {"dataId": watch.data_id, "description": f"writes to {watch.describe()}",
            "accessTypes": ["write"], "canPersist": False}


def first_hit(watches, run, writes):
    """Checks of the watches before a step: a function of the run after it giving the watches
    that were written (None when no watch can be written by this step)."""
    checks = [(w, w.before(run, writes)) for w in watches]
    checks = [(w, c) for w, c in checks if c is not None]
    if not checks:
        return None
    return lambda after: [w for w, c in checks if c(after)]
