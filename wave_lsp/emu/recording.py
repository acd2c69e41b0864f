"""The per-line record of the editor's inline results (`LineRecorder`, an `observer.Observer`:
`RunOptions(record_threads=...)` → `report.line_records`), and the assembly text of an
instruction (`render`) and what it writes (`write_plan`).

An observer sees every instruction before and after it runs (the engine switches to an observed
loop only when one is requested, so the normal loop pays nothing).
"""

from __future__ import annotations

import numpy as np

from ..isa import SCOPE_BY_VALUE, SPECIAL_BY_INDEX, OperandKind
from ..isa import InstructionClass as IC
from .alu import FUNCTIONS, signature
from .observer import Observer
from .report import LineRecord, WriteRecord
from .state import Batch

_KIND_OF_CLASS = {IC.FLOAT: "f32", IC.F16: "f16", IC.BF16: "bf16", IC.F64: "f64"}


def render(ins) -> str:
    """Assembly text of a decoded instruction."""
    guard = ""
    if ins.guarded:
        guard = f"@{'!' if ins.pred_neg else ''}p{ins.pred_reg} "
    parts = []
    for op in ins.spec.operands:
        value = getattr(ins, op.field.value, 0) if op.field.value in (
            "rd", "rs1", "rs2", "rs3", "rs4", "scope") else ins.imm
        if op.optional and value == 0:
            continue
        if op.kind is OperandKind.PREDICATE:
            parts.append(f"p{value}")
        elif op.kind is OperandKind.SPECIAL:
            special = SPECIAL_BY_INDEX.get(value)
            parts.append(special.name if special else f"sr_{value}")
        elif op.kind in (OperandKind.IMMEDIATE, OperandKind.LABEL):
            parts.append(f"0x{value & 0xFFFFFFFF:08x}")
        elif op.kind is OperandKind.SCOPE:
            scope = SCOPE_BY_VALUE.get(value)
            parts.append("." + scope.name if scope else str(value))
        else:
            parts.append(f"r{value}")
    text = ins.spec.mnemonic + (" " + ", ".join(parts) if parts else "")
    return guard + text


def _mask_of(b: Batch, index_ins) -> np.ndarray:
    if index_ins.guarded:
        return b.guard_mask(index_ins.pred_reg, index_ins.pred_neg)
    return b.active


def write_plan(ins):
    """What an instruction writes: list of ("r", reg, kind) / ("p", pred) / ("mem", space, ...)."""
    spec = ins.spec
    m = spec.mnemonic
    kind = _KIND_OF_CLASS.get(spec.iclass, "u32")
    if m in FUNCTIONS:
        dest = signature(spec)[1]
        if spec.conversion is not None:
            kind = {"f32": "f32", "f16": "f16", "f64": "f64", "bf16": "bf16", "i32": "i32"}.get(
                spec.conversion[0], "u32")
        if dest == "p":
            return [("p", ins.rd)]
        if dest == "d":
            return [("r", ins.rd, "f64lo"), ("r", ins.rd + 1, "f64hi")]
        return [("r", ins.rd, kind)]
    if m in ("mov_imm", "mov_sr"):
        return [("r", ins.rd, "u32")]
    access = spec.memory
    if access is not None and access.kind == "load":
        return [("r", ins.rd + i, "u32") for i in range(access.words)]
    if access is not None and access.kind == "store":
        return [("mem", access.space, ins.rs1, ins.rs2, access.words)]
    if access is not None:
        return [("r", ins.rd, "u32")] if ins.rd else []
    if spec.iclass is IC.WAVE:
        if spec.operands[0].kind is OperandKind.PREDICATE:
            return [("p", ins.rd)]
        return [("r", ins.rd, "u32")]
    return []


def shown_threads(record_threads, geo) -> tuple[int, ...]:
    """The threads a `LineRecorder` records: "first_wave" (the first wave of workgroup 0) or
    the global linear thread ids given."""
    if record_threads == "first_wave":
        return tuple(range(min(geo.wave_width, geo.threads_per_wg)))
    return tuple(int(t) for t in record_threads)


