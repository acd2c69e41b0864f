"""The launch description: grid, workgroup, wave width, memory sizes, initial memory and registers,
kernel selection, limits and what to record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence, Union

import numpy as np

DEFAULT_WORKGROUP = (32, 1, 1)       # upstream wave-emu's --workgroup default
DEFAULT_LOCAL_MEMORY = 16384         # upstream --local-memory default (bytes)
DEFAULT_DEVICE_MEMORY = 1 << 20      # upstream --device-memory default (bytes)
DEFAULT_REGISTERS = 32


@dataclass(frozen=True)
class DataFill:
    """Copy `data` into device memory at `offset` (upstream `--arg OFFSET:FILE`)."""

    offset: int
    data: bytes


@dataclass(frozen=True)
class IotaFill:
    """Write `count` f32 values i * scale at `offset` (upstream `--fill-iota`)."""

    offset: int
    count: int
    scale: float = 1.0


@dataclass(frozen=True)
class ZeroFill:
    """Write `count` * 4 zero bytes at `offset` (upstream `--fill-zero`)."""

    offset: int
    count: int


MemoryInit = Union[DataFill, IotaFill, ZeroFill]


@dataclass(frozen=True)
class Launch:
    """How to run a kernel. `None` sizes come from the kernel's metadata (then upstream defaults).

    `metadata_first` reproduces upstream wave-emu, where a value in the metadata wins over an
    explicit workgroup, register count or local memory size (the command line sets it).
    `record_threads` is None (no recording), "first_wave", or global linear thread ids.
    `register_threads` lists global linear thread ids whose final registers the report carries.
    """

    grid: tuple[int, int, int] = (1, 1, 1)
    workgroup: tuple[int, int, int] | None = None
    wave_width: int = 32
    registers: int | None = None
    local_memory: int | None = None
    device_memory: int = DEFAULT_DEVICE_MEMORY
    kernel: str | None = None
    memory_init: Sequence[MemoryInit] = ()
    set_regs: dict[int, int] = field(default_factory=dict)
    max_instructions: int = 10_000_000
    time_limit: float | None = None
    record_threads: str | Sequence[int] | None = None
    register_threads: Sequence[int] = ()
    metadata_first: bool = False
    max_batch_lanes: int = 1 << 20
    trace: bool | Callable[[str], None] = False   # True: to stderr; or a line sink
    record_limit: int = 64               # executions kept per line in line_records


class LaunchError(ValueError):
    """A launch description that cannot run (bad sizes, unknown kernel, fill out of range)."""


def new_device_memory(launch: Launch) -> np.ndarray:
    """Zeroed device memory of the launch's size with its initial contents written."""
    if launch.device_memory < 0 or launch.device_memory > (1 << 32):
        raise LaunchError(f"invalid device memory size {launch.device_memory}")
    device = np.zeros((launch.device_memory + 3) & ~3, dtype=np.uint8)[:launch.device_memory]
    apply_memory_init(device, launch.memory_init)
    return device


def apply_memory_init(memory: np.ndarray, items: Sequence[MemoryInit]) -> None:
    """Write the initial device memory, in the order given."""
    size = memory.size
    for item in items:
        if isinstance(item, DataFill):
            data = np.frombuffer(bytes(item.data), dtype=np.uint8)
            _check_range(item.offset, data.size, size, "--arg")
            memory[item.offset:item.offset + data.size] = data
        elif isinstance(item, IotaFill):
            _check_range(item.offset, 4 * item.count, size, "--fill-iota")
            values = np.arange(item.count, dtype=np.float32) * np.float32(item.scale)
            memory[item.offset:item.offset + 4 * item.count] = values.astype("<f4").view(np.uint8)
        elif isinstance(item, ZeroFill):
            _check_range(item.offset, 4 * item.count, size, "--fill-zero")
            memory[item.offset:item.offset + 4 * item.count] = 0
        else:
            raise LaunchError(f"unknown memory initialiser {item!r}")


def _check_range(offset: int, length: int, size: int, what: str) -> None:
    if offset < 0 or length < 0 or offset + length > size:
        raise LaunchError(f"memory access out of bounds: address 0x{max(offset, 0):016x} "
                          f"({what}: {length} bytes at {offset}, device memory is {size} bytes)")
