"""The GPU offer of the editor's Run: whether CuPy finds a CUDA device (asked once per process:
it does not change while the editor runs), and one run of a kernel's launch on the GPU compared
with the emulator, as plain data for the server (`wave-lsp.runOnGpu`)."""

from __future__ import annotations

from functools import cache

from ..emu import Launch, RunOptions


@cache
def gpu_status() -> str | None:
    """None when a GPU run is possible here, else why not (one line)."""
    from importlib.util import find_spec
    if find_spec("cupy") is None:       # the common case, without loading the GPU module
        from ..emu import NO_CUPY
        return NO_CUPY
    from ..emu import device_status
    return device_status()


def run_on_gpu(program, launch: Launch, path: str = "",
               options: RunOptions | None = None) -> dict:
    """Run `launch` on the GPU and in the emulator (as `options` say); the outcome (`ok` False
    with `message` when it could not run). Raises nothing for a launch, device or run
    problem."""
    from ..emu import DeviceRunError, DeviceUnavailable, LaunchError, run_on_device
    reason = gpu_status()
    if reason is not None:
        return {"ok": False, "message": f"cannot run on a GPU: {reason}"}
    try:
        outcome = run_on_device(program, launch, compare=True, options=options)
    except (LaunchError, DeviceUnavailable, DeviceRunError) as err:
        return {"ok": False, "message": str(err)}
    difference = outcome.difference
    size = outcome.image.size
    message = (f"kernel {outcome.prepared.kernel}: device memory is the same on the GPU and in "
               f"the emulator ({size} bytes)" if difference is None else
               f"kernel {outcome.prepared.kernel}: "
               + difference.text("emulator", "GPU", path))
    return {"ok": True, "kernel": outcome.prepared.kernel, "device": "cuda",
            "same": difference is None, "message": message,
            "difference": None if difference is None else difference.as_dict()}
