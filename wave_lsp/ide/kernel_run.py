"""One kernel test's run, in process: what `wave-lsp run FILE FLAGS --kernel K` prints.

`run_flags` takes the program text and a launch line's flag words and returns the stdout lines,
the exit status and the first line of stderr that the command gives when started in the file's
folder (so `--arg` files are relative to the file, as in the editor). `--lanes` (which threads
the editor shows) and `--tolerance` (how `wave-lsp test` compares) change nothing in the run.
`--trace` and `--trace-lines` only write to stderr: a test runs without them, and its first line
of stderr is the error or warning line. With `writers`, the run also records who last stored
each device byte, and `dump_address` maps an output line back to the device address it shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..emu.launch_flags import (DumpRequest, LaunchFlagError, arg_spec, build_launch,
                                check_dumps, dump_requests, parse_launch_flags)
from .arg_files import confined_path

EDITOR_ONLY_FLAGS = ("--lanes",)       # flags of a launch line `wave-lsp run` does not take


@dataclass
class RunOutput:
    """What the command printed, and the run behind it (None when it stopped before running)."""

    stdout: list[str]
    status: int
    stderr: str                        # the first line of stderr ('' when nothing)
    report: object | None = None       # the emulator's RunReport
    requests: tuple[DumpRequest, ...] = ()
    writers: object | None = None      # who stored each device byte (with `writers=True`)


def command_words(words: Sequence[str]) -> list[str]:
    """A launch line's flag words as `wave-lsp run` takes them (editor-only flags dropped)."""
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in EDITOR_ONLY_FLAGS:
            skip = "=" not in word
            continue
        out.append(word)
    return out


def _failed(message: str) -> RunOutput:
    return RunOutput([], 1, f"Error: {message}")


def _warning_line(warning) -> str:
    where = f" [line {warning.line + 1}]" if warning.line is not None and \
        warning.kind != "data_race" else ""
    count = f" ({warning.count} times)" if warning.count > 1 else ""
    return f"Warning: {warning.message}{where}{count}"


def _stdout(args, requests, report) -> list[str]:
    from ..emu.formats import dump_values, hex_dump, stats_block
    lines: list[str] = []
    for r in requests:
        memory = report.device_memory
        lines += hex_dump(memory, r.start, r.start + r.count) if r.kind == "memory" \
            else dump_values(memory, r.start, r.count, r.kind)
    if args.dump_regs:
        for tid, regs in report.registers.items():
            lines.append(f"Thread {tid}: " + " ".join(
                f"{k}=0x{v:08x}" if k[0] == "r" else f"{k}={v}" for k, v in regs.items()))
    if args.stats:
        lines += stats_block(report.stats)
    return lines


def run_flags(program: str | bytes, words: Sequence[str], kernel: str, folder: Path, *,
              root: Path | None = None, cancel: Callable[[], bool] | None = None,
              writers: bool = False) -> RunOutput:
    """`wave-lsp run FILE WORDS --kernel KERNEL` started in `folder`, in process. With a
    `root`, `--arg` files must lie inside it (the editor's rule)."""
    from ..emu.launch import LaunchError
    from ..emu.run_text import describe_error
    try:
        args = parse_launch_flags(command_words(words) + ["--kernel", kernel])
        if root is not None:
            for name in (arg_spec(text)[1] for text in args.arg):
                confined_path(name, folder, root)
        launch = build_launch(args, folder, trace=False)
        requests = tuple(dump_requests(args))
        check_dumps(requests, launch.device_memory)
        if writers:
            from ..emu.compare import run_with_writers
            report, record = run_with_writers(program, launch, cancel=cancel)
        else:
            from ..emu.api import run
            report, record = run(program, launch, cancel=cancel), None
    except (LaunchFlagError, LaunchError, ValueError) as err:
        return _failed(str(err))
    except MemoryError:
        return _failed("not enough memory for this launch")
    if report.errors:
        return RunOutput([], 1, f"Error: {describe_error(report.errors[0])}", report, requests,
                         record)
    stderr = _warning_line(report.warnings[0]) if report.warnings else ""
    return RunOutput(_stdout(args, requests, report), 0, stderr, report, requests, record)


def dump_address(requests: Sequence[DumpRequest], index: int, expected: str | None,
                 got: str | None) -> tuple[int, int] | None:
    """`(address, bytes)` of device memory that output line `index` shows (the first differing
    byte of a `--dump-memory` row, where the expected row can be read), or None for a line that
    shows no device memory (a header, registers, statistics)."""
    line = 0
    for r in requests:
        if r.kind == "memory":
            rows = -(-r.count // 16)
            if index == line:
                return None                       # "Device memory 0x...-0x...:"
            if index <= line + rows:
                base = r.start + 16 * (index - line - 1)
                return base + _first_byte(expected, got), 1
            line += 1 + rows
            continue
        width = 4 if r.kind in ("u32", "f32") else 2
        if index < line + r.count:
            return r.start + width * (index - line), width
        line += r.count
    return None


def _cells(row: str | None) -> list[str]:
    if not row or ": " not in row:
        return []
    return row.split(": ", 1)[1].split("|", 1)[0].split()


def _first_byte(expected: str | None, got: str | None) -> int:
    want, have = _cells(expected), _cells(got)
    for i, (a, b) in enumerate(zip(want, have)):
        if a != b:
            return i
    return min(len(want), len(have)) if want and have else 0
