"""The write log of a recorded run (`RunOptions(write_log=True)` → `report.write_log`): per
step of each recorded workgroup, in the order the steps ran, the instruction, the workgroup, the
step, the executing lanes and the values it wrote (its registers and predicates, every lane of
the workgroup) and, for a memory access, its addresses. `provenance` answers "who wrote this
value" from it; docs/dev/time-travel.md ("Write log and provenance") is the design.

`WriteLogger` is the observer (`observer`): the native core records the log itself
(native/writelog.c) and the numpy engine through `before`/`after`, one workgroup a batch, with
the same steps. The core keeps the values only when asked (`RunOptions.record_values`);
otherwise it writes the rows and masks and `WriteLog.values` rebuilds the values on first use
by running the launch again, to the last recorded workgroup, with them (`rebuild`). What is recorded: `RunOptions.record_workgroups` (linear workgroup ids; None:
all), `record_steps` (a window [first, end) of each workgroup's steps) and `record_budget`
(bytes; past it the log stops and `WriteLog.over` says where: `budget_message`).
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass, field
from typing import Callable

from .observer import Observer

PLAN_FIELDS = 16            # core.h REC_PLAN: unused, address register, captures, captures...
ROW_FIELDS = 4              # core.h WLOG_ROW: instruction, workgroup, step, values offset
ROW_BYTES = ROW_FIELDS * 8
DEFAULT_BUDGET = 256 << 20


def captures_of(ins, registers: int) -> list[str]:
    """The registers and predicates ("r4", "p0") an instruction's execution writes, in the
    order the log keeps their values."""
    from .recording import write_plan
    out = []
    for item in write_plan(ins):
        if item[0] == "r" and item[1] < registers:
            out.append(f"r{item[1]}")
        elif item[0] == "p" and item[1] < 4:
            out.append(f"p{item[1]}")
    return out


def address_register(ins, registers: int) -> int:
    """The register holding a memory access's address (-1: not a memory access)."""
    return ins.rs1 if ins.spec.memory is not None and ins.rs1 < registers else -1


# (mnemonic, rd, rs1, registers) -> the plan row: all a row depends on (the instructions
# themselves are values too, but hashing a few hundred of them costs a tenth of a plain run)
_ROWS: dict[tuple[str, int, int, int], bytes] = {}


def _plan_row(ins, registers: int) -> bytes:
    """One instruction's row of the plan (PLAN_FIELDS int32)."""
    key = (ins.spec.mnemonic, ins.rd, ins.rs1, registers)
    row = _ROWS.get(key)
    if row is None:
        caps = [int(c[1:]) if c[0] == "r" else -1 - int(c[1:])
                for c in captures_of(ins, registers)]
        assert len(caps) <= PLAN_FIELDS - 3, ins.spec.mnemonic
        row = [0, address_register(ins, registers), len(caps), *caps]
        row = array("i", row + [0] * (PLAN_FIELDS - len(row))).tobytes()
        if len(_ROWS) >= 1 << 16:
            _ROWS.clear()
        _ROWS[key] = row
    return row


def log_plan(kernel, registers: int) -> bytes:
    """The core's plan (core.h WriteLog): per instruction its address register and captures."""
    rows, row_of = _ROWS, _plan_row
    return b"".join([rows.get((ins.spec.mnemonic, ins.rd, ins.rs1, registers))
                     or row_of(ins, registers) for ins in kernel.instructions])


def recorded_groups(workgroups, count: int) -> bytes:
    """A byte per workgroup, 1 where it is recorded (`workgroups` None: all)."""
    if workgroups is None:
        return b"\x01" * count
    flags = bytearray(count)
    for wg in workgroups:
        if 0 <= wg < count:
            flags[wg] = 1
    return bytes(flags)


