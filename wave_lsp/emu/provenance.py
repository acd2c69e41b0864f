"""Who wrote a value, from a run's write log (`write_log`): for a register or predicate lane at
an executed line, or a device memory word after the run, the write that made it (`Write`: line,
thread, wave, workgroup, step, iteration, instruction) and, for each source operand of that
instruction, who wrote the operand's value then (`Source`), down to the kernel's inputs
(`Input`: `--set-reg`, `--arg`, `--fill-*`, special registers, immediates, zeroed state).

`Provenance(report, prepared)` indexes the log once; `register(name, thread, line, iteration)`,
`register_before(name, thread, step)` (a debugger's "now") and `address(address)` answer
(`Answer`), `answer_of(write)` follows one step of the chain.
Each answer searches the log with numpy (per register: the sorted steps that write it), so an
answer costs what the recorded steps of one workgroup cost to scan, not a re-run.

The definitions (the design: docs/dev/time-travel.md): a register "at line L" is the value the
line wrote there (a line that writes it) or the value it had when the line ran (any other
line), at the line's last execution by the thread unless an iteration (1-based) is asked; a
memory word's writer is the last store or atomic, in the order the run executed them, that
wrote its first byte; an operand's writer is the last write of that register by the same thread
before the instruction ran, and a load's memory operand the last store to its address before
it (device memory: any recorded workgroup; local memory: the same workgroup).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..isa import SPECIAL_BY_INDEX, OperandKind
from .kernel_launch import DataFill, IotaFill, LaunchError, ZeroFill
from .recording import render
from .write_log import address_register, budget_message, captures_of


class TargetError(LaunchError):
    """A target the run cannot answer for (a line that did not run, a thread outside the
    launch or the recorded workgroups, ...); the message is one line."""


@dataclass(frozen=True)
class Input:
    """A value the recorded steps did not write: `kind` is "set-reg", "special", "immediate",
    "memory" (a launch initialiser), "zero" (registers, predicates and memory start at 0) or
    "unrecorded"; `text` names it as the command line does."""

    kind: str
    text: str


@dataclass(frozen=True)
class Write:
    """One execution's write of `target` in one thread (`lane`: the global thread id)."""

    target: str
    value: int
    line: int | None
    pc: int
    lane: int
    wave: int
    workgroup: int
    step: int
    iteration: int
    instruction: str
    row: int
    local: int


@dataclass(frozen=True)
class Source:
    """A source operand of a write: its name, its value then, and who wrote that value."""

    operand: str
    value: int | None
    writer: Write | Input


@dataclass(frozen=True)
class Answer:
    """Who wrote a value: `writer` (a `Write`, or the `Input` it came from) and, for a write,
    its instruction's `inputs`."""

    value: int | None
    writer: Write | Input
    inputs: tuple[Source, ...]


