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

Debugging (upstream's wave-emu has `--trace` only; seed 004 describes these, upstream lacks
them): `--mem-trace` writes one stderr line per lane per load, store and atomic, device and
local memory, in execution order:

    mem step=S wg(X,Y,Z) wave[W] lane[L] pc=0xPPPP line N: SPACE KIND SIZE @0xADDR value=0xV

(`value`: loaded or stored; atomics: memory's value before the atomic, then `operand=0xV`, or
`compare=0xC swap=0xV` for atomic_cas; `step`: the wave-instruction's index among the lines
of `--trace-lines`; with `--json` the records are the document's `mem_trace` list; an `mma_*`
tile is 16 four-byte local accesses per lane). `--trace-wave N`, `--trace-lane N` and `--trace-pc START:END` (byte
offsets, END exclusive, decimal or 0x-hex) keep the lines of `--trace`, `--trace-lines` and
`--mem-trace` of one wave of each workgroup, of instructions lane N executed (its accesses),
of a pc range. `--break PC` or `--break line:N` (repeatable) stops before that instruction in
each wave that reaches it with an active lane and prints the wave's registers and predicates
for every lane to stderr; when stdin is a terminal it asks `[c]ontinue, [s]tep, [q]uit?` (step:
stop before the wave's next instruction; quit: the run ends with an error), else it goes on.
`--mem-trace` runs on the native core where the launch can (the log is written when the run
ends), else on the numpy engine (line by line); `--trace` and `--break` on the numpy engine.

Warnings (unaligned accesses, shuffles from inactive lanes, data races between workgroups or
between waves with no barrier between, reads of registers or memory nothing initialised — see
`wave_lsp.emu.initcheck`, `--no-initcheck` turns that check off; upstream has none) are printed
to stderr as `Warning: MESSAGE`; stdout is upstream's. Races between the waves of a workgroup
are compute-sanitizer's by default (atomics unchecked, waves storing one same value no race);
`--racecheck strict` reports the specification's, as `wave-lsp verify` does: a store or read
meeting another wave's atomic ("(store vs atomic)", "(read vs atomic)") and equal values stored
("(both wrote the same value)") race too. `--device cuda [--compare]` runs the
launch on a GPU instead (see `device_option`).

Bounds (upstream has none): every value is checked before the run with a one-line error naming
the flag: at most 1024 threads per workgroup (the kernel's metadata included), wave width 1-64,
2**32 workgroups, 4 GiB device and 1 GiB local memory, `--set-reg` registers that exist and
32-bit values, `--fill-iota` type f32, dumps inside device memory, `--time-limit` a finite
positive number. `--max-instructions` counts the wave-instructions of the whole launch (upstream:
per workgroup), so a spinning kernel stops however many workgroups it has. Dumps are written a
chunk at a time.

Engines (`wave_lsp.emu.pipeline.run`, the one entry the editor and the debugger use too): a
launch the native core can run (every instruction; no --trace or --break) runs there,
without loading numpy; the core reports warnings, errors, data races, the instruction and time
limits itself, with the numpy engine's text, and leaves a launch to the numpy engine only for
what it lacks (`wave_lsp.emu.native.runner` lists it: a trace, breakpoints, the debugger's
recording, launches above its memory bounds); NaN results and the transcendentals (the C
library's `sinf`, `cosf`, `exp2f`, `log2f`) are upstream's bits on both engines. The core runs
workgroups on every core this process may use (`WAVE_LSP_THREADS=N`: N threads; 1: one at a time) with results identical to
one at a time: where workgroups meet on memory (a write, an atomic), or at an error, it runs the
launch again one workgroup at a time. `WAVE_LSP_NATIVE=0` uses the numpy engine only;
`WAVE_LSP_SHOW_ENGINE=1` says on stderr which engine gave the results (`engine: native (N
threads)`).

This module only parses the flags (`wave_lsp.launch.request`), calls the pipeline and prints
(`wave_lsp.launch.output`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..launch.table import add_flags


def register(subparsers) -> None:
    """The parser of `run`: every flag of the launch table (`--help` loads no more than that)."""
    p = subparsers.add_parser(
        "run", help="run a kernel in the emulator (wave-emu compatible flags)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, metavar="FILE", help=".wave source or .wbin binary")
    add_flags(p)
    p.set_defaults(func=run)


def _error(message: str) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return 1


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
    from ..emu import LaunchError, engine_line, load_program, run as run_launch
    from ..launch.request import program_for, run_request
    try:
        program = program_for(load_program(args.file), bool(args.compat))  # regular, bounded
        request = run_request(args)           # --profile: RunOptions(profile=True)
        if request.device != "emulator" or request.compare:
            from .device_option import run_device
            return run_device(args, program, request)
        if request.wave_widths:
            from .wave_widths_option import run_widths
            return run_widths(args, program, request)
        request.options = _observed(request.options, request.json)
        report = run_launch(program, request.launch, request.options)
    except (LaunchError, ValueError) as err:
        return _error(str(err))
    except MemoryError:
        return _error("not enough memory for this launch")
    except OSError as err:
        return _error(f"cannot read '{args.file}': {err.strerror or err}")
    return _print(report, request, engine_line(report), args, program)


def _observed(options, json: bool):
    """The options with what only the command knows: `--mem-trace` kept for the `--json`
    document instead of written, and a breakpoint asking on the terminal (stdin a tty)."""
    from dataclasses import replace
    if json and options.mem_trace:
        options = replace(options, mem_trace="record")
    if options.breakpoints and sys.stdin is not None and sys.stdin.isatty():
        options = replace(options, break_prompt=_ask)
    return options


def _ask(prompt: str) -> str | None:
    """A breakpoint's question on the terminal; None at end of input."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return answer if answer else None


def _print(report, request, engine: str | None, args=None, program=None) -> int:
    """Print what `launch.output.command_text` says, the dumps streamed a chunk at a time (the
    profile after it: `profile_option`, whose counting may stop at `--time-limit`)."""
    from ..launch.output import json_document, stderr_lines, write_run_output
    for line in ([engine] if engine is not None else []) + stderr_lines(report, request):
        print(line, file=sys.stderr)     # upstream prints no warnings; stdout stays upstream's
    stopped = None                     # the profile's counting past --time-limit
    try:
        if request.json:
            text, stopped = json_document(report, request)
            print(text)
        elif not report.errors:
            write_run_output(report, request.dumps, stats=request.stats,
                             dump_regs=request.dump_regs)
            if request.profile:
                from .profile_option import write_profile
                args.profile_started = request.started
                stopped = write_profile(args, report, program)
    except BrokenPipeError:
        _quiet_stdout()
    if stopped is not None:
        sys.stdout.flush()
        return _error(stopped)
    return 1 if report.errors else 0


def _quiet_stdout() -> None:
    """After the reader closed the pipe: stop Python from complaining at exit."""
    import os
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
