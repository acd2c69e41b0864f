"""The SIMT emulator behind one façade: every name another layer uses is imported from here.

`run(program, launch, options)` runs one kernel of a program (source, `.wbin` bytes, an
`Assembly` or a list of `KernelCode`) on the native core or the numpy engine and returns a
`RunReport` (`load_program`, `prepare`, `run`; what runs is a `Launch`, how a `RunOptions`).
The observers a run takes are options: the per-line record, the store writers, the profile
(`profile_for`), the uninitialised-read check, the traces and breakpoints (`TraceFilter`,
`Breakpoint`); `run(..., observers=[...])` adds others, each an `Observer` (one event
interface: `observer`). Besides a run: a debugger's `SteppingRun`, the wave-width comparison
(`compare_widths`), a GPU run (`run_on_device`) and the profile's local-memory layouts
(`local_ways`, `padded`, `swizzled`, ...); who wrote a value of a run recorded with
`RunOptions(write_log=True)` (`Provenance`). The semantics follow the specification and the
emulator document where upstream `wave-emu` deviates from them (DESIGN.md §1). Execution is
vectorised with numpy: all waves of many workgroups run in lock-step as one lane array.

Code outside `wave_lsp/emu/` imports these names only (tests/test_architecture.py checks it);
each is loaded on first use, so `wave-lsp run --help` and the flag parser load none of the
engine. `EXPORTS` maps a name to its module, or to `module:attribute` where the façade's name
differs from the module's.
"""

from .. import lazy_attributes

EXPORTS = {
    **{name: "pipeline" for name in ("run", "prepare", "load_program", "PreparedLaunch",
                                     "engine_line", "load_engines")},
    **{name: "options" for name in ("RunOptions", "EngineUnavailable")},
    "load_kernels": "geometry", "select_kernel": "geometry", "implemented": "compiler",
    "render": "recording", "write_plan": "recording",
    **{name: "provenance" for name in ("Provenance", "TargetError", "Input", "Write")},
    **{name: "kernel_launch" for name in ("DataFill", "IotaFill", "Launch", "LaunchError",
                                          "MemoryInit", "ZeroFill", "DEFAULT_LOCAL_MEMORY")},
    **{name: "limits" for name in ("MAX_DEVICE_MEMORY", "MAX_GRID_WORKGROUPS",
                                   "MAX_LOCAL_MEMORY", "MAX_WAVE_WIDTH",
                                   "MAX_WORKGROUP_THREADS")},
    "TraceFilter": "trace_filter", "Breakpoint": "trace_filter", "Observer": "observer",
    **{name: "report" for name in ("ERROR_KINDS", "WARNING_KINDS", "EmuError", "EmuWarning",
                                   "LineRecord", "WriteRecord")},
    "RunReport": "run_report", "Stats": "stats",
    **{name: "stepping" for name in ("SteppingRun", "FAULTED", "FINISHED", "WORKGROUP_DONE",
                                     "CallFrame", "IfFrame", "LoopFrame")},
    "compare_widths": "wave_widths", "WidthComparison": "wave_widths",
    **{name: "profile" for name in ("AnalysisStopped", "profile_for")},
    **{name: "bank_layout" for name in (
        "array_of", "extent", "local_indices", "local_ways", "padded", "row_stride",
        "rows_per_wave", "span", "spans_within_align", "swizzle_words", "swizzled",
        "widest_column")},
    **{name: "cuda" for name in ("device_status", "run_on_device", "DeviceUnavailable",
                                 "DeviceRunError", "NO_CUPY")},
    "prepare_on_device": "cuda:prepare",
    "native_core": "native:core", "engine_in_use": "native:engine",
    "engine_summary": "native:engine_summary",
}


__getattr__ = lazy_attributes(__name__, EXPORTS)

__all__ = sorted(EXPORTS)