class LineRecorder(Observer):
    """Keeps, per source line, what the recorded threads' executions wrote (`record_threads`:
    "first_wave" or global linear thread ids; `limit` executions kept per line). The native
    core records the same itself (native/record.c) where the shown threads lie in one
    workgroup.

    The numpy engine runs several workgroups in lock-step; a region that the shown threads'
    workgroup would skip, run alone (an if, else or loop it enters with no active lane), is
    stepped while another workgroup of the batch runs it. Those steps are not the shown
    threads' executions, and are not counted: the record is the same whatever the batch."""

    kind = "lines"
    native = True
    refusal = "recording"

    def __init__(self, record_threads, limit: int):
        self.record_threads = record_threads
        self.limit = limit

    def start(self, run) -> None:
        compiled = self.compiled = run.compiled
        geo = self.geo = run.geometry
        self.threads = shown_threads(self.record_threads, geo)
        self.records: dict[int, LineRecord] = {}
        self.plans = [write_plan(ins) for ins in compiled.instructions]
        self.lanes = np.zeros(0, dtype=np.int64)
        self.ids: list[int] = []
        from .plan import make_plan
        plan = make_plan(compiled.instructions)
        self.skips = {**plan.if_skip, **plan.else_skip, **plan.loop_skip}
        self.shown_workgroup = slice(0, 0)          # the lanes of the shown threads' workgroup
        self.until = None                 # skipped by that workgroup run alone, up to here

    def fill(self, report) -> None:
        report.line_records = self.records
        report.recorded_threads = self.threads

    def attach(self, b: Batch) -> None:
        tpw = self.geo.threads_per_wg
        lanes, ids = [], []
        for t in self.threads:
            wg, local = divmod(t, tpw)
            if b.first_wg <= wg < b.first_wg + b.wg_count and local < tpw:
                lanes.append((wg - b.first_wg) * b.lanes_per_wg + local)
                ids.append(t)
        self.lanes = np.array(lanes, dtype=np.int64)
        self.ids = ids
        self.until = None
        groups = {lane // b.lanes_per_wg for lane in lanes}
        first = groups.pop() * b.lanes_per_wg if len(groups) == 1 else 0
        self.shown_workgroup = slice(first, first + b.lanes_per_wg) if lanes and not groups else None

    def before(self, index: int, b: Batch):
        if not self.lanes.size:
            return None
        if self.until is not None:
            if index != self.until:
                return None
            self.until = None
        ins = self.compiled.instructions[index]
        mask = _mask_of(b, ins)[self.lanes]
        present = bool(b.present[self.lanes // b.W].any())
        addresses = None
        for item in self.plans[index]:
            if item[0] == "mem":
                addresses = b.R[item[2]][self.lanes].copy()
        return mask, present, addresses

    def after(self, index: int, b: Batch, before) -> None:
        if before is None:
            return
        skip = self.skips.get(index)
        if skip is not None and self.shown_workgroup is not None and b.wg_count > 1 \
                and not b.active[self.shown_workgroup].any():
            self.until = skip
        mask, present, addresses = before
        if not present:
            return
        ins = self.compiled.instructions[index]
        key = ins.line if ins.line is not None else ins.offset
        record = self.records.get(key)
        if record is None:
            record = self.records[key] = LineRecord(ins.line, ins.offset, ins.spec.mnemonic)
            record.first_active = tuple(bool(v) for v in mask.tolist())
        record.count += 1
        if len(record.writes) >= self.limit or not mask.any():
            return
        active_ids = [t for t, on in zip(self.ids, mask.tolist()) if on]
        active_lanes = self.lanes[mask]
        writes = []
        for item in self.plans[index]:
            if item[0] == "r" and item[1] < b.R.shape[0]:
                values = b.R[item[1]][active_lanes].tolist()
                writes.append(WriteRecord(f"r{item[1]}", dict(zip(active_ids, values)), item[2]))
            elif item[0] == "p" and item[1] < 4:
                values = [int(v) for v in b.P[item[1]][active_lanes].tolist()]
                writes.append(WriteRecord(f"p{item[1]}", dict(zip(active_ids, values)), "pred"))
            elif item[0] == "mem":
                _, space, _, rv, nwords = item
                addr = addresses[mask].tolist()
                for w in range(nwords):
                    if rv + w >= b.R.shape[0]:
                        break
                    values = b.R[rv + w][active_lanes].tolist()
                    target = f"{space}[0x{addr[0] + 4 * w:x}]" if len(set(addr)) == 1 \
                        else f"{space}[r{ins.rs1}{'+' + str(4 * w) if w else ''}]"
                    writes.append(WriteRecord(target, dict(zip(active_ids, values)), "u32"))
        record.writes.append(writes)
