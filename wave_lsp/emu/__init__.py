"""The SIMT emulator and its run reports.

`run(program, launch, options)` runs one kernel of a program (source, `.wbin` bytes, an
`Assembly` or a list of `KernelCode`) on the native core or the numpy engine and returns a
`RunReport` (see `pipeline`: `load_program`, `prepare`, `run`; `options.RunOptions`). The semantics follow the specification and the
emulator document where upstream `wave-emu` deviates from them (DESIGN.md §1). Execution is
vectorised with numpy: all waves of many workgroups run in lock-step as one lane array.
"""

from .. import lazy_attributes

# Loaded on first use: `wave-lsp run --help` and the launch-flag parser need none of it.
_EXPORTS = {
    **{name: "pipeline" for name in ("run", "prepare", "load_program", "PreparedLaunch")},
    **{name: "options" for name in ("RunOptions", "EngineUnavailable")},
    "load_kernels": "geometry", "select_kernel": "geometry", "implemented": "compiler",
    "render": "recording",
    **{name: "launch" for name in ("DataFill", "IotaFill", "Launch", "LaunchError",
                                   "MemoryInit", "ZeroFill")},
    **{name: "report" for name in ("ERROR_KINDS", "WARNING_KINDS", "EmuError", "EmuWarning",
                                   "LineRecord", "RunReport", "Stats", "WriteRecord")},
}


__getattr__ = lazy_attributes(__name__, _EXPORTS)

__all__ = [
    "run", "prepare", "load_program", "PreparedLaunch", "RunOptions", "EngineUnavailable",
    "load_kernels", "select_kernel", "implemented", "render",
    "Launch", "LaunchError", "MemoryInit", "DataFill", "IotaFill", "ZeroFill",
    "RunReport", "EmuError", "EmuWarning", "Stats", "LineRecord", "WriteRecord",
    "ERROR_KINDS", "WARNING_KINDS",
]
