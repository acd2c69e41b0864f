"""Running a launch on a real NVIDIA GPU: the kernel's PTX (`wave-lsp emit --target ptx`'s code
path, in-process) loaded through the CUDA driver by CuPy (the optional extra
`wave-lsp[cuda]`), over device memory marshalled exactly as the emulator's.

`prepare` does everything that needs no GPU and is tested without one: it selects the kernel,
resolves the geometry as the emulator does, checks the launch can mean the same on the GPU
(32-lane waves, no emulator-only recording), emits the PTX, builds the initial device image
with `kernel_launch.new_device_memory` (the emulator's own `--arg`/fill writer) and the kernel's
arguments: the `--set-reg` value of each register the kernel may read before writing, in the
PTX's parameter order (`asm/backends/arguments.py`), 0 for one without a value as the
emulator's registers start at 0 (a `--set-reg` of any other register cannot change the run).
`execute` copies the image to the GPU, launches and copies it back; the caller prints the dumps
from that image with the emulator's formatters. `device_status` says why no GPU can be used.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .kernel_launch import Launch, launch_error, new_device_memory
from .options import RunOptions

if TYPE_CHECKING:
    import numpy as np

NVIDIA_WAVE_WIDTH = 32          # a warp (seed 003: the PTX backend's wave width)
INSTALL_HINT = "pip install 'wave-lsp[cuda]'"
NO_CUPY = f"CuPy is not installed ({INSTALL_HINT})"


class DeviceUnavailable(Exception):
    """No GPU run is possible here (CuPy missing, no device); the message is one line."""


@dataclass
class DeviceLaunch:
    """A launch ready for the GPU: PTX, its entry, grid and block, the initial image and the
    kernel's arguments."""

    kernel: str
    ptx: str
    entry: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    image: np.ndarray            # uint8, the initial device memory
    arguments: tuple[int, ...] = ()     # the registers passed after the device memory, in order
    values: tuple[int, ...] = ()        # their values (u32)


def device_status() -> str | None:
    """None when CuPy finds a CUDA device, else why not (one line, for any front end)."""
    from importlib.util import find_spec
    if find_spec("cupy") is None:
        return NO_CUPY
    try:
        import cupy
    except ImportError as err:
        return f"CuPy cannot be imported: {_first_line(err)}"
    except Exception as err:                  # a broken CuPy install
        return f"CuPy cannot be imported: {_first_line(err)}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as err:                  # no driver, no device
        return f"CuPy finds no CUDA device ({_first_line(err)})"
    return None if count > 0 else "CuPy finds no CUDA device"


def _first_line(err: Exception) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]


def prepare(program, launch: Launch) -> DeviceLaunch:
    """The GPU side of `launch` (see the module doc); raises LaunchError naming the flag."""
    from ..asm.backends import EmitError, emit_kernels
    from ..asm.backends.arguments import argument_values, kernel_arguments
    from ..asm.backends.names import code_name
    from .prepared import prepare as prepare_launch
    prepared = prepare_launch(program, launch)       # kernel, geometry, memory checked
    kernel, geo = prepared.kernel, prepared.geometry
    if geo.wave_width != NVIDIA_WAVE_WIDTH:
        raise launch_error(f"--wave-width: an NVIDIA GPU runs waves of {NVIDIA_WAVE_WIDTH} "
                           f"lanes, not {geo.wave_width}", "--wave-width")
    try:
        emitted = emit_kernels([kernel], "ptx")
    except EmitError as err:
        raise launch_error(f"the kernel has no PTX translation: {err}", None) from None
    arguments = kernel_arguments(kernel)
    values = argument_values(arguments, {int(r): int(v) for r, v in launch.set_regs.items()})
    # the entry's name is the one backends give the only kernel emitted (index 0)
    return DeviceLaunch(kernel.name, emitted.text, code_name(kernel.name, 0), tuple(geo.grid),
                        tuple(geo.workgroup), new_device_memory(launch), arguments, tuple(values))


def execute(prepared: DeviceLaunch) -> np.ndarray:
    """Run on the GPU; the final device memory (uint8). Raises DeviceUnavailable."""
    reason = device_status()
    if reason is not None:
        raise DeviceUnavailable(reason)
    import cupy
    import numpy
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"{prepared.kernel}.ptx")
        with open(path, "w", encoding="utf-8") as out:
            out.write(prepared.ptx)
        module = cupy.RawModule(path=path)
        function = module.get_function(prepared.entry)
        memory = cupy.asarray(prepared.image)          # at least one byte: a real pointer
        if memory.size == 0:
            memory = cupy.zeros(4, dtype=cupy.uint8)
        values = tuple(numpy.uint32(v) for v in prepared.values)     # .param .u32 each
        function(prepared.grid, prepared.block, (memory, *values))
        cupy.cuda.runtime.deviceSynchronize()
        result = cupy.asnumpy(memory)
    return result[:prepared.image.size]


class DeviceRunError(Exception):
    """The GPU run or, when comparing, the emulator run failed (one line)."""


@dataclass
class DeviceRun:
    """A launch run on the GPU and, with `compare`, the first difference from the emulator."""

    prepared: DeviceLaunch
    image: np.ndarray                    # the GPU's final device memory
    compared: bool = False
    difference: object = None            # compare.MemoryDifference, None: the same (or no compare)


def run_on_device(program, launch: Launch, compare: bool = False,
                  options: RunOptions | None = None) -> DeviceRun:
    """Prepare, run on the GPU and, with `compare`, run the emulator (as `options` say, with
    the store-writer record) and compare. Raises LaunchError, DeviceUnavailable or
    DeviceRunError."""
    from dataclasses import replace
    from .compare import first_difference
    from .pipeline import run
    prepared = prepare(program, launch)
    try:
        image = execute(prepared)
    except DeviceUnavailable:
        raise
    except Exception as err:                          # a driver or PTX JIT error
        raise DeviceRunError(f"the GPU run failed: {_first_line(err)}") from None
    outcome = DeviceRun(prepared, image, compare)
    if compare:
        emulated = run(program, launch, replace(options or RunOptions(), writers=True,
                                                engine="numpy"))
        if emulated.errors:
            raise DeviceRunError(f"the emulator run failed: {emulated.errors[0].message}")
        outcome.difference = first_difference(emulated.device_memory, image, emulated.writers,
                                              by_pc=isinstance(program, (bytes, bytearray)))
    return outcome
