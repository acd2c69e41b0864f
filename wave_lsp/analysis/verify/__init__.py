"""Static verification of WAVE kernels: every barrier reached by all threads of a workgroup or
none, and no data race on local or device memory, for all inputs and all schedules the
specification allows (spec §2.5, §4) under one launch geometry — or a witness (two threads,
their accesses, a launch) that shows how it fails, or `unknown` with the reason.

The two-thread reduction (GPUVerify, faial): one thread is executed symbolically with its ids,
the kernel arguments and loaded values as unknowns (`execute`, `loops`), a second thread is the
first renamed, and z3 decides whether the two can conflict (`check`). docs/dev/verify.md tells
how the encoding works and what is unknown and why. z3 is imported only when a kernel is
verified; `model` (the verdicts) needs no solver."""

from __future__ import annotations

import time

from .model import (DIVERGENCE, PROVED, RACE, UNKNOWN, VERDICTS, Geometry, Thread, Verdict,
                    Witness)

TIME_LIMIT = 6.0          # seconds per kernel before the verdict is `unknown`

__all__ = ["DIVERGENCE", "PROVED", "RACE", "UNKNOWN", "VERDICTS", "Geometry", "Thread",
           "Verdict", "Witness", "verify_kernel", "workgroup_size"]


def workgroup_size(kernel) -> tuple[int, int, int] | None:
    """The kernel's `.workgroup_size X, Y, Z` (missing values 1), or None without one."""
    for _line, d in kernel.settings:
        if d.name.text == "workgroup_size":
            values = [a.value for a in d.args if isinstance(getattr(a, "value", None), int)]
            if values:
                values = (values + [1, 1])[:3]
                return tuple(values)
    return None


def verify_kernel(kernel, geometry: Geometry, time_limit: float = TIME_LIMIT,
                  cancel=None) -> Verdict:
    """The verdict on `kernel` (a `syntax.program.Kernel`) under `geometry`. A `race` or
    `divergence` whose witness is not `exact` still needs a replay to be believed (the caller
    replays it through the launch pipeline, see `wave_lsp.launch.verify`). `cancel()`, polled
    between steps and solver queries, stops the work (the verdict is then `unknown`)."""
    started = time.perf_counter()
    verdict = _verify(kernel, geometry, started + time_limit, cancel)
    verdict.elapsed = time.perf_counter() - started
    verdict.geometry = geometry
    verdict.line = kernel.line
    return verdict


def _verify(kernel, geometry: Geometry, deadline: float, cancel) -> Verdict:
    from ..uniformity import KernelUniformity
    from ..uniformity_steps import step_of, structure
    from . import check, execute, loops
    from .semantics import Unsupported

    name = kernel.name
    for line, instr in kernel.instructions:
        if step_of(instr) is None:
            return Verdict(name, UNKNOWN, f"line {line + 1}: unknown instruction "
                                          f"'{instr.mnemonic.text}'")
    tree = structure(kernel.instructions)
    if tree is None:
        return Verdict(name, UNKNOWN, "blocks nest too deep to analyse")
    try:
        uniformity = KernelUniformity(kernel, record=True)
        run = execute.ThreadRun(geometry, uniformity, {}, deadline, loops.summarise)
        run.cancel = cancel
        run.run(tree)
        pair = check.Pair(run, deadline)
        pair.cancel = cancel
        reason = check.loop_exits(pair)
        if reason is not None:
            return Verdict(name, UNKNOWN, reason)
        w = check.divergence(pair)
        if w is not None:
            return Verdict(name, DIVERGENCE, _why(w), w)
        w = check.races(pair)
        if w is not None:
            return Verdict(name, RACE, _why(w), w)
    except Unsupported as err:
        return Verdict(name, UNKNOWN, str(err))
    except (check.Undecided, execute.OutOfTime) as err:
        return Verdict(name, UNKNOWN, str(err))
    except (IndexError, TypeError, ValueError, AttributeError) as err:   # malformed operands
        return Verdict(name, UNKNOWN, f"an instruction could not be modelled ({err})")
    reason = "no race and no divergent barrier under this geometry"
    if run.assumptions:
        lines = ", ".join(str(line + 1) for line in sorted(set(run.assumptions)))
        reason += (f", assuming the counters the loops at line {lines} compare do not wrap "
                   f"around 2**32")
    return Verdict(name, PROVED, reason)


def _why(w: Witness) -> str:
    a, b = w.threads
    if w.kind == DIVERGENCE:
        return (f"thread {a.global_id} reaches the barrier at line {w.lines[0] + 1} and thread "
                f"{b.global_id} of the same workgroup does not")
    return (f"thread {a.global_id} ({w.accesses[0]}, line {w.lines[0] + 1}) and thread "
            f"{b.global_id} ({w.accesses[1]}, line {w.lines[1] + 1}) access {w.space} byte "
            f"{w.address} with nothing ordering them")
