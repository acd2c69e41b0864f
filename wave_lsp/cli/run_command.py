"""`wave-lsp run FILE.wave|FILE.wbin [flags]`: run a kernel in the emulator.

Accepts every flag of upstream `wave-emu` with the same meaning and prints the same stdout
formats: `--dump-memory` (hex dump), `--dump-u32/-f32/-f16/-bf16` (one value a line, floats as
Rust's `{:?}`) and the `--stats` block, in that order. As upstream, a workgroup size, register
count or local memory size in the kernel's metadata wins over the flag. Errors print
`Error: MESSAGE` to stderr and exit with status 1.

Additions: `--kernel NAME` (upstream always runs the first), `--json` (the whole report
as JSON on stdout instead of the text output), `--trace-lines` (`--trace` with the source line
and the active mask: `wg(X,Y,Z) wave[N] pc=0xPPPP: TEXT ; line L mask=0xMMMM`, see
`wave_lsp.emu.recording`), `--time-limit SECONDS`, `--compat wave-asm` (assemble source exactly
as wave-asm would, defects included), and `--dump-regs` (prints thread 0's registers; upstream
only prints that it is not implemented), `--wave-widths 16,32,64` (run at each width and report
the memory that differs, by store line; see `wave_widths_option`).

Warnings (unaligned accesses, shuffles from inactive lanes, data races between workgroups or
between waves with no barrier between, reads of registers or memory nothing initialised — see
`wave_lsp.emu.initcheck`, `--no-initcheck` turns that check off; upstream has none) are printed
to stderr as `Warning: MESSAGE`; stdout is upstream's. `--device cuda [--compare]` runs the
launch on a GPU instead (see `device_option`).

Bounds (upstream has none): every value is checked before the run with a one-line error naming
the flag: at most 1024 threads per workgroup (the kernel's metadata included), wave width 1-64,
2**32 workgroups, 4 GiB device and 1 GiB local memory, `--set-reg` registers that exist and
32-bit values, `--fill-iota` type f32, dumps inside device memory, `--time-limit` a finite
positive number. `--max-instructions` counts the wave-instructions of the whole launch (upstream:
per workgroup), so a spinning kernel stops however many workgroups it has. Dumps are written a
chunk at a time.

Engines: a launch the native core can run (`wave_lsp.emu.native`: no --trace, --json,
--dump-regs, --time-limit or --wave-widths, only instructions it implements) runs there first,
without loading numpy; at anything the numpy engine would report (an error, a warning, a
possible data race, a limit) the launch runs again on the numpy engine, which reports it.
`WAVE_LSP_NATIVE=0` uses the numpy engine only; `WAVE_LSP_SHOW_ENGINE=1` says on stderr which
engine gave the results.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterator

from ..emu.launch_flags import add_launch_flags, build_launch, check_dumps, dump_requests
from .device_option import add_device_flags
from .profile_option import add_profile_flags
from ..files import read_program


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="run a kernel in the emulator (wave-emu compatible flags)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, metavar="FILE", help=".wave source or .wbin binary")
    add_launch_flags(p)
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.add_argument("--wave-widths", metavar="W1,W2,...",
                   help="run at each wave width (or 'targets': the configured targets' "
                        "widths) and report the memory that differs")
    p.add_argument("--compat", choices=("wave-asm",),
                   help="assemble source exactly as wave-asm does, defects included")
    add_device_flags(p)
    add_profile_flags(p)
    p.set_defaults(func=run)


def _error(message: str) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return 1


def _program(path: Path, compat: bool):
    from ..emu.launch import LaunchError
    program = read_program(path)  # regular files only, bounded
    if isinstance(program, bytes) or not compat:
        return program
    from ..asm import AssemblyError, assemble
    try:
        return assemble(program, compat=True)
    except AssemblyError as err:
        raise LaunchError(f"the program does not assemble: {err}") from None


def _run_native(kernels, launch, profile=False):
    """The native core's results of the launch, or None: the numpy engine must run it."""
    import os
    from ..emu.geometry import select_kernel
    from ..emu.launch import LaunchError
    from ..emu.native.runner import run_native
    show = os.environ.get("WAVE_LSP_SHOW_ENGINE") == "1"
    try:
        kernel = select_kernel(kernels, launch.kernel)
    except LaunchError:
        return None                      # the numpy path reports it
    native = run_native(kernel, launch, profile)
    if show:
        print("engine: " + ("native" if native.reason is None else f"numpy ({native.reason})"),
              file=sys.stderr)
    return native if native.reason is None else None


def run(args) -> int:
    """The command (the garbage collector paused: collecting during the imports and the setup of
    a one-shot run only costs time; its state is restored for in-process callers)."""
    import gc
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if enabled:
            gc.enable()


