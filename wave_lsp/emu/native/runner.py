"""Running a launch on the native core: the same preparation as `emu.api.run` (kernel, geometry,
device memory and its initial contents, limits), the core's run, and its statistics as `Stats`.

`run_native` returns a `NativeRun` whose `reason` says why the numpy engine must run the launch
instead (None: the core ran it cleanly and `device`/`stats` are the results, equal to the numpy
engine's). No numpy."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...asm.ir import KernelCode
from ...isa import MAX_CALL_DEPTH, MIN_DIVERGENCE_DEPTH
from ..geometry import Geometry, geometry
from ..launch import (Launch, LaunchError, check_device_memory, initialised_ranges,
                      write_memory_init)
from ..stats import Stats
from . import core as native_core
from .program import encode, encode_uses

MAX_DEVICE_MEMORY = 256 << 20       # beyond this the race shadows would cost too much memory
MAX_LOCAL_MEMORY = 16 << 20         # the same for local memory (4 times its size in shadows)
MAX_WORKGROUPS = 0x1FFFFFFE         # workgroup ids the device shadow can hold (shadow.c)


@dataclass
class NativeRun:
    reason: str | None                           # why the numpy engine must run it, or None
    device: object = field(default_factory=bytearray)    # a buffer: bytes(device)
    stats: Stats = field(default_factory=Stats)
    profile: object = None                       # profile.ProfileRecord when asked for


def _ineligible(launch: Launch) -> str | None:
    if launch.trace:
        return "--trace"
    if launch.record_threads is not None:
        return "recording"
    if launch.register_threads:
        return "registers asked for"
    if launch.time_limit is not None:
        return "a time limit"
    if launch.device_memory > MAX_DEVICE_MEMORY:
        return "device memory above 256 MiB"
    return None


def _memory(launch: Launch, core):
    """Device memory (a `_wavecore.Memory`) with its initial contents, as
    `launch.new_device_memory` writes it."""
    memory = core.Memory(launch.device_memory)
    device = memoryview(memory)
    try:
        write_memory_init(device, launch.memory_init,
                          lambda offset, count, scale: core.fill_iota(device, offset, count,
                                                                      float(scale)))
    finally:
        device.release()
    return memory


def run_native(kernel: KernelCode, launch: Launch, profile: bool = False) -> NativeRun:
    """Run `kernel` as `launch` describes on the native core (see the module doc); `profile`:
    record the kernel profile too (`NativeRun.profile`, see native/profile.c)."""
    core = native_core()
    if core is None:
        return NativeRun("the native core is not built")
    reason = _ineligible(launch)
    if reason is not None:
        return NativeRun(reason)
    try:
        geo: Geometry = geometry(kernel, launch)
        check_device_memory(launch)
        device = _memory(launch, core)
    except LaunchError as err:                   # the numpy engine reports it
        return NativeRun(f"launch error: {err}")
    if launch.max_instructions < 0:
        return NativeRun("bad --max-instructions")
    gx, gy, gz = geo.grid
    if gx * gy * gz > MAX_WORKGROUPS:
        return NativeRun("too many workgroups")
    if geo.local_memory > MAX_LOCAL_MEMORY:
        return NativeRun("local memory above 16 MiB")
    code = encode(kernel, geo.registers, core.OPS)
    if code is None:
        return NativeRun("an instruction the native core does not implement")
    numbers = (*geo.grid, *geo.workgroup, geo.wave_width, geo.registers, geo.local_memory,
               MIN_DIVERGENCE_DEPTH, MAX_CALL_DEPTH, launch.max_instructions)
    regs = {int(k): int(v) for k, v in launch.set_regs.items()}
    check = ()
    if launch.initcheck:               # the uninitialised-read check (initcheck.c)
        shadow = bytearray(launch.device_memory)
        for offset, length in initialised_ranges(launch.memory_init):
            shadow[offset:offset + length] = b"\x01" * length
        check = (encode_uses(kernel, geo.registers), shadow)
    widths = None
    if profile:
        from ..profile_native import native_widths
        widths = native_widths(geo.wave_width)
        check = check or (b"", bytearray())
    result = core.run(code, numbers, device, regs, *check, *((widths,) if profile else ()))
    (bail, index, counts), record = result if profile else (result, None)
    if bail is not None:
        return NativeRun(f"{bail} (instruction {index})")
    run = NativeRun(None, device, _stats(counts))
    if profile:
        from ..profile_native import native_record
        run.profile = native_record(kernel, geo, record)
    return run


def _stats(counts: tuple[int, ...]) -> Stats:
    (integer, float_, memory, control, wave, atomic, atomic_lanes, device_loads, device_stores,
     device_load_bytes, device_store_bytes, local_loads, local_stores, local_load_bytes,
     local_store_bytes, barriers, divergent, workgroups, waves) = counts
    return Stats(total=integer + float_ + memory + control + wave + atomic, integer=integer,
                 float=float_, memory=memory, control=control, wave=wave,
                 atomic=atomic + atomic_lanes,  # upstream also counts one per lane
                 device_loads=device_loads, device_stores=device_stores,
                 device_load_bytes=device_load_bytes, device_store_bytes=device_store_bytes,
                 local_loads=local_loads, local_stores=local_stores,
                 local_load_bytes=local_load_bytes, local_store_bytes=local_store_bytes,
                 barriers=barriers, divergent_branches=divergent, workgroups=workgroups,
                 waves=waves)
