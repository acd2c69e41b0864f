"""The SIMT emulator and its run reports.

`run(program, launch)` runs one kernel of a program (source, `.wbin` bytes, an `Assembly` or a
list of `KernelCode`) and returns a `RunReport`. The semantics follow the specification and the
emulator document where upstream `wave-emu` deviates from them (DESIGN.md §1). Execution is
vectorised with numpy: all waves of many workgroups run in lock-step as one lane array.
"""

from .api import load_kernels, run, select_kernel
from .compiler import implemented
from .launch import DataFill, IotaFill, Launch, LaunchError, MemoryInit, ZeroFill
from .recording import render
from .report import (ERROR_KINDS, WARNING_KINDS, EmuError, EmuWarning, LineRecord, RunReport,
                     Stats, WriteRecord)

__all__ = [
    "run", "load_kernels", "select_kernel", "implemented", "render",
    "Launch", "LaunchError", "MemoryInit", "DataFill", "IotaFill", "ZeroFill",
    "RunReport", "EmuError", "EmuWarning", "Stats", "LineRecord", "WriteRecord",
    "ERROR_KINDS", "WARNING_KINDS",
]
