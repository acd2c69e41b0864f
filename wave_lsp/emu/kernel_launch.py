"""The launch description — what runs: grid, workgroup, wave width, memory sizes, initial memory
and registers, kernel selection, the threads whose final registers the report carries. How it
runs (limits, trace, recording, engine) is `options.RunOptions`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence, Union

from ..isa.launch_defaults import DEFAULT_LOCAL_MEMORY  # noqa: F401  (upstream --local-memory default)
from .limits import MAX_DEVICE_MEMORY

DEFAULT_WORKGROUP = (32, 1, 1)       # upstream wave-emu's --workgroup default
DEFAULT_DEVICE_MEMORY = 1 << 20      # upstream --device-memory default (bytes)
DEFAULT_REGISTERS = 32
FILL_CHUNK = 1 << 20              # values written per step by --fill-iota


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
    """What to run. `None` sizes come from the kernel's metadata (then upstream defaults).

    `metadata_first` reproduces upstream wave-emu, where a value in the metadata wins over an
    explicit workgroup, register count or local memory size (the command line sets it).
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
    register_threads: Sequence[int] = ()
    metadata_first: bool = False


class LaunchError(ValueError):
    """A launch description that cannot run (bad sizes, unknown kernel, fill out of range)."""


def new_device_memory(launch: Launch, poll: Callable[[], None] | None = None) -> np.ndarray:
    """Zeroed device memory of the launch's size with its initial contents written (`poll`,
    called between steps of the writing, may stop it by raising: a run's limits)."""
    import numpy as np      # here: the launch description itself needs no numpy
    if launch.device_memory < 0 or launch.device_memory > (1 << 32):
        raise LaunchError(f"invalid device memory size {launch.device_memory}")
    device = np.zeros((launch.device_memory + 3) & ~3, dtype=np.uint8)[:launch.device_memory]
    apply_memory_init(device, launch.memory_init, poll)
    return device


def apply_memory_init(memory: np.ndarray, items: Sequence[MemoryInit],
                      poll: Callable[[], None] | None = None) -> None:
    """Write the initial device memory, in the order given (numpy's f32 iota)."""
    import numpy as np

    def iota(offset: int, count: int, scale: float) -> None:
        target = memory[offset:offset + 4 * count].view("<f4")
        step_scale = np.float32(scale)
        for lo in range(0, count, FILL_CHUNK):     # i as f32 times SCALE, in f32
            if poll is not None:
                poll()
            hi = min(count, lo + FILL_CHUNK)
            np.multiply(np.arange(lo, hi, dtype=np.int64).astype(np.float32), step_scale,
                        out=target[lo:hi])

    write_memory_init(memoryview(memory), items, iota, poll)


def write_memory_init(device: memoryview, items: Sequence[MemoryInit],
                      iota: Callable[[int, int, float], None],
                      poll: Callable[[], None] | None = None) -> None:
    """Write the initial device memory into the bytes `device`, in the order given, checking
    each range; `iota(offset, count, scale)` writes an `IotaFill` (numpy or the native core).
    `poll()` is called before each item and each chunk of a zero fill (it may raise)."""
    size = len(device)
    for item in items:
        if poll is not None:
            poll()
        if isinstance(item, DataFill):
            data = bytes(item.data)
            _check_range(item.offset, len(data), size, "--arg")
            device[item.offset:item.offset + len(data)] = data
        elif isinstance(item, IotaFill):
            _check_range(item.offset, 4 * item.count, size, "--fill-iota")
            iota(item.offset, item.count, item.scale)
        elif isinstance(item, ZeroFill):
            _check_range(item.offset, 4 * item.count, size, "--fill-zero")
            zeros = bytes(min(4 * item.count, 4 * FILL_CHUNK))
            for lo in range(item.offset, item.offset + 4 * item.count, len(zeros)):
                if poll is not None:
                    poll()
                hi = min(item.offset + 4 * item.count, lo + len(zeros))
                device[lo:hi] = zeros[:hi - lo]
        else:
            raise LaunchError(f"unknown memory initialiser {item!r}")


def check_memory_init(launch: Launch) -> None:
    """Every initialiser of the launch lies inside its device memory (what `write_memory_init`
    checks as it writes; `prepare` checks it before any memory is made)."""
    flags = {DataFill: "--arg", IotaFill: "--fill-iota", ZeroFill: "--fill-zero"}
    for item, (offset, length) in zip(launch.memory_init,
                                      initialised_ranges(launch.memory_init, keep_empty=True)):
        if type(item) not in flags:
            raise LaunchError(f"unknown memory initialiser {item!r}")
        _check_range(offset, length, launch.device_memory, flags[type(item)])


def initialised_ranges(items: Sequence[MemoryInit], keep_empty: bool = False
                       ) -> list[tuple[int, int]]:
    """(offset, length) of the device memory each initialiser writes, in order (for the
    uninitialised-read check of both engines; `keep_empty`: one per item, empty ones too)."""
    out = []
    for item in items:
        length = len(item.data) if isinstance(item, DataFill) else 4 * getattr(item, "count", 0)
        if length > 0 or keep_empty:
            out.append((item.offset, length))
    return out


def _check_range(offset: int, length: int, size: int, what: str) -> None:
    if offset < 0 or length < 0 or offset + length > size:
        raise launch_error(f"memory access out of bounds: address 0x{max(offset, 0):016x} "
                           f"({what}: {length} bytes at {offset}, device memory is {size} "
                           "bytes)", what)


def launch_error(message: str, flag: str | None) -> LaunchError:
    """A `LaunchError` whose `flag` attribute names the command-line flag of the value at fault
    (`--workgroup`), so an editor can underline it (`getattr(error, "flag", None)`)."""
    error = LaunchError(message)
    error.flag = flag
    return error


def check_device_memory(launch: Launch) -> None:
    """The device memory size is one the emulator can address (32-bit addresses)."""
    if not 0 <= launch.device_memory <= MAX_DEVICE_MEMORY:
        raise launch_error(f"--device-memory: {launch.device_memory} bytes is outside "
                           f"0..{MAX_DEVICE_MEMORY} (addresses are 32-bit)", "--device-memory")
