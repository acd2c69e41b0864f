"""The observers the command line's run options ask for, as one observer of a numpy-engine run
(see `recording`): the `--trace` printer (`trace`), the memory access log (`mem_trace`) and the
breakpoints (`breakpoints`), in that order, each seeing every instruction before and after it
runs. `observers_for(options, geo, compiled, kernel)` builds them (None when none is asked
for); the per-line recorder of the editor is separate (`api`).
"""

from __future__ import annotations


class Observers:
    """Several observers seen as one: `before` and `after` call each in order."""

    single_workgroup = True

    def __init__(self, parts: list) -> None:
        self.parts = parts

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


def observers_for(options, geo, compiled, kernel: str):
    """The trace, memory-trace and breakpoint observers `options` ask for (one observer, or
    None); `LaunchError` for a breakpoint that is not in the kernel."""
    parts = []
    if options.trace:
        from .trace import Tracer
        parts.append(Tracer(compiled, geo, options.trace if callable(options.trace) else None,
                            detailed=options.trace != "upstream", where=options.trace_filter))
    if options.mem_trace:
        from .mem_trace import MemTracer
        parts.append(MemTracer(compiled, geo,
                               options.mem_trace if callable(options.mem_trace) else None,
                               keep=options.mem_trace == "record", where=options.trace_filter))
    if options.breakpoints:
        from .breakpoints import Breaker
        parts.append(Breaker(compiled, geo, options.breakpoints, kernel, options.break_prompt))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Observers(parts)


def mem_records(observer) -> list | None:
    """The memory access records an observer kept (`mem_trace="record"`), else None."""
    parts = observer.parts if isinstance(observer, Observers) else [observer]
    for part in parts:
        if getattr(part, "keep", False):
            return part.records
    return None
