"""The one event interface of a run's observers (`Observer`), and the uninitialised-read check
as one (`InitCheck`).

An observer (`Observer`) watches one run, as Oclgrind's plugins do, through five events:

- `start(run)`: the kernel is compiled for a run (again for a sequential redo, which abandons
  the first attempt unfinished: start afresh); `run` is a `RunSetup` (compiled kernel,
  geometry, context, launch, kernel, options, device size, preset registers);
- `attach(batch)`: a batch of workgroups begins;
- `before(index, batch) -> seen` and `after(index, batch, seen)`: around every instruction, for
  an observer with `steps` (the engine then runs its observed loop, one instruction at a time);
- `finish()`: the run is over (finished, faulted or stopped);

and `fill(report)` puts what it recorded in the `RunReport`. Its class says how it may run:
`single_workgroup` (batches of one workgroup), `sees_empty` (regions no lane runs are stepped,
not skipped), `native` (the native core records it itself: the initcheck, the memory trace,
the profile, the per-line record, the store writers and the write log; any other observer
means the numpy engine) and `refusal` (why the core cannot run
it, the report's `fallback`).

`pipeline.observers_of(options)` is the one place the options' flags become observers, in the
order they see each instruction: the uninitialised-read check (`InitCheck`: it instruments the
ops), the profile, the `--trace` printer, the memory trace, the breakpoints, the editor's
per-line recorder, the store-writer record and the write log (`write_log.WriteLogger`). `Observers` shows several stepping observers to
the engine as one.
"""

from __future__ import annotations


class Observer:
    """The event interface (see the module doc); every event does nothing by default."""

    kind = "observer"
    single_workgroup = False
    steps = True
    sees_empty = False
    native = False
    refusal = "an observer of the numpy engine"

    def start(self, run: RunSetup) -> None:
        """The run's compiled kernel is ready: set up afresh."""

    def attach(self, b) -> None:
        """A batch of workgroups begins."""

    def before(self, index: int, b):
        """Instruction `index` is about to run; what it returns is given to `after`."""
        return None

    def after(self, index: int, b, seen) -> None:
        """Instruction `index` ran."""

    # whether `after_fused` stands for `before`/`after` of each instruction of a fused run
    # (fusion.py: unguarded fma, every lane active, no register rewritten within the run)
    sees_fused = False

    def after_fused(self, index: int, span: int, b) -> None:
        """The `span` instructions from `index` ran at once, every lane of the batch active;
        what each wrote is in its destination register still."""

    def finish(self) -> None:
        """The run is over."""

    def fill(self, report) -> None:
        """Put what was recorded in `report`."""


class RunSetup:
    """What an observer's `start` sees of the run being set up."""

    __slots__ = ("compiled", "geometry", "context", "launch", "kernel", "options",
                 "device_size", "set_regs")

    def __init__(self, compiled, geometry, context, launch, kernel, options, device_size: int,
                 set_regs: dict[int, int]) -> None:
        self.compiled = compiled
        self.geometry = geometry
        self.context = context
        self.launch = launch
        self.kernel = kernel
        self.options = options
        self.device_size = device_size
        self.set_regs = set_regs


class InitCheck(Observer):
    """The uninitialised-read check (`initcheck`): it instruments the compiled ops, so it sees
    no instruction one by one."""

    kind = "initcheck"
    steps = False
    native = True

    def start(self, run: RunSetup) -> None:
        from .initcheck import InitShadow, instrument
        registers = run.geometry.registers
        instrument(run.compiled, run.context,
                   InitShadow(run.device_size, run.launch.memory_init, run.set_regs,
                              registers, len(run.compiled.ops)), registers)


class Observers:
    """Several stepping observers seen as one: each event calls each in order."""

    def __init__(self, parts: list) -> None:
        self.parts = parts
        self.single_workgroup = any(p.single_workgroup for p in parts)
        self.sees_fused = all(p.sees_fused for p in parts)

    def after_fused(self, index: int, span: int, b) -> None:
        for part in self.parts:
            part.after_fused(index, span, b)

    def attach(self, b) -> None:
        for part in self.parts:
            part.attach(b)

    def finish(self) -> None:
        for part in self.parts:
            part.finish()

    def before(self, index: int, b):
        return [part.before(index, b) for part in self.parts]

    def after(self, index: int, b, seen) -> None:
        for part, state in zip(self.parts, seen):
            part.after(index, b, state)


def stepper(observers) -> Observer | Observers | None:
    """The observers that see every instruction, as one (None: none does)."""
    parts = [o for o in observers if o.steps]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Observers(parts)


def of_kind(observers, kind: str):
    """The first observer of `kind`, or None."""
    return next((o for o in observers if o.kind == kind), None)
