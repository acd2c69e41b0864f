"""`wave-lsp run FILE.wave|FILE.wbin [flags]`: run a kernel in the emulator.

Accepts every flag of upstream `wave-emu` with the same meaning and prints the same stdout
formats: `--dump-memory` (hex dump), `--dump-u32/-f32/-f16/-bf16` (one value a line, floats as
Rust's `{:?}`) and the `--stats` block, in that order. As upstream, a workgroup size, register
count or local memory size in the kernel's metadata wins over the flag. Errors print
`Error: MESSAGE` to stderr and exit with status 1.

Additions: `--kernel NAME` (upstream always runs the first kernel), `--json` (the whole report
as JSON on stdout instead of the text output), `--trace` (one stderr line per wave per executed
instruction: `wg(X,Y,Z) wave[N] pc=0xPPPP: TEXT ; line L mask=0xMMMM`, see
`wave_lsp.emu.recording`), `--time-limit SECONDS`, `--compat wave-asm` (assemble source exactly
as wave-asm would, defects included), and `--dump-regs` (prints thread 0's registers; upstream
only prints that it is not implemented), `--wave-widths 16,32,64` (run at each width and report
the memory that differs, by store line; see `wave_widths_option`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..emu import LaunchError, run as run_kernel
from ..emu.launch_flags import add_launch_flags, build_launch, pair as _pair
from ..emu.formats import dump_values, hex_dump, stats_block


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
    p.set_defaults(func=run)


def _error(message: str) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return 1


def describe_error(error) -> str:
    """`message (kind) at pc 0x..., line L, workgroup (x,y,z), wave W, lanes ...`."""
    where = []
    if error.pc is not None:
        where.append(f"pc 0x{error.pc:04x}")
    if error.line is not None:
        where.append(f"line {error.line + 1}")
    if error.workgroup is not None:
        where.append("workgroup ({},{},{})".format(*error.workgroup))
    if error.wave is not None:
        where.append(f"wave {error.wave}")
    if error.lanes:
        lanes = ",".join(str(l) for l in error.lanes[:16]) + ("…" if len(error.lanes) > 16 else "")
        where.append(f"lanes {lanes}")
    return error.message + (f" [{', '.join(where)}]" if where else "")


def _program(path: Path, compat: bool):
    data = path.read_bytes()
    if data[:4] == b"WAVE" or path.suffix == ".wbin":
        return data
    text = data.decode("utf-8")
    if compat:
        from ..asm import AssemblyError, assemble
        try:
            return assemble(text, compat=True)
        except AssemblyError as err:
            raise LaunchError(f"the program does not assemble: {err}") from None
    return text


def run(args) -> int:
    try:
        program = _program(args.file, bool(args.compat))
        launch = build_launch(args)
        if args.wave_widths:
            from .wave_widths_option import run_widths
            return run_widths(args, program, launch)
        report = run_kernel(program, launch)
    except (LaunchError, ValueError) as err:
        return _error(str(err))
    except OSError as err:
        return _error(f"cannot read '{args.file}': {err.strerror or err}")
    if args.json:
        data = report.to_json(include_memory=False)
        try:
            data["dumps"] = _dumps(args, report)
        except ValueError as err:
            return _error(str(err))
        print(json.dumps(data, indent=1))
        return 1 if report.errors else 0
    if report.errors:
        return _error(describe_error(report.errors[0]))
    try:
        lines = []
        for kind, values in _dumps(args, report).items():
            lines += values
        if args.dump_regs:
            for tid, regs in report.registers.items():
                lines.append(f"Thread {tid}: " + " ".join(f"{k}=0x{v:08x}" if k[0] == "r"
                                                         else f"{k}={v}"
                                                         for k, v in regs.items()))
        if args.stats:
            lines += stats_block(report.stats)
    except ValueError as err:
        return _error(str(err))
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _dumps(args, report) -> dict[str, list[str]]:
    memory = report.device_memory
    size = memory.size
    out: dict[str, list[str]] = {}
    if args.dump_memory:
        start, end = _pair(args.dump_memory)
        if not 0 <= start <= end <= size:
            raise ValueError(f"memory access out of bounds: address 0x{max(start, end):016x}")
        out["memory"] = hex_dump(memory, start, end)
    for kind in ("u32", "f32", "f16", "bf16"):
        spec = getattr(args, f"dump_{kind}")
        if spec:
            offset, count = _pair(spec)
            width = 4 if kind in ("u32", "f32") else 2
            if offset < 0 or count < 0 or offset + width * count > size:
                raise ValueError(
                    f"memory access out of bounds: address 0x{offset + width * count:016x}")
            out[kind] = dump_values(memory, offset, count, kind)
    return out