def _run(args) -> int:
    from ..emu.launch import LaunchError
    try:
        program = _program(args.file, bool(args.compat))
        launch = build_launch(args)
        requests = dump_requests(args)
        check_dumps(requests, launch.device_memory)
        from .profile_option import profiling, write_profile
        profile = profiling(args)
        if args.device != "emulator" or args.compare:
            from .device_option import run_device
            return run_device(args, program, launch, requests, _write_output)
        if args.wave_widths:
            from .wave_widths_option import run_widths
            return run_widths(args, program, launch)
        from ..emu.geometry import load_kernels
        kernels = load_kernels(program)    # decoded (or assembled) once for either engine
        native = None if args.json else _run_native(kernels, launch, profile)
        if native is not None:
            try:
                _write_native_output(args, requests, native)
                if profile:
                    write_profile(args, native.profile, program, _kernel(kernels, launch))
            except BrokenPipeError:
                _quiet_stdout()
            return 0
        from ..emu.api import run as run_kernel      # the numpy engine
        report = run_kernel(kernels, launch, profile=profile)
    except (LaunchError, ValueError) as err:
        return _error(str(err))
    except MemoryError:
        return _error("not enough memory for this launch")
    except OSError as err:
        return _error(f"cannot read '{args.file}': {err.strerror or err}")
    if args.json:
        import json
        data = report.to_json(include_memory=False)
        data["dumps"] = {r.kind: list(dump_lines(r, report.device_memory)) for r in requests}
        if profile and report.profile is not None:
            from .profile_option import profile_json
            data["profile"] = profile_json(args, report.profile)
        print(json.dumps(data, indent=1))
        return 1 if report.errors else 0
    if report.errors:
        from ..emu.formats import describe_error
        return _error(describe_error(report.errors[0]))
    for warning in report.warnings:          # upstream has none; stdout stays upstream's
        where = f" [line {warning.line + 1}]" if warning.line is not None and \
            warning.kind != "data_race" else ""
        count = f" ({warning.count} times)" if warning.count > 1 else ""
        print(f"Warning: {warning.message}{where}{count}", file=sys.stderr)
    try:
        _write_output(args, requests, report)
        if profile:
            write_profile(args, report.profile, program, _kernel(kernels, launch))
    except BrokenPipeError:
        _quiet_stdout()
    return 0


def _kernel(kernels, launch):
    from ..emu.geometry import select_kernel
    return select_kernel(kernels, launch.kernel)


def dump_lines(request, memory) -> Iterator[str]:
    """The lines of one `--dump-*` request over a device image (uint8)."""
    from ..emu.formats import dump_values, hex_dump
    if request.kind == "memory":
        return hex_dump(memory, request.start, request.start + request.count)
    return dump_values(memory, request.start, request.count, request.kind)


def _chunks(request, memory) -> Iterator[list[str]]:
    from ..emu.formats import dump_value_chunks, hex_dump_chunks
    if request.kind == "memory":
        return hex_dump_chunks(memory, request.start, request.start + request.count)
    return dump_value_chunks(memory, request.start, request.count, request.kind)


def _write_output(args, requests, report) -> None:
    """Dumps, registers and statistics in upstream's order, written a chunk at a time."""
    out = sys.stdout
    batch: list[str] = []
    for request in requests:
        for chunk in _chunks(request, report.device_memory):
            if chunk:
                out.write("\n".join(chunk) + "\n")
    if args.dump_regs:
        for tid, regs in report.registers.items():
            batch.append(f"Thread {tid}: " + " ".join(f"{k}=0x{v:08x}" if k[0] == "r"
                                                      else f"{k}={v}"
                                                      for k, v in regs.items()))
    if args.stats:
        from ..emu.formats import stats_block
        batch += stats_block(report.stats)
    if batch:
        out.write("\n".join(batch) + "\n")
    out.flush()


class _TextSink:
    """Bytes written to a text stream without a buffer (a redirected sys.stdout)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data.decode())

    def flush(self) -> None:
        self.stream.flush()


def _write_native_output(args, requests, native) -> None:
    """`_write_output` for the native core's results (the same text, formatted in C)."""
    from ..emu.native import core
    from ..emu.run_text import stats_block
    wavecore = core()
    sys.stdout.flush()
    out = getattr(sys.stdout, "buffer", None) or _TextSink(sys.stdout)
    memory = native.device
    step = 1 << 16
    for request in requests:
        if request.kind == "memory":
            end = request.start + request.count
            out.write(f"Device memory 0x{request.start:08x}-0x{end:08x}:\n".encode())
            for base in range(request.start, end, step * 16):
                out.write(wavecore.hex_rows(memory, base, min(end, base + step * 16)))
            continue
        width = 4 if request.kind in ("u32", "f32") else 2
        for first in range(0, request.count, step):
            count = min(step, request.count - first)
            out.write(wavecore.format_values(memory, request.start + width * first, count,
                                             request.kind))
    if args.stats:
        out.write(("\n".join(stats_block(native.stats)) + "\n").encode())
    out.flush()


def _quiet_stdout() -> None:
    """After the reader closed the pipe: stop Python from complaining at exit."""
    import os
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
