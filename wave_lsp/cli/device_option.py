"""`wave-lsp run --device cuda [--compare] FILE ...`: run the launch on a real NVIDIA GPU.

The kernel's PTX (as `wave-lsp emit --target ptx` makes it, in-process) is loaded through the
CUDA driver by CuPy (`pip install 'wave-lsp[cuda]'`) over device memory built by the
emulator's own `--arg`/fill writer, and the dumps are printed by the emulator's formatters, so
the output is the emulator's format. `--compare` also runs the emulator and prints the first
word of device memory that differs, with the store line that wrote it in the emulator (exit
status 1 when anything differs), or that the images are the same.

Usage errors (exit status 2, one line): `--device cuda` without CuPy or without a CUDA device,
`--compare` without `--device cuda`, and flags a GPU run cannot honour (`--stats`, `--trace`,
`--trace-lines`, `--dump-regs`, `--wave-widths`, `--time-limit`, a wave width other than
32). `--set-reg` values reach the kernel as its parameters (`asm/backends/arguments.py`).
"""

from __future__ import annotations

import json
import sys


def _usage(message: str) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return 2


def run_device(args, program, request) -> int:
    """The command for `--device cuda` (a `launch.request.RunRequest`); the dumps are printed by
    the emulator's output."""
    from ..launch.output import dump_lines, write_run_output
    from ..emu import (DeviceRunError, DeviceUnavailable, RunReport, device_status,
                       prepare_on_device, run_on_device)
    if request.device_problem is not None:
        return _usage(request.device_problem)
    launch, requests = request.launch, request.dumps
    prepare_on_device(program, launch)            # a launch the GPU cannot run: the caller's exit 1
    reason = device_status()
    if reason is not None:
        return _usage(f"--device cuda: {reason}")
    try:
        outcome = run_on_device(program, launch, compare=request.compare,
                                     options=request.options)
    except DeviceUnavailable as err:
        return _usage(f"--device cuda: {err}")
    except DeviceRunError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    image, difference = outcome.image, outcome.difference
    if request.json:
        data = {"kernel": outcome.prepared.kernel, "device": "cuda",
                "dumps": {r.kind: list(dump_lines(r, image)) for r in requests}}
        if request.compare:
            data["compare"] = None if difference is None else difference.as_dict()
        print(json.dumps(data, indent=1))
    else:
        write_run_output(RunReport(kernel=outcome.prepared.kernel, device=image), requests)
        if request.compare:
            print(compare_message(difference, str(args.file), image.size), file=sys.stderr)
    return 1 if difference is not None else 0


def compare_message(difference, path: str, size: int) -> str:
    """The line `--compare` prints (stderr: stdout stays the dumps)."""
    if difference is None:
        return f"Compare: device memory is the same on the GPU and in the emulator ({size} bytes)"
    return "Compare: " + difference.text("emulator", "GPU", path)
