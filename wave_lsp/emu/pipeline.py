"""The one launch pipeline: load a program file, prepare a launch, run it, one report.

- `load_program(path)`: the one program loader — a regular file (bounded), `.wbin` bytes (by
  its magic or its suffix) or UTF-8 WAVE source text.
- `prepare(program, launch) -> PreparedLaunch`: the program's kernels loaded (decoded or
  assembled once), the launch's kernel selected, its geometry resolved from the launch and the
  kernel's metadata, device memory and its initialisers checked (`LaunchError`). Both engines
  and the debugger's stepping run (`stepping.SteppingRun`) start from it.
- `run(program_or_prepared, launch=None, options=RunOptions()) -> RunReport`: the one entry.
  With `engine="auto"` a launch the native core can run (no trace or breakpoint, shown
  threads in one workgroup; only instructions it implements; see
  `native.runner`) runs there, without loading numpy: it reports warnings, errors, the
  instruction limit, the time limit, a cancel and races itself; where it cannot report alike
  (an instruction or NaN semantics it lacks, ...: the list is in `native.runner`) the numpy
  engine runs the launch again from the same prepared launch, and the report says so
  (`engine`, `fallback`).
  `WAVE_LSP_NATIVE=0` turns the core off.

A run's observers (`observer`: the options' flags made observers by `observers_of`, and any
given to `run`) go to whichever engine runs it: the native core runs a launch only when it
records every observer itself (the initcheck, the memory trace, the profile, the per-line
record and the store writers; `native.runner`),
the numpy engine drives them all through the one event interface (`api.run_prepared`).
`RunOptions(writers=True)` attaches the store-writer record (`report.writers.at(address)`);
`RunOptions(write_log=True)` the write log (`report.write_log`, read by `provenance`);
`RunOptions(profile=True)` the per-line counters (`report.profile`), which may share the run
with the per-line record and the store writers (the editor's run of a profiled kernel).
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

from .kernel_launch import Launch, LaunchError
from .options import EngineUnavailable, RunOptions
from .prepared import PreparedLaunch, prepare  # noqa: F401 - part of the pipeline's API
from .run_report import RunReport

def is_wbin(data: bytes, path: Path | str | None = None) -> bool:
    """Whether file contents are a `.wbin` (its magic, or a `.wbin` name)."""
    from ..asm.wbin import MAGIC
    return data[:len(MAGIC)] == MAGIC or (path is not None and str(path).endswith(".wbin"))


def load_program(path: Path | str, limit: int | None = None) -> bytes | str:
    """A program file as every command takes it: the bytes of a `.wbin` (by its magic or its
    suffix), else UTF-8 WAVE source text. OSError for a file that cannot be read (a regular
    file only, at most `limit` bytes: `files.read_regular`); ValueError for a file that is
    neither."""
    from ..files import read_regular
    data = read_regular(path) if limit is None else read_regular(path, limit)
    if is_wbin(data, path):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"'{path}' is neither UTF-8 WAVE source nor a .wbin") from None


def run(program, launch: Launch | None = None, options: RunOptions | None = None,
        observers=()) -> RunReport:
    """Run one kernel of `program` (or a `PreparedLaunch`, then without `launch`) and report
    what happened (see the module doc); `observers` watch the run besides those the options
    ask for (see `observer`)."""
    options = options if options is not None else RunOptions()
    started = time.monotonic()       # the time limit counts loading and preparing too
    if isinstance(program, PreparedLaunch):
        if launch is not None and launch != program.launch:
            raise LaunchError("run: a prepared launch is run as it was prepared")
        prepared = program
    else:
        prepared = prepare(program, launch)
    watching = observers_of(options) + list(observers)
    fallback = None
    if options.engine != "numpy":
        from .native.runner import run_native
        native = run_native(prepared, options, watching, started)
        if native.report is not None:
            return native.report
        if options.engine == "native":
            raise EngineUnavailable(native.reason)
        fallback = native.reason
    from .api import run_prepared
    report = run_prepared(prepared, options, watching, started)
    report.fallback = fallback
    log = report.write_log
    if log is not None and log.kept_values is None:       # recorded without its values
        log.rebuild = partial(_numpy_values_again, prepared, options, watching)
    return report


def _numpy_values_again(prepared: PreparedLaunch, options: RunOptions, watching, log):
    """The values of the numpy engine's write log recorded without them: the launch run again
    on it, keeping them."""
    from .api import run_prepared
    from .write_log import values_again
    if not len(log.rows):
        return memoryview(b"")
    logger = next(o for o in watching if o.kind == "write_log").again(log.last_group)
    again = replace(options, engine="numpy", time_limit=None, cancel=None, record_values=True)
    return values_again(log, run_prepared(prepared, again, [logger], time.monotonic()).write_log)


def observers_of(options: RunOptions) -> list:
    """The observers `options` ask for, in the order they see each instruction (see
    `observer`); building them loads no numpy unless they need the numpy engine (a native run
    loads none)."""
    from .observer import InitCheck
    out: list = [InitCheck()] if options.initcheck else []
    if options.profile:
        from .profiler import Profiler
        out.append(Profiler())
    if options.trace:
        from .trace import Tracer
        out.append(Tracer(options.trace if callable(options.trace) else None,
                          detailed=options.trace != "upstream", where=options.trace_filter))
    if options.mem_trace:
        from .mem_trace import MemTracer
        out.append(MemTracer(options.mem_trace if callable(options.mem_trace) else None,
                             keep=options.mem_trace == "record", where=options.trace_filter))
    if options.breakpoints:
        from .breakpoints import Breaker
        out.append(Breaker(options.breakpoints, options.break_prompt))
    if options.record_threads is not None:
        from .recording import LineRecorder
        out.append(LineRecorder(options.record_threads, options.record_limit))
    if options.writers:
        from .writers import StoreWriters
        out.append(StoreWriters())
    if options.write_log:
        from .write_log import WriteLogger
        out.append(WriteLogger(options.record_workgroups, options.record_steps,
                               options.record_budget, options.record_values))
    return out


def engine_line(report: RunReport) -> str | None:
    """`WAVE_LSP_SHOW_ENGINE=1`'s stderr line for a report: `engine: native`, `engine: native
    (N threads)` where its workgroups ran on N > 1 threads (`WAVE_LSP_THREADS`), or
    `engine: numpy (WHY)` after a fallback; None when the variable is not set or numpy was
    asked for."""
    if os.environ.get("WAVE_LSP_SHOW_ENGINE") != "1":
        return None
    if report.engine == "native":
        return "engine: native" if report.threads <= 1 else f"engine: native ({report.threads} threads)"
    return None if report.fallback is None else f"engine: numpy ({report.fallback})"


def load_engines() -> None:
    """Load both engines now (the numpy engine's modules, the native core where it is built),
    e.g. before forking worker processes that then start with them loaded."""
    from . import api  # noqa: F401
    from .native import core
    core()