class Provenance:
    """The answers of one recorded run (see the module doc)."""

    def __init__(self, report, prepared) -> None:
        log = report.write_log
        if log is None:
            raise TargetError("the run was not recorded")
        if log.over is not None:
            raise TargetError(budget_message(log))
        self.log, self.device, self.writers = log, report.device, report.writers
        self.launch, self.geo = prepared.launch, prepared.geometry
        self.instructions = prepared.kernel.instructions
        self.n, self.tpw, self.W = log.n, self.geo.threads_per_wg, self.geo.wave_width
        rows = np.frombuffer(log.rows, dtype=np.int64).reshape(-1, 4)
        self.index, self.workgroup_ids, self.step, self.offset = (rows[:, i] for i in range(4))
        bits = np.frombuffer(log.masks, dtype=np.uint8).reshape(len(rows), (self.n + 7) // 8)
        self.masks = np.unpackbits(bits, axis=1, bitorder="little")[:, :self.n]
        self._values = None            # `values`: rebuilt on the first answer where not kept
        registers = self.geo.registers
        self.captures = [captures_of(ins, registers) for ins in self.instructions]
        self.addressed = [address_register(ins, registers) >= 0 for ins in self.instructions]
        keys = [ins.line if ins.line is not None else ins.offset for ins in self.instructions]
        self.line_of_row = np.asarray(keys, dtype=np.int64)[self.index] if len(rows) \
            else np.zeros(0, dtype=np.int64)
        self._writing: dict[str, np.ndarray] = {}
        self._stores: dict[str, np.ndarray] = {}

    # -- the log ------------------------------------------------------------------------------

    @property
    def values(self) -> np.ndarray:
        if self._values is None:
            self._values = np.frombuffer(self.log.values, dtype=np.uint32)
        return self._values

    def _range(self, workgroup: int) -> tuple[int, int]:
        return (int(np.searchsorted(self.workgroup_ids, workgroup, "left")),
                int(np.searchsorted(self.workgroup_ids, workgroup, "right")))

    def _writing_rows(self, name: str) -> np.ndarray:
        rows = self._writing.get(name)
        if rows is None:
            writes = np.array([name in caps for caps in self.captures], dtype=bool)
            rows = self._writing[name] = np.flatnonzero(writes[self.index]) if writes.any() \
                else np.zeros(0, dtype=np.int64)
        return rows

    def _value(self, row: int, name: str, local: int) -> int:
        caps = self.captures[self.index[row]]
        at = self.offset[row] + (self.addressed[self.index[row]] + caps.index(name)) * self.n
        return int(self.values[at + local])

    def _address(self, row: int, local: int) -> int:
        return int(self.values[self.offset[row] + local])

    def last_write(self, name: str, local: int, workgroup: int, before: int) -> int | None:
        """The last row before row `before` where `local` of `workgroup` wrote `name`."""
        rows = self._writing_rows(name)
        first = self._range(workgroup)[0]
        sub = rows[np.searchsorted(rows, first):np.searchsorted(rows, before)]
        hits = sub[self.masks[sub, local] != 0]
        return int(hits[-1]) if hits.size else None

    def _store_rows(self, space: str) -> np.ndarray:
        rows = self._stores.get(space)
        if rows is None:
            wanted = np.array([ins.spec.memory is not None and ins.spec.memory.space == space
                               and ins.spec.memory.kind != "load" and self.addressed[i]
                               for i, ins in enumerate(self.instructions)], dtype=bool)
            rows = self._stores[space] = np.flatnonzero(wanted[self.index])
        return rows

    def last_store(self, space: str, address: int, before: int,
                   workgroup: int | None) -> tuple[int, int] | None:
        """(row, lane in its workgroup) of the last store or atomic to the byte at `address`
        before row `before` (local memory: in `workgroup`), or None."""
        rows = self._store_rows(space)
        first = self._range(workgroup)[0] if workgroup is not None else 0
        rows = rows[np.searchsorted(rows, first):np.searchsorted(rows, before)]
        lanes = np.arange(self.n)
        for end in range(len(rows), 0, -256):
            chunk = rows[max(0, end - 256):end]
            addrs = self.values[self.offset[chunk][:, None] + lanes].astype(np.int64)
            widths = np.array([self.instructions[i].spec.memory.width
                               for i in self.index[chunk]], dtype=np.int64)[:, None]
            hit = (self.masks[chunk] != 0) & (addrs <= address) & (address < addrs + widths)
            found = np.flatnonzero(hit.any(axis=1))
            if found.size:
                k = int(found[-1])
                return int(chunk[k]), int(np.flatnonzero(hit[k])[-1])
        return None

    # -- answers ------------------------------------------------------------------------------

    def write(self, row: int, local: int, target: str, value: int) -> Write:
        """The `Write` of row `row` by lane `local` of its workgroup."""
        ins = self.instructions[self.index[row]]
        workgroup = int(self.workgroup_ids[row])
        first = self._range(workgroup)[0]
        same = (self.line_of_row[first:row + 1] == self.line_of_row[row]) \
            & (self.masks[first:row + 1, local] != 0)
        return Write(target, value, ins.line, ins.offset, workgroup * self.tpw + local,
                     local // self.W, workgroup, int(self.step[row]), int(same.sum()),
                     render(ins), row, local)

    def _initial(self, name: str, workgroup: int) -> tuple[int, Input]:
        number = int(name[1:])
        if name[0] == "r" and number in self.launch.set_regs:
            value = int(self.launch.set_regs[number]) & 0xFFFFFFFF
            return value, Input("set-reg", f"--set-reg {number}:{value}")
        if self.log.window[0] > 0:
            return None, Input("unrecorded", f"written before step {self.log.window[0]} "
                                             f"(outside --record-steps)")
        return 0, Input("zero", f"{name} zeroed at launch")

    def _register_source(self, name: str, local: int, workgroup: int, row: int) -> Source:
        found = self.last_write(name, local, workgroup, row)
        if found is None:
            return Source(name, *self._initial(name, workgroup))
        value = self._value(found, name, local)
        return Source(name, value, self.write(found, local, name, value))

    def _memory_input(self, address: int, complete: bool = False) -> Input:
        for item in reversed(self.launch.memory_init):
            length = len(item.data) if isinstance(item, DataFill) else 4 * item.count
            if item.offset <= address < item.offset + length:
                if isinstance(item, IotaFill):
                    text = f"--fill-iota {item.offset}:f32:{item.count}:{item.scale:g}"
                elif isinstance(item, ZeroFill):
                    text = f"--fill-zero {item.offset}:u32:{item.count}"
                else:
                    text = f"--arg {item.offset}:FILE ({len(item.data)} bytes)"
                return Input("memory", text)
        if not complete and not all(self.log.groups):
            return Input("unrecorded", "the launch's zeroed memory or a workgroup not recorded "
                                       "(--record-workgroups)")
        return Input("zero", "the launch's zeroed device memory")

    def _unrecorded_between(self, low: int, high: int) -> bool:
        """Whether a workgroup low < w < high was not recorded (it may have stored there)."""
        flags = np.frombuffer(self.log.groups, dtype=np.uint8)[low + 1:high]
        return bool(flags.size) and not bool(flags.all())

    def _memory_source(self, row: int, local: int, space: str, value: int | None) -> Source:
        address = self._address(row, local)
        workgroup = int(self.workgroup_ids[row])
        target = f"{space}[0x{address:x}]"
        found = self.last_store(space, address, row, workgroup if space == "local" else None)
        if space == "device" and self._unrecorded_between(
                -1 if found is None else int(self.workgroup_ids[found[0]]), workgroup):
            return Source(target, value, Input("unrecorded", "the launch's memory or a "
                                                             "workgroup not recorded "
                                                             "(--record-workgroups)"))
        if found is None:
            writer = self._memory_input(address) if space == "device" else \
                Input("zero", "local memory, zeroed at launch")
            return Source(target, value, writer)
        store_row, lane = found
        return Source(target, value, self.write(store_row, lane, target, value))

    def sources(self, row: int, local: int) -> tuple[Source, ...]:
        """The source operands of row `row`'s instruction in lane `local`, each with its
        writer."""
        ins = self.instructions[self.index[row]]
        workgroup = int(self.workgroup_ids[row])
        out = []
        for op in ins.spec.operands:
            field = op.field.value
            if field == "rd":
                continue
            number = getattr(ins, field, 0) if field.startswith("rs") else ins.imm
            if op.kind is OperandKind.REGISTER:
                out.append(self._register_source(f"r{number}", local, workgroup, row))
            elif op.kind is OperandKind.PREDICATE:
                out.append(self._register_source(f"p{number}", local, workgroup, row))
            elif op.kind is OperandKind.SPECIAL:
                special = SPECIAL_BY_INDEX.get(number)
                name = special.name if special else f"sr_{number}"
                caps = self.captures[self.index[row]]
                value = self._value(row, caps[0], local) if caps else None
                out.append(Source(name, value, Input("special", f"special register {name}")))
            elif op.kind is OperandKind.IMMEDIATE:
                out.append(Source(f"0x{number & 0xFFFFFFFF:x}", number & 0xFFFFFFFF,
                                  Input("immediate", "a constant in the code")))
        access = ins.spec.memory
        if access is not None and access.kind != "store" and self.addressed[self.index[row]]:
            caps = self.captures[self.index[row]]
            value = self._value(row, caps[0], local) if caps else None
            out.append(self._memory_source(row, local, access.space, value))
        return tuple(out)

    def answer_of(self, write: Write) -> Answer:
        """The answer for a `Write` (one more step along the chain)."""
        return Answer(write.value, write, self.sources(write.row, write.local))

    def _thread(self, thread: int) -> tuple[int, int]:
        workgroup, local = divmod(thread, self.tpw)
        if thread < 0 or workgroup >= self.geo.workgroup_count:
            raise TargetError(f"thread {thread} is not in the launch "
                              f"({self.geo.workgroup_count * self.tpw} threads)")
        if not self.log.recorded(workgroup):
            raise TargetError(f"thread {thread} is in workgroup {workgroup}, which was not "
                              f"recorded (--record-workgroups)")
        return workgroup, local

    def register(self, name: str, thread: int, line: int,
                 iteration: int | None = None) -> Answer:
        """Who wrote register or predicate `name` ("r4", "p0") of `thread` at source line
        `line` (0-based), at its last execution there or its `iteration` (1-based)."""
        if not (len(name) > 1 and name[0] in "rp" and name[1:].isdigit()) or (
                name[0] == "r" and int(name[1:]) >= self.geo.registers) or (
                name[0] == "p" and int(name[1:]) > 3):
            raise TargetError(f"'{name}' is not a register or predicate of this kernel "
                              f"(r0-r{self.geo.registers - 1}, p0-p3)")
        workgroup, local = self._thread(thread)
        first, end = self._range(workgroup)
        runs = first + np.flatnonzero((self.line_of_row[first:end] == line)
                                      & (self.masks[first:end, local] != 0))
        if not runs.size:
            raise TargetError(f"line {line + 1} did not run in thread {thread}"
                              + (" in the recorded steps" if self.log.window != (0, -1) else ""))
        if iteration is not None and not 1 <= iteration <= runs.size:
            raise TargetError(f"line {line + 1} ran {runs.size} times in thread {thread}, "
                              f"not {iteration}")
        row = int(runs[-1 if iteration is None else iteration - 1])
        if name not in self.captures[self.index[row]]:
            source = self._register_source(name, local, workgroup, row)
            if isinstance(source.writer, Input):
                return Answer(source.value, source.writer, ())
            return self.answer_of(source.writer)
        value = self._value(row, name, local)
        return self.answer_of(self.write(row, local, name, value))

    def register_before(self, name: str, thread: int, step: int) -> Answer:
        """Who wrote register or predicate `name` of `thread` as it is before its workgroup's
        step `step` runs (the steps a `SteppingRun` counts: the debugger's "now")."""
        workgroup, local = self._thread(thread)
        first, end = self._range(workgroup)
        row = first + int(np.searchsorted(self.step[first:end], step))
        source = self._register_source(name, local, workgroup, row)
        if isinstance(source.writer, Input):
            return Answer(source.value, source.writer, ())
        return self.answer_of(source.writer)

    def address(self, address: int) -> Answer:
        """Who wrote the device memory word at `address` (its first byte), after the run."""
        size = len(self.device)
        if not 0 <= address <= size - 4:
            raise TargetError(f"address {address:#x} is outside device memory ({size} bytes)")
        value = int.from_bytes(bytes(memoryview(self.device)[address:address + 4]), "little")
        target = f"device[0x{address:x}]"
        last = self.writers.at(address) if self.writers is not None else None
        if self.writers is not None and last is None:      # no workgroup stored there
            return Answer(value, self._memory_input(address, complete=True), ())
        if last is not None and not self.log.recorded(last[1] // self.tpw):
            line, thread = last                 # the store-writer record: every workgroup
            return Answer(value, Input("unrecorded", f"line {line + 1}, thread {thread} "
                                                     f"(workgroup {thread // self.tpw}, not "
                                                     f"recorded)"), ())
        found = self.last_store("device", address, len(self.index), None)
        if found is None:
            return Answer(value, self._memory_input(address), ())
        row, lane = found
        return self.answer_of(self.write(row, lane, target, value))
