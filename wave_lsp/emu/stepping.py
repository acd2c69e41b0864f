"""Instruction-by-instruction execution of one launch, for the debugger.

`SteppingRun` starts from the same `PreparedLaunch` as `pipeline.run` (kernel selection and
geometry by `pipeline.prepare`; device memory, compiled instructions and run context as the
numpy engine makes them) but executes one workgroup at a time, in
workgroup order, one instruction per `step()`. The waves of the running workgroup advance in
lock-step, as the engine runs them: after a step every wave is before the same instruction, and
a wave whose lanes are all inactive there (the other side of a divergent `if`, a finished loop)
simply has no active lane. Between steps the state of each wave may be read and changed through
`registers_of`, `predicates_of`, `special_of`, `alive_of`, `control_frames` (the divergence
stack: `IfFrame`, `LoopFrame`, innermost last), `call_frames` (`CallFrame`), `local_memory` and
`device` — the debugger uses these, not the engine's batch.

Running a `SteppingRun` to its end gives the same `RunReport` (memory, errors, statistics,
warnings) as `run(program, launch, options)`; tests/debug/test_stepping.py checks it on every
example. Of the `RunOptions` it honours the instruction limit and the uninitialised-read check.

What it relies on from the rest of the emulator (keep these when refactoring):
`pipeline.prepare` and `PreparedLaunch.summary`, `kernel_launch.new_device_memory`,
`compiler.compile_kernel` (one `op(batch) -> next index | None` per instruction),
`initcheck.check_launch`,
`engine.to_error`, `engine._limit_fault`, `engine._step_limit`, `engine._finish_stats`, and
`Batch(geo, first_wg, 1, device, set_regs)` with its `ctrl`/`calls` frames.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from .compiler import CompiledKernel, compile_kernel
from .context import RunContext
from .engine import Limits, _finish_stats, _limit_fault, _step_limit, to_error
from .initcheck import check_launch
from .kernel_launch import Launch, new_device_memory
from .options import RunOptions
from .prepared import PreparedLaunch, prepare
from .report import EmuError, RunReport
from .control import CallFrame, IfFrame, LoopFrame  # noqa: F401 - the frames shown
from .state import Batch, Fault

# What a checkpoint copies besides the batch, device memory and the context.
_SCALARS = ("workgroup", "index", "steps", "position", "finished", "_stats_done")
_SHARED_CONTEXT = frozenset({"batch", "pcs", "lines", "on_skip"})


PAGE = 1 << 16           # bytes of device memory per checkpoint page


@dataclass
class Checkpoint:
    """The state of a `SteppingRun` at `position` (see `SteppingRun.snapshot`)."""

    position: int
    pages: tuple[np.ndarray, ...]       # device memory, PAGE bytes each (shared when equal)
    batch: Batch | None
    context: dict
    error: EmuError | None
    scalars: dict
    shadow: dict | None = None          # the uninitialised-read check's shadows (initcheck)

    @property
    def all_pages(self) -> tuple[np.ndarray, ...]:
        """The device pages and the device shadow's pages."""
        return self.pages + (self.shadow["pages"] if self.shadow is not None else ())

    @property
    def own_bytes(self) -> int:
        """About how much memory the checkpoint holds besides its pages."""
        size = 0
        if self.shadow is not None:
            size += sum(row.nbytes for row in self.shadow["rows"].values()) + \
                (self.shadow["local"].nbytes if self.shadow["local"] is not None else 0)
        if self.batch is not None:
            b = self.batch
            size += b.R.nbytes + b.P.nbytes + b.local.nbytes + 16 * b.n * (len(b.ctrl) + 4)
        return size + 64 * len(self.context.get("counts", ()))

    @property
    def nbytes(self) -> int:
        """About how much memory the checkpoint holds, its device pages all counted."""
        return self.own_bytes + sum(page.nbytes for page in self.all_pages)


