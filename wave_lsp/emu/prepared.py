"""A launch ready to run (`PreparedLaunch`) and `prepare(program, launch)`, which makes it: the
program's kernels loaded (decoded or assembled once), the launch's kernel selected, its geometry
resolved from the launch and the kernel's metadata, device memory and its initialisers checked.
Both engines and the debugger's stepping run start from one (see `pipeline`). No numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .geometry import Geometry, geometry, load_kernels, select_kernel
from .kernel_launch import Launch, check_device_memory, check_memory_init

if TYPE_CHECKING:
    from ..asm.ir import KernelCode


class PreparedLaunch:
    """A launch ready to run: its kernel (of the program's `kernels`) and resolved geometry
    (a plain class, not a dataclass: defining one costs `wave-lsp run` start-up time)."""

    __slots__ = ("launch", "kernels", "kernel", "geometry")

    def __init__(self, launch: Launch, kernels: tuple[KernelCode, ...], kernel: KernelCode,
                 geometry: Geometry) -> None:
        self.launch = launch
        self.kernels = kernels
        self.kernel = kernel
        self.geometry = geometry

    def __repr__(self) -> str:
        return f"PreparedLaunch(kernel={self.kernel.name!r}, geometry={self.geometry!r})"

    def summary(self) -> dict:
        """The resolved launch as the report carries it (`RunReport.launch_summary`)."""
        geo = self.geometry
        return {
            "grid": list(geo.grid), "workgroup": list(geo.workgroup),
            "wave_width": geo.wave_width, "registers": geo.registers,
            "local_memory": geo.local_memory, "device_memory": self.launch.device_memory,
            "kernel": self.kernel.name,
        }


def prepare(program, launch: Launch | None = None) -> PreparedLaunch:
    """Prepare `launch` (default: `Launch()`) of `program` — `.wave` source text, `.wbin`
    bytes, an `Assembly` or a list of `KernelCode` (see the module doc); `LaunchError` when it
    cannot run."""
    launch = launch if launch is not None else Launch()
    kernels = tuple(load_kernels(program))
    kernel = select_kernel(list(kernels), launch.kernel)
    geo = geometry(kernel, launch)
    check_device_memory(launch)
    check_memory_init(launch)
    return PreparedLaunch(launch, kernels, kernel, geo)


