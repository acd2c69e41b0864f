"""Who wrote a value (`emu.provenance` over the write log, `emu.write_log`) against brute force:
on random programs, every answer (register lanes at executed lines, memory words after the run)
equals a backward scan of a full trace of the run (the numpy engine stepping, every register of
every lane kept after each step). The native core's and the numpy engine's logs are equal, the
core's values kept during the run or rebuilt by running again on first use."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from test_emu_hypothesis import block  # noqa: E402
from test_mem_trace import leaf, mem_program  # noqa: E402

from wave_lsp.emu import Launch, RunOptions, prepare, run  # noqa: E402
from wave_lsp.emu.kernel_launch import IotaFill  # noqa: E402
from wave_lsp.emu.observer import Observer  # noqa: E402
from wave_lsp.emu.provenance import Input, Provenance, TargetError  # noqa: E402
from wave_lsp.isa import OperandKind  # noqa: E402


class FullTrace(Observer):
    """Every step of every workgroup: instruction, workgroup, step, executing lanes, the
    address register before, every register and predicate after."""

    kind = "full_trace"
    single_workgroup = True
    refusal = "the full trace"

    def start(self, run) -> None:
        self.instructions = run.compiled.instructions
        self.taken = []

    def attach(self, b) -> None:
        self.workgroup, self.count = b.first_wg, 0

    def before(self, index, b):
        ins = self.instructions[index]
        mask = b.guard_mask(ins.pred_reg, ins.pred_neg) if ins.guarded else b.active
        step = self.count
        self.count += 1
        if not b.any_active:
            return None
        return step, mask.copy(), b.R[ins.rs1].copy()

    def after(self, index, b, seen) -> None:
        if seen is not None:
            step, mask, address = seen
            self.taken.append((index, self.workgroup, step, mask, address, b.R.copy(),
                               b.P.copy()))


def destinations(ins) -> set[str]:
    """What an instruction writes, from its operands (the random programs' instructions)."""
    spec = ins.spec
    if spec.memory is not None and spec.memory.kind == "store":
        return set()
    for op in spec.operands:
        if op.field.value == "rd":
            if spec.memory is not None and spec.memory.kind == "atomic" and ins.rd == 0:
                return set()
            return {("p" if op.kind is OperandKind.PREDICATE else "r") + str(ins.rd)}
    return set()


def value_of(step, name, local) -> int:
    regs, preds = step[5], step[6]
    return int(regs[int(name[1:]), local]) if name[0] == "r" else int(preds[int(name[1:]), local])


class Brute:
    """The answers by scanning the full trace backwards, one step at a time."""

    def __init__(self, trace: FullTrace, tpw: int) -> None:
        self.steps, self.instructions, self.tpw = trace.taken, trace.instructions, tpw

    def key(self, at, local):
        index, wg, step = self.steps[at][:3]
        ins = self.instructions[index]
        iteration = sum(1 for s in self.steps[:at + 1] if s[1] == wg
                        and self.instructions[s[0]].line == ins.line and s[3][local])
        return (ins.line, wg * self.tpw + local, wg, step, iteration)

    def last_write(self, name, local, wg, before):
        for at in range(before - 1, -1, -1):
            s = self.steps[at]
            if s[1] == wg and s[3][local] and name in destinations(self.instructions[s[0]]):
                return at
        return None

    def last_store(self, space, address, before, wg):
        for at in range(before - 1, -1, -1):
            s = self.steps[at]
            access = self.instructions[s[0]].spec.memory
            if access is None or access.space != space or access.kind == "load" or (
                    space == "local" and s[1] != wg):
                continue
            for local in range(len(s[3]) - 1, -1, -1):
                if s[3][local] and int(s[4][local]) <= address < int(s[4][local]) + access.width:
                    return at, local
        return None

    def sources(self, at, local):
        index, wg = self.steps[at][:2]
        ins = self.instructions[index]
        out = []
        for op in ins.spec.operands:
            if op.field.value == "rd" or op.kind not in (OperandKind.REGISTER,
                                                         OperandKind.PREDICATE):
                continue
            name = ("r" if op.kind is OperandKind.REGISTER else "p") + str(
                getattr(ins, op.field.value))
            found = self.last_write(name, local, wg, at)
            out.append((name, None if found is None else
                        (value_of(self.steps[found], name, local), self.key(found, local))))
        access = ins.spec.memory
        if access is not None and access.kind != "store":
            address = int(self.steps[at][4][local])
            found = self.last_store(access.space, address, at, wg)
            out.append((f"{access.space}[0x{address:x}]",
                        None if found is None else self.key(*found)))
        return out


def mine(answer):
    """An answer in the brute force's terms."""
    w = answer.writer
    sources = []
    for s in answer.inputs:
        if s.operand.startswith(("device[", "local[")):
            sources.append((s.operand, None if isinstance(s.writer, Input) else (
                s.writer.line, s.writer.lane, s.writer.workgroup, s.writer.step,
                s.writer.iteration)))
        elif s.operand[0] in "rp" and s.operand[1:].isdigit():
            sources.append((s.operand, None if isinstance(s.writer, Input) else (
                s.value, (s.writer.line, s.writer.lane, s.writer.workgroup, s.writer.step,
                          s.writer.iteration))))
    key = None if isinstance(w, Input) else (w.line, w.lane, w.workgroup, w.step, w.iteration)
    return answer.value, key, sources


def check(text: str, width: int, threads: int, groups: int, picks) -> None:
    launch = Launch(grid=(groups, 1, 1), workgroup=(threads, 1, 1), wave_width=width,
                    device_memory=4096, memory_init=(IotaFill(0, 512, 1.0),))
    prepared = prepare(text, launch)
    trace = FullTrace()
    reference = run(prepared, options=RunOptions(engine="numpy", initcheck=False),
                    observers=[trace])
    brute = Brute(trace, prepared.geometry.threads_per_wg)
    logs = []
    for engine, values in (("native", False), ("native", True), ("numpy", False)):
        report = run(prepared, options=RunOptions(engine=engine, write_log=True,
                                                  record_values=values, initcheck=False))
        assert not report.errors, (report.errors, text)
        logs.append([bytes(x) for x in (report.write_log.rows, report.write_log.masks,
                                        report.write_log.values)])
        assert bytes(report.device) == bytes(reference.device)
        provenance = Provenance(report, prepared)
        executed = [(s, local) for s in range(len(brute.steps))
                    for local in np.flatnonzero(brute.steps[s][3]).tolist()]
        for k in picks(len(executed)):
            at, local = executed[k]
            index, wg = brute.steps[at][:2]
            line = brute.instructions[index].line
            thread = wg * brute.tpw + local
            runs = [a for a in range(at + 1) if brute.steps[a][1] == wg
                    and brute.instructions[brute.steps[a][0]].line == line
                    and brute.steps[a][3][local]]
            for name in ("r2", "r5", "r7", "p0", "p2"):
                got = mine(provenance.register(name, thread, line, len(runs)))
                written = name in destinations(brute.instructions[index])
                found = at if written else brute.last_write(name, local, wg, at)
                if found is None:
                    assert got[1] is None, (name, thread, line, text)
                    continue
                expected = (value_of(brute.steps[found], name, local),
                            brute.key(found, local), brute.sources(found, local))
                assert got == expected, (engine, name, thread, line, text)
        for address in range(0, 4096, 4 * max(1, 64 // threads)):
            got = mine(provenance.address(address))
            found = brute.last_store("device", address, len(brute.steps), None)
            value = int.from_bytes(bytes(reference.device)[address:address + 4], "little")
            if found is None:
                assert got == (value, None, []), (address, text)
            else:
                assert got == (value, brute.key(*found), brute.sources(*found)), (address, text)
    # the core's masks (a whole one made once) too, and its values rebuilt by a re-run
    assert logs[0] == logs[1] == logs[2], text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(body=block(0, leaf=leaf(False)), width=st.sampled_from([1, 4, 8]),
       threads=st.integers(1, 20), groups=st.integers(1, 2), data=st.data())
def test_every_answer_equals_a_scan_of_the_full_trace(body, width, threads, groups, data):
    picks = lambda n: data.draw(st.lists(st.integers(0, n - 1), max_size=6)) if n else []
    check(mem_program(body), width, threads, groups, picks)


def test_native_and_numpy_logs_are_equal():
    text = mem_program(["iadd r2, r0, r8", "loop", "iadd r10, r10, r8", "icmp_gt p0, r10, r9",
                        "break p0", "device_store_u32 r1, r10", "local_store_u32 r1, r2",
                        "local_load_u32 r3, r1", "endloop"])
    prepared = prepare(text, Launch(grid=(3, 1, 1), workgroup=(12, 1, 1), wave_width=4))
    logs = [run(prepared, options=RunOptions(engine=e, write_log=True)).write_log
            for e in ("native", "numpy")]
    assert len(logs[0].rows) and [bytes(x) for x in (logs[0].rows, logs[0].masks,
                                                     logs[0].values)] \
        == [bytes(x) for x in (logs[1].rows, logs[1].masks, logs[1].values)]


KERNEL = mem_program(["iadd r2, r0, r8", "device_store_u32 r1, r2"])


def test_the_cores_values_are_rebuilt_on_first_use_to_the_last_recorded_workgroup():
    prepared = prepare(KERNEL, Launch(grid=(4, 1, 1), workgroup=(8, 1, 1), wave_width=8))
    options = RunOptions(engine="native", write_log=True, record_workgroups=(1, 2))
    kept = run(prepared, options=dataclasses.replace(options, record_values=True)).write_log
    lazy = run(prepared, options=options).write_log
    assert lazy.kept_values is None and lazy.last_group == 2 and len(kept.values) > 0
    assert bytes(lazy.values) == bytes(kept.values) and lazy.rebuild is None
    assert (lazy.used, lazy.over) == (kept.used, kept.over)
    early = run(prepared, options=options).write_log     # as if stopped by its time limit
    early.rows, early.masks = early.rows[:5 * 32], early.masks[:5]
    offsets = np.frombuffer(kept.rows, dtype=np.int64).reshape(-1, 4)[:, 3]
    assert bytes(early.values) == bytes(kept.values)[:int(offsets[5]) * 4]
    tampered = run(prepared, options=options).write_log
    tampered.masks = bytes(len(tampered.masks))          # not what a run again writes
    with pytest.raises(RuntimeError, match="did not repeat itself"):
        tampered.values


@pytest.mark.parametrize("engine", ["native", "numpy"])
def test_a_recording_past_its_budget_says_what_to_record_instead(engine):
    prepared = prepare(KERNEL, Launch(grid=(4, 1, 1), workgroup=(32, 1, 1)))
    report = run(prepared, options=RunOptions(engine=engine, write_log=True,
                                              record_budget=2000))
    assert report.write_log.over is not None
    with pytest.raises(TargetError) as err:
        Provenance(report, prepared)
    assert "--record-workgroups" in str(err.value) and "--record-steps" in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("engine", ["native", "numpy"])
def test_recorded_workgroups_and_step_window(engine):
    prepared = prepare(KERNEL, Launch(grid=(4, 1, 1), workgroup=(8, 1, 1), wave_width=8))
    report = run(prepared, options=RunOptions(engine=engine, write_log=True,
                                              record_workgroups=(2,), record_steps=(7, None)))
    provenance = Provenance(report, prepared)
    rows = np.frombuffer(report.write_log.rows, dtype=np.int64).reshape(-1, 4)
    assert set(rows[:, 1].tolist()) == {2} and rows[:, 2].min() >= 7
    answer = provenance.register("r2", 17, 10)          # iadd r2, r0, r8 at step 7
    assert (answer.writer.line, answer.writer.lane, answer.value) == (10, 17, 2)
    assert [s.writer.kind for s in answer.inputs] == ["unrecorded", "unrecorded"]
    with pytest.raises(TargetError, match="workgroup 0, which was not recorded"):
        provenance.register("r2", 3, 10)
    with pytest.raises(TargetError, match="did not run in thread 17 in the recorded steps"):
        provenance.register("r2", 17, 2)


FMA_RUNS = """.kernel fused
.registers 16
    mov_sr r0, sr_thread_id_x
    cvt_f32_u32 r1, r0
    mov_imm r2, 1069547520
    mov_imm r3, 1075838976
    mov_imm r12, 4
    mov_imm r13, 0
    loop
    fma r4, r1, r2, r3
    fma r5, r2, r3, r1
    fma r6, r3, r1, r2
    fma r7, r1, r1, r3
    iadd r13, r13, r12
    icmp_gt p0, r13, r12
    @p0 fma r8, r4, r5, r6
    fma r9, r5, r6, r7
    fma r10, r6, r7, r4
    mov r1, r9
    mov r2, r10
    mov_imm r14, 12
    icmp_gt p1, r13, r14
    break p1
    endloop
    mov_sr r11, sr_workgroup_id_x
    mov_imm r14, 8
    imul r11, r11, r14
    iadd r11, r11, r0
    imul r14, r11, r12
    device_store_u32 r14, r8
    halt
.end
"""


@pytest.mark.parametrize("width", [4, 8])
def test_the_numpy_engines_log_of_fused_runs_is_the_cores(width):
    """The numpy engine runs straight runs of fma fused (one numpy evaluation for the run,
    every lane active) while it records: each of their steps is logged as run one by one, the
    same bytes as the core's log; its values are rebuilt on first use, as the core's."""
    prepared = prepare(FMA_RUNS, Launch(grid=(2, 1, 1), workgroup=(8, 1, 1), wave_width=width,
                                        device_memory=64))
    numpy_log = run(prepared, options=RunOptions(engine="numpy", write_log=True)).write_log
    assert numpy_log.kept_values is None                   # not kept during the run
    native = run(prepared, options=RunOptions(engine="native", write_log=True,
                                              record_values=True)).write_log
    assert len(native.rows) and bytes(numpy_log.rows) == bytes(native.rows)
    assert bytes(numpy_log.masks) == bytes(native.masks)
    assert bytes(numpy_log.values) == bytes(native.values)
    kept = run(prepared, options=RunOptions(engine="numpy", write_log=True,
                                            record_values=True)).write_log
    assert bytes(kept.kept_values) == bytes(native.values)