# What `step()` returns.
RAN = "ran"                      # the instruction ran; the workgroup goes on
WORKGROUP_DONE = "workgroup"     # the workgroup ended; the next one is now loaded
FINISHED = "finished"            # the last workgroup ended (or the run was already over)
FAULTED = "error"                # the instruction raised a run-time error (see `error`)


class SteppingRun:
    """One launch of one kernel, advanced one instruction of the current workgroup at a time."""

    def __init__(self, program, launch: Launch | None = None,
                 options: RunOptions | None = None):
        """`program` and `launch` as `pipeline.run` takes them (or a `PreparedLaunch` alone)."""
        self.prepared = program if isinstance(program, PreparedLaunch) else \
            prepare(program, launch)
        self.options = options if options is not None else RunOptions()
        self.launch = launch = self.prepared.launch
        self.kernel = self.prepared.kernel
        self.geo = self.prepared.geometry
        self.device = new_device_memory(launch)
        instructions = self.kernel.instructions
        self.ctx = RunContext([i.offset for i in instructions], [i.line for i in instructions])
        self.compiled: CompiledKernel = compile_kernel(self.kernel, self.geo.registers,
                                                       self.ctx, instructions)
        self.set_regs = {int(k): int(v) for k, v in launch.set_regs.items()}
        self.shadow = check_launch(self.compiled, self.ctx, launch, self.options,
                                   self.geo.registers, self.device.size, self.set_regs)
        self.ctx.counts = [0] * len(self.compiled.ops)
        self.limits = Limits(self.options.max_instructions, None, None)
        self.step_limit = _step_limit(self.limits, self.geo.waves_per_wg)
        self.error: EmuError | None = None
        self.finished = False
        self.workgroup = -1            # linear id of the workgroup being run
        self.batch: Batch | None = None
        self.index = 0                 # the next instruction of the current workgroup
        self.steps = 0                 # steps taken in the current workgroup
        self.position = 0              # steps taken since the launch began, all workgroups
        self._stats_done = False
        self._load_workgroup(0)

    # ---- geometry --------------------------------------------------------------------------
    @property
    def waves(self) -> int:
        """Waves per workgroup."""
        return self.geo.waves_per_wg

    @property
    def instructions(self):
        return self.compiled.instructions

    def wave_lanes(self, wave: int) -> slice:
        """The batch lanes of `wave` of the current workgroup."""
        W = self.geo.wave_width
        return slice(wave * W, (wave + 1) * W)

    def lane_count(self, wave: int) -> int:
        """Lanes of `wave` that are real threads (the last wave may be partial)."""
        W = self.geo.wave_width
        return max(0, min(W, self.geo.threads_per_wg - wave * W))

    def active(self, wave: int) -> np.ndarray:
        """Per lane of `wave`: active before the next instruction."""
        if self.batch is None:
            return np.zeros(self.geo.wave_width, dtype=bool)
        return self.batch.active[self.wave_lanes(wave)]

    def executing(self, wave: int) -> np.ndarray:
        """Per lane of `wave`: would execute the next instruction (its guard applied)."""
        if self.batch is None or self.index >= len(self.instructions):
            return np.zeros(self.geo.wave_width, dtype=bool)
        ins = self.instructions[self.index]
        mask = self.batch.guard_mask(ins.pred_reg, ins.pred_neg) if ins.guarded \
            else self.batch.active
        return mask[self.wave_lanes(wave)]

    # ---- the state of a wave (views: writing into them changes the run) -----------------------
    def registers_of(self, wave: int) -> np.ndarray:
        """(registers, wave width) u32 registers of `wave` of the current workgroup."""
        return self.batch.R[:, self.wave_lanes(wave)]

    def predicates_of(self, wave: int) -> np.ndarray:
        """(predicates, wave width) predicate bits of `wave`."""
        return self.batch.P[:, self.wave_lanes(wave)]

    def special_of(self, wave: int, index: int) -> np.ndarray:
        """Special register `index` (isa.SPECIAL_REGISTERS) per lane of `wave`."""
        return self.batch.special(index)[self.wave_lanes(wave)]

    def alive_of(self, wave: int) -> np.ndarray:
        """Per lane of `wave`: a thread that has not halted."""
        return self.batch.alive[self.wave_lanes(wave)]

    @property
    def control_frames(self) -> list:
        """The divergence stack of the current workgroup (`IfFrame`/`LoopFrame`, innermost
        last; masks over all its lanes: index them with `wave_lanes`)."""
        return self.batch.ctrl if self.batch is not None else []

    @property
    def call_frames(self) -> list:
        """The call stack of the current workgroup (`CallFrame`, innermost last)."""
        return self.batch.calls if self.batch is not None else []

    @property
    def local_memory(self) -> np.ndarray:
        """The current workgroup's local memory (uint8)."""
        return self.batch.local[:self.geo.local_memory]

    def has_active(self, wave: int) -> bool:
        return bool(self.active(wave).any())

    @property
    def call_depth(self) -> int:
        return len(self.batch.calls) if self.batch is not None else 0

    @property
    def current(self):
        """The next instruction (after a fault: the faulting one), or None at the end."""
        if self.index >= len(self.instructions):
            return None
        return self.instructions[self.index]

    # ---- execution -------------------------------------------------------------------------
    def step(self) -> str:
        """Execute the next instruction for every wave of the current workgroup."""
        if self.finished:
            return FINISHED
        b = self.batch
        index = self.index
        ops = self.compiled.ops
        try:
            present = b.present_count
            with np.errstate(all="ignore"):
                nxt = ops[index](b)
            self.ctx.counts[index] += present
            self.steps += 1
            self.position += 1
            self.ctx.index = index
            _limit_fault(self.ctx, self.limits, self.steps, self.step_limit)
        except Fault as fault:
            self.error = to_error(fault, b, self.compiled, index)
            self._finish()
            return FAULTED
        self.index = index + 1 if nxt is None else nxt
        if self.index < len(ops):
            return RAN
        self.ctx.stats.workgroups += 1
        self.ctx.stats.waves += self.geo.waves_per_wg
        if self.workgroup + 1 < self.geo.workgroup_count:
            self._load_workgroup(self.workgroup + 1)
            return WORKGROUP_DONE
        self._finish()
        return FINISHED

    def run_to_end(self) -> RunReport:
        """Step until the run finishes or faults; the report."""
        while not self.finished:
            self.step()
        return self.report()

    # ---- checkpoints (reverse execution re-executes from the nearest one) --------------------
    def snapshot(self, previous: "Checkpoint | None" = None) -> "Checkpoint":
        """A copy of everything `step` changes: the current workgroup's state, device memory,
        the run context's statistics and warnings, and the position. Running on from a
        restored checkpoint repeats the same steps (the emulator is deterministic). Device
        memory is kept in pages of `PAGE` bytes; a page equal to `previous`'s is shared."""
        batch = _copy_batch(self.batch, self.device)
        context = {k: _copy_value(v) for k, v in vars(self.ctx).items()
                   if k not in _SHARED_CONTEXT}
        scalars = {k: getattr(self, k) for k in _SCALARS}
        return Checkpoint(self.position, _pages(self.device, previous and previous.pages),
                          batch, context, copy.deepcopy(self.error), scalars,
                          _shadow_state(self.shadow, self.batch, previous))

    def restore(self, checkpoint: "Checkpoint") -> None:
        """Put the run back to `checkpoint` (which stays usable for later restores)."""
        for i, page in enumerate(checkpoint.pages):
            np.copyto(self.device[i * PAGE:i * PAGE + page.size], page)
        self.batch = _copy_batch(checkpoint.batch, self.device)
        for key, value in checkpoint.context.items():
            setattr(self.ctx, key, _copy_value(value))
        self.ctx.batch = self.batch
        self.error = copy.deepcopy(checkpoint.error)
        for key, value in checkpoint.scalars.items():
            setattr(self, key, value)
        if self.shadow is not None and checkpoint.shadow is not None:
            _restore_shadow(self.shadow, checkpoint.shadow, self.batch)

    def _load_workgroup(self, linear: int) -> None:
        self.workgroup = linear
        self.batch = Batch(self.geo, linear, 1, self.device, self.set_regs)
        self.ctx.batch = self.batch
        self.ctx.extra_steps = 0
        self.index = 0
        self.steps = 0

    def _finish(self) -> None:
        self.finished = True
        if not self._stats_done:
            _finish_stats(self.compiled, self.ctx)
            self._stats_done = True

    def report(self) -> RunReport:
        """What `run` reports for the part of the launch executed so far."""
        report = RunReport(kernel=self.kernel.name, device=self.device)
        if self.error is not None:
            report.errors.append(self.error)
        report.stats = self.ctx.stats
        report.warnings = self.ctx.ordered_warnings()
        report.launch_summary = self.prepared.summary()
        return report


