"""The SIMT emulator and its run reports.

`run(program, launch)` runs one kernel of a program (source, `.wbin` bytes, an `Assembly` or a
list of `KernelCode`) and returns a `RunReport`. The semantics follow the specification and the
emulator document where upstream `wave-emu` deviates from them (DESIGN.md §1). Execution is
vectorised with numpy: all waves of many workgroups run in lock-step as one lane array.
"""

from .. import lazy_attributes

# Loaded on first use: `wave-lsp run --help` and the launch-flag parser need none of it.
_EXPORTS = {
    "run": "api", "load_kernels": "api", "select_kernel": "api", "implemented": "compiler",
    "render": "recording",
    **{name: "launch" for name in ("DataFill", "IotaFill", "Launch", "LaunchError",
                                   "MemoryInit", "ZeroFill")},
    **{name: "report" for name in ("ERROR_KINDS", "WARNING_KINDS", "EmuError", "EmuWarning",
                                   "LineRecord", "RunReport", "Stats", "WriteRecord")},
}


__getattr__ = lazy_attributes(__name__, _EXPORTS)

__all__ = [
    "run", "load_kernels", "select_kernel", "implemented", "render",
    "Launch", "LaunchError", "MemoryInit", "DataFill", "IotaFill", "ZeroFill",
    "RunReport", "EmuError", "EmuWarning", "Stats", "LineRecord", "WriteRecord",
    "ERROR_KINDS", "WARNING_KINDS",
]
