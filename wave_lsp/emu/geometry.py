"""Which kernel a launch runs and its resolved geometry (workgroup, wave width, registers, local
memory), from the launch and the kernel's metadata. No numpy: the native core's path uses it."""

from __future__ import annotations

from dataclasses import dataclass

from ..asm.ir import KernelCode
from ..isa import register_count_problem
from .kernel_launch import (DEFAULT_LOCAL_MEMORY, DEFAULT_REGISTERS, DEFAULT_WORKGROUP, Launch,
                     LaunchError, launch_error)
from .limits import (MAX_GRID_WORKGROUPS, MAX_LOCAL_MEMORY, MAX_WAVE_WIDTH,
                     MAX_WORKGROUP_THREADS)

MAX_BATCH_WORDS = 1 << 25          # registers x lanes of one batch (128 MiB of uint32)
MAX_BATCH_LOCAL = 1 << 28          # local memory bytes of one batch's workgroups together


@dataclass(frozen=True)
class Geometry:
    """Sizes shared by every batch of one launch."""

    grid: tuple[int, int, int]
    workgroup: tuple[int, int, int]
    wave_width: int
    registers: int
    local_memory: int

    @property
    def threads_per_wg(self) -> int:
        x, y, z = self.workgroup
        return x * y * z

    @property
    def waves_per_wg(self) -> int:
        return -(-self.threads_per_wg // self.wave_width)

    @property
    def lanes_per_wg(self) -> int:
        return self.waves_per_wg * self.wave_width

    @property
    def workgroup_count(self) -> int:
        x, y, z = self.grid
        return x * y * z

    def workgroup_id(self, linear: int) -> tuple[int, int, int]:
        gx, gy, _ = self.grid
        return linear % gx, (linear // gx) % gy, linear // (gx * gy)

    def batch_size(self, max_lanes: int, single: bool) -> int:
        """Workgroups the numpy engine runs together in one batch (lock-step over one lane
        array), at most `max_lanes` lanes (`RunOptions.max_batch_lanes`); 1 when `single`."""
        if single:
            return 1
        by_lanes = max(1, max_lanes // self.lanes_per_wg)
        by_words = max(1, MAX_BATCH_WORDS // max(1, self.registers * self.lanes_per_wg))
        by_local = max(1, MAX_BATCH_LOCAL // max(1, self.local_memory))
        return max(1, min(self.workgroup_count, by_lanes, by_words, by_local))


def load_kernels(program) -> list[KernelCode]:
    """The kernels of any accepted program form."""
    if isinstance(program, (bytes, bytearray, memoryview)):
        from ..asm.wbin import read_wbin
        try:
            return list(read_wbin(bytes(program)).kernels)
        except Exception as err:   # the reader's own error types
            raise LaunchError(f"invalid .wbin: {err}") from err
    if isinstance(program, str):
        from ..asm import assemble
        try:
            assembly = assemble(program)
        except Exception as err:
            raise LaunchError(f"the program does not assemble: {err}") from err
        return _kernels_of(assembly)
    if isinstance(program, (list, tuple)):
        return list(program)
    return _kernels_of(program)


def _kernels_of(assembly) -> list[KernelCode]:
    errors = [d for d in getattr(assembly, "errors", ()) or ()]
    if errors and not getattr(assembly, "kernels", None):
        raise LaunchError(f"the program does not assemble: {errors[0]}")
    return list(assembly.kernels)


def select_kernel(kernels: list[KernelCode], name: str | None) -> KernelCode:
    if not kernels:
        raise LaunchError("the program has no kernel")
    if name is None:
        return kernels[0]
    for kernel in kernels:
        if kernel.name == name:
            return kernel
    names = ", ".join(k.name for k in kernels)
    raise LaunchError(f"no kernel named '{name}' (kernels: {names})")


def geometry(kernel: KernelCode, launch: Launch) -> Geometry:
    """Resolve workgroup, registers and local memory from the launch and the metadata."""
    meta_wg = tuple(kernel.workgroup_size)
    source = "--workgroup"
    if launch.workgroup is not None and not (launch.metadata_first and meta_wg[0] > 0):
        workgroup = tuple(launch.workgroup)
    elif meta_wg[0] > 0:
        workgroup = tuple(max(1, v) for v in meta_wg)
        source = "the kernel's workgroup size (metadata, which wins over --workgroup)"
    else:
        workgroup = DEFAULT_WORKGROUP
    registers = _pick(launch.registers, kernel.register_count, DEFAULT_REGISTERS,
                      launch.metadata_first)
    local = _pick(launch.local_memory, kernel.local_memory, DEFAULT_LOCAL_MEMORY,
                  launch.metadata_first)
    grid = tuple(launch.grid)
    if len(grid) != 3 or min(grid) < 1 or grid[0] * grid[1] * grid[2] > MAX_GRID_WORKGROUPS:
        raise launch_error(f"--grid: must be three positive numbers with at most "
                           f"{MAX_GRID_WORKGROUPS} workgroups in all, got {grid}", "--grid")
    if len(workgroup) != 3 or min(workgroup) < 1:
        raise launch_error(f"{source}: must be three positive numbers, got {workgroup}",
                           "--workgroup")
    threads = workgroup[0] * workgroup[1] * workgroup[2]
    if threads > MAX_WORKGROUP_THREADS:
        raise launch_error(f"{source}: {threads} threads per workgroup is more than the "
                           f"emulator's {MAX_WORKGROUP_THREADS}", "--workgroup")
    if not 1 <= launch.wave_width <= MAX_WAVE_WIDTH:
        raise launch_error(f"--wave-width: must be 1-{MAX_WAVE_WIDTH}, got {launch.wave_width}",
                           "--wave-width")
    problem = register_count_problem(registers)
    if problem:
        raise launch_error(f"--registers: {problem}", "--registers")
    if local < 0 or local > MAX_LOCAL_MEMORY:
        raise launch_error(f"--local-memory: {local} bytes is outside 0..{MAX_LOCAL_MEMORY}",
                           "--local-memory")
    beyond = sorted(int(r) for r in launch.set_regs if not 0 <= int(r) < registers)
    if beyond:
        raise launch_error(f"--set-reg: r{beyond[0]} is beyond the kernel's {registers} "
                           f"registers (r0..r{registers - 1})", "--set-reg")
    return Geometry(grid, workgroup, launch.wave_width, registers, local)


def _pick(explicit, metadata, default, metadata_first):
    if explicit is not None and not (metadata_first and metadata > 0):
        return explicit
    return metadata if metadata > 0 else default