def _copy_batch(batch: Batch | None, device: np.ndarray) -> Batch | None:
    """A copy of `batch` sharing `device` (its views of its own arrays made again)."""
    if batch is None:
        return None
    keep = {id(batch.geo): batch.geo, id(batch.device): device}
    if batch.device32 is not None:
        keep[id(batch.device32)] = device.view(np.uint32) if device is not batch.device \
            else batch.device32
    copied = copy.deepcopy(batch, keep)
    copied.F = copied.R.view(np.float32)
    copied.local32 = copied.local.view(np.uint32)
    return copied


def _pages(device: np.ndarray, old: tuple[np.ndarray, ...] | None) -> tuple[np.ndarray, ...]:
    """`device` in pages, each page of `old` (the previous checkpoint's) kept where equal."""
    old = old or ()
    pages = []
    for i in range(0, max(device.size, 1), PAGE):
        chunk = device[i:i + PAGE]
        k = i // PAGE
        if k < len(old) and old[k].size == chunk.size and np.array_equal(old[k], chunk):
            pages.append(old[k])
        else:
            pages.append(chunk.copy())
    return tuple(pages)


def _copy_value(value):
    """A copy of a run-context value: lists, dicts and sets hold immutable items (ints, tuples,
    frozen warnings) and are copied shallowly; the rest (statistics) deeply."""
    if isinstance(value, (list, dict, set)):
        return copy.copy(value)
    return copy.deepcopy(value)


def _shadow_state(shadow, batch, previous: Checkpoint | None) -> dict | None:
    """A copy of the uninitialised-read shadows (`initcheck.InitShadow`) of `batch`."""
    if shadow is None:
        return None
    fresh = shadow.batch is not batch       # the batch has not run an instruction yet
    old = previous.shadow["pages"] if previous is not None and previous.shadow else None
    return {"pages": _pages(shadow.device, old) if shadow.device is not None else (),
            "fresh": fresh, "full": list(shadow.full), "settled": list(shadow.settled),
            "rows": {r: row.copy() for r, row in shadow.rows.items()},
            "local": None if shadow.local is None else shadow.local.copy()}


def _restore_shadow(shadow, state: dict, batch) -> None:
    for i, page in enumerate(state["pages"]):
        np.copyto(shadow.device[i * PAGE:i * PAGE + page.size], page)
    if state["fresh"]:
        shadow.batch = None                  # begins afresh at the batch's first instruction
        return
    shadow.batch = batch
    shadow.full, shadow.settled = list(state["full"]), list(state["settled"])
    shadow.rows = {r: row.copy() for r, row in state["rows"].items()}
    shadow.local = None if state["local"] is None else state["local"].copy()