@dataclass
class WriteLog:
    """A run's write log (see the module doc). `rows`: ROW_FIELDS int64 per step; `masks`:
    (n + 7) // 8 bytes per step, a bit per lane (1: it executed the step), the first lane in
    the lowest bit; `values`: uint32 words (see `native/writelog.c`); each a bytes-like
    buffer; `n`: lanes per workgroup; `over`: None, or (workgroup, step) where the budget
    stopped it."""

    rows: object
    masks: object
    kept_values: object              # `values`; None: not yet rebuilt
    n: int
    groups: bytes
    window: tuple[int, int]
    budget: int
    used: int
    over: tuple[int, int] | None = None
    arrays: dict = field(default_factory=dict, repr=False)
    # the values of a log kept without them: a run again with them (native/runner.py)
    rebuild: Callable[[WriteLog], object] | None = field(default=None, repr=False)
    lock: object = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def values(self):
        """The values (see the class doc), rebuilt on first use where the run kept none."""
        with self.lock:
            if self.kept_values is None:
                self.kept_values, self.rebuild = self.rebuild(self), None
            return self.kept_values

    @classmethod
    def of_native(cls, raw, buffers, n: int, groups: bytes, window, budget: int,
                  rebuild=None) -> WriteLog:
        """The log the core wrote into `buffers` (rows, masks, values: `native_spec`'s);
        `rebuild`: where the core kept no values, how to get them."""
        n_rows, n_values, over, over_group, over_step, used = raw
        rows, masks, values = (memoryview(b) for b in buffers)
        return cls(rows[:n_rows * ROW_BYTES], masks[:n_rows * ((n + 7) // 8)],
                   None if rebuild else values[:n_values * 4], n, groups, window, budget,
                   used, (over_group, over_step) if over else None, rebuild=rebuild)

    @property
    def last_group(self) -> int:
        """The last workgroup with a logged step (-1: none)."""
        return int.from_bytes(bytes(self.rows[-ROW_BYTES + 8:-ROW_BYTES + 16]), "little",
                              signed=True) if len(self.rows) else -1

    def recorded(self, workgroup: int) -> bool:
        return 0 <= workgroup < len(self.groups) and bool(self.groups[workgroup])


def budget_message(log: WriteLog) -> str:
    """The one-line error of a recording that passed its budget."""
    mib = log.budget / (1 << 20)
    group, step = log.over
    return (f"the recording needs more than its budget of {mib:g} MiB (it stopped at workgroup "
            f"{group}, step {step}): record fewer workgroups (--record-workgroups 0) or a "
            f"window of steps (--record-steps FIRST:END), or raise --record-budget")


def _packed(mask) -> bytes:
    """A lane mask as the log keeps it: a bit per lane, the first lane in the lowest bit."""
    import numpy as np
    return np.packbits(mask, bitorder="little").tobytes()


class WriteLogger(Observer):
    """The write log's observer on the numpy engine (the native core records it itself)."""

    kind = "write_log"
    native = True
    single_workgroup = True
    refusal = "the write log"

    def __init__(self, workgroups=None, steps=None, budget: int = DEFAULT_BUDGET,
                 values: bool = True, last_group: int = -1) -> None:
        self.workgroups = workgroups
        self.window = (steps[0], -1 if steps[1] is None else steps[1]) if steps else (0, -1)
        self.budget = budget
        self.values, self.last_group = values, last_group     # the core's (see the module doc)

    def again(self, last_group: int) -> WriteLogger:
        """The same recording keeping its values, ending the run after `last_group`."""
        end = None if self.window[1] < 0 else self.window[1]
        return WriteLogger(self.workgroups, (self.window[0], end), self.budget, True,
                           last_group)

    def native_spec(self, kernel, geo, core) -> tuple:
        """What `_wavecore.run(write_log=...)` takes: the plan, the recorded workgroups, the
        window, the budget, three buffers of the budget's size (`core.Memory`: memory
        reserved, taken as the log fills it; kept in `self.buffers`; no room for values where
        they are not kept), whether the values are kept and the last workgroup to run."""
        room = max(self.budget, ROW_BYTES)
        self.buffers = tuple(core.Memory(size) for size in
                             (room, room, room if self.values else ROW_BYTES))
        return (log_plan(kernel, geo.registers),
                recorded_groups(self.workgroups, geo.workgroup_count),
                self.window[0], self.window[1], self.budget, *self.buffers, self.values,
                self.last_group)

    def start(self, run) -> None:
        geo = run.geometry
        registers = geo.registers
        self.plans = [(address_register(ins, registers),
                       [(c[0], int(c[1:])) for c in captures_of(ins, registers)])
                      for ins in run.compiled.instructions]
        self.instructions = run.compiled.instructions
        self.groups = recorded_groups(self.workgroups, geo.workgroup_count)
        # the values only when asked to keep them (`values`), as the core: else rebuilt on
        # first use by a run again (`pipeline.run` gives the log its `rebuild`)
        self.rows, self.masks = array("q"), bytearray()
        self.kept, self.count = (array("I") if self.values else None), 0
        self.used, self.over, self.n = 0, None, geo.lanes_per_wg
        self.full_mask = _packed([True] * self.n)
        self.taking = False

    def attach(self, b) -> None:
        self.workgroup = b.first_wg
        self.steps = 0
        self.taking = self.groups[b.first_wg] == 1

    def before(self, index: int, b):
        step = self.steps
        self.steps += 1
        first, end = self.window
        if not self.taking or self.over or not b.any_active or step < first \
                or (end >= 0 and step >= end):
            return None
        ins = self.instructions[index]
        if ins.guarded:
            mask = _packed(b.guard_mask(ins.pred_reg, ins.pred_neg))
        else:
            mask = self.full_mask if b.full else _packed(b.active)
        reg = self.plans[index][0]
        return (step, mask, b.R[reg].tobytes() if reg >= 0 and self.kept is not None else b"")

    sees_fused = True

    def after_fused(self, index: int, span: int, b) -> None:
        """Each instruction of a fused run as `before` and `after` log it: all lanes active,
        no address, its destination's row as the run left it (no instruction of a run
        rewrites a register written earlier in it)."""
        first, end = self.window
        for j in range(index, index + span):
            step = self.steps
            self.steps += 1
            if not self.taking or self.over or step < first or (end >= 0 and step >= end):
                continue
            self.after(j, b, (step, self.full_mask, b""))

    def after(self, index: int, b, seen) -> None:
        if seen is None:
            return
        step, mask, address = seen
        reg, caps = self.plans[index]
        n = self.n
        words = (n if reg >= 0 else 0) + n * len(caps)
        size = ROW_BYTES + (n + 7) // 8 + 4 * words
        if self.used + size > self.budget:
            self.over = (self.workgroup, step)
            return
        self.rows.extend((index, self.workgroup, step, self.count))
        self.masks += mask
        self.count += words
        self.used += size
        kept = self.kept
        if kept is not None:
            kept.frombytes(address)
            for kind, number in caps:
                row = b.R[number] if kind == "r" else b.P[number].astype("uint32")
                kept.frombytes(row.tobytes())

    def fill(self, report) -> None:
        report.write_log = WriteLog(self.rows.tobytes(), bytes(self.masks),
                                    None if self.kept is None else self.kept.tobytes(), self.n,
                                    self.groups, self.window, self.budget, self.used, self.over)


def values_again(log: WriteLog, twin: WriteLog | None, reason: str | None = None):
    """The values of `log` (recorded without them) from `twin`, the log of the same launch
    run again keeping them. The emulator is deterministic: the rows and masks must come out
    the same (the start of the new ones, where the first run stopped early: its time limit or
    a cancel)."""
    rows, masks = bytes(log.rows), bytes(log.masks)
    if twin is None or bytes(twin.rows[:len(rows)]) != rows \
            or bytes(twin.masks[:len(masks)]) != masks \
            or (log.over is not None and twin.over != log.over):
        raise RuntimeError("the recorded run did not repeat itself when its values were "
                           f"rebuilt ({reason or 'a different log'})")
    if len(twin.rows) == len(rows):
        return twin.kept_values
    end = int.from_bytes(twin.rows[len(rows) + 24:len(rows) + 32], "little")   # next offset
    return twin.kept_values[:end * 4]

