"""`wave-lsp run --device cuda [--compare] FILE ...`: run the launch on a real NVIDIA GPU.

The kernel's PTX (as `wave-lsp emit --target ptx` makes it, in-process) is loaded through the
CUDA driver by CuPy (`pip install 'wave-lsp[cuda]'`) over device memory built by the
emulator's own `--arg`/fill writer, and the dumps are printed by the emulator's formatters, so
the output is the emulator's format. `--compare` also runs the emulator and prints the first
word of device memory that differs, with the store line that wrote it in the emulator (exit
status 1 when anything differs), or that the images are the same.

Usage errors (exit status 2, one line): `--device cuda` without CuPy or without a CUDA device,
`--compare` without `--device cuda`, and flags a GPU run cannot honour (`--stats`, `--trace`,
`--trace-lines`, `--dump-regs`, `--wave-widths`, `--time-limit`, `--set-reg`, a wave width
other than 32).
"""

from __future__ import annotations

import json
import sys

DEVICES = ("emulator", "cuda")
EMULATOR_ONLY = (("stats", "--stats"), ("trace", "--trace"), ("trace_lines", "--trace-lines"),
                 ("dump_regs", "--dump-regs"), ("wave_widths", "--wave-widths"),
                 ("time_limit", "--time-limit"))


def add_device_flags(p) -> None:
    p.add_argument("--device", choices=DEVICES, default="emulator",
                   help="where to run: the emulator (default) or a CUDA GPU (needs CuPy)")
    p.add_argument("--compare", action="store_true",
                   help="with --device cuda: run the emulator too and report the first word "
                        "of device memory that differs, with the store line that wrote it")


def usage_problem(args) -> str | None:
    """Why the device flags cannot run as given (checked before anything runs), or None."""
    if args.compare and args.device != "cuda":
        return "--compare compares a GPU run with the emulator: it needs --device cuda"
    if args.device == "emulator":
        return None
    for name, flag in EMULATOR_ONLY:
        if getattr(args, name, None):
            return f"{flag} is the emulator's: it cannot be used with --device {args.device}"
    return None


def _usage(message: str) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return 2


def run_device(args, program, launch, requests, write_output) -> int:
    """The command for `--device cuda`; `write_output(args, requests, report)` prints dumps."""
    from ..emu import cuda
    from ..emu.report import RunReport
    problem = usage_problem(args)
    if problem is not None:
        return _usage(problem)
    cuda.prepare(program, launch)            # a launch the GPU cannot run: the caller's exit 1
    reason = cuda.device_status()
    if reason is not None:
        return _usage(f"--device cuda: {reason}")
    try:
        outcome = cuda.run_on_device(program, launch, compare=args.compare)
    except cuda.DeviceUnavailable as err:
        return _usage(f"--device cuda: {err}")
    except cuda.DeviceRunError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    image, difference = outcome.image, outcome.difference
    if args.json:
        from .run_command import dump_lines
        data = {"kernel": outcome.prepared.kernel, "device": "cuda",
                "dumps": {r.kind: list(dump_lines(r, image)) for r in requests}}
        if args.compare:
            data["compare"] = None if difference is None else difference.as_dict()
        print(json.dumps(data, indent=1))
    else:
        write_output(args, requests, RunReport(kernel=outcome.prepared.kernel,
                                               device_memory=image))
        if args.compare:
            print(compare_message(difference, str(args.file), image.size), file=sys.stderr)
    return 1 if difference is not None else 0


def compare_message(difference, path: str, size: int) -> str:
    """The line `--compare` prints (stderr: stdout stays the dumps)."""
    if difference is None:
        return f"Compare: device memory is the same on the GPU and in the emulator ({size} bytes)"
    return "Compare: " + difference.text("emulator", "GPU", path)
