"""The launch flags of `wave-lsp run` (upstream `wave-emu`'s, plus ours; defined in `table`),
turned into what runs.

The command line, a `; wave-lsp run: FLAGS` launch line in a source file and the debugger's
`args` all go through `build_launch()` (what runs: a `Launch`) and `build_options()` (how: the
`RunOptions` the flags set, with the trace filters and breakpoints of `trace_filter()` and
`breakpoint_of()`); `request` adds the rest of `wave-lsp run`'s. Errors raise
`LaunchFlagError`, which names the flag at fault so an editor can underline it.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..files import read_regular
from .flag_words import parse_flag_words
from .table import DUMP_KINDS, add_flags
from ..isa import MAX_REGISTER_COUNT
from ..isa.launch_defaults import RACECHECKS
from ..emu import (MAX_DEVICE_MEMORY, MAX_GRID_WORKGROUPS, MAX_LOCAL_MEMORY, MAX_WAVE_WIDTH,
                   MAX_WORKGROUP_THREADS)

if TYPE_CHECKING:
    from ..emu import Breakpoint, Launch, RunOptions, TraceFilter



class LaunchFlagError(ValueError):
    """A flag that cannot be parsed or a value that is not valid; `flag` is its name (`--grid`)
    where one flag is at fault, else None."""

    def __init__(self, message: str, flag: str | None = None) -> None:
        super().__init__(message)
        self.flag = flag


class _RaisingParser(argparse.ArgumentParser):
    """argparse that raises `LaunchFlagError` instead of printing and exiting."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        flag = next((word.strip("'\",:") for word in message.split()
                     if word.strip("'\",:").startswith("-")), None)
        raise LaunchFlagError(message, flag)


def add_launch_flags(p: argparse.ArgumentParser) -> None:
    """Add every launch flag (the table's "launch" group; not the FILE argument) to `p`."""
    add_flags(p, ("launch",))


def launch_parser() -> argparse.ArgumentParser:
    """A parser of launch flags alone, raising `LaunchFlagError` on any error."""
    p = _RaisingParser(prog="wave-lsp run", add_help=False, allow_abbrev=False)
    add_launch_flags(p)
    return p


def parse_launch_flags(tokens: Sequence[str]) -> argparse.Namespace:
    """Parse a list of flag tokens (no FILE) into argparse's namespace."""
    return parse_flag_words(launch_parser(), tokens)


def number(text: str, flag: str | None = None) -> int:
    """A decimal or 0x-hex integer, optionally negative."""
    text = text.strip()
    negative = text.startswith("-")
    body = text[1:] if negative else text
    try:
        value = int(body[2:], 16) if body[:2] in ("0x", "0X") else int(body, 10)
    except ValueError:
        raise LaunchFlagError(f"{flag or 'value'}: '{text}' is not an integer", flag) from None
    return -value if negative else value


def triple(text: str, flag: str | None = None) -> tuple[int, int, int]:
    parts = [number(p, flag) for p in text.split(",")]
    if len(parts) != 3:
        raise LaunchFlagError(f"{flag or 'value'}: expected X,Y,Z, got '{text}'", flag)
    return parts[0], parts[1], parts[2]


def pair(text: str, flag: str | None = None) -> tuple[int, int]:
    a, sep, b = text.partition(":")
    if not sep:
        raise LaunchFlagError(f"{flag or 'value'}: expected A:B, got '{text}'", flag)
    return number(a, flag), number(b, flag)


@dataclass(frozen=True)
class DumpRequest:
    """One `--dump-*` region: `kind` is "memory" (START:END hex dump) or one of DUMP_KINDS
    (OFFSET:COUNT values)."""

    kind: str
    start: int
    count: int   # values for DUMP_KINDS, bytes (END - START) for "memory"


def dump_requests(args: argparse.Namespace) -> list[DumpRequest]:
    """The dump regions asked for, in upstream's print order (memory first, then by kind)."""
    out = []
    if args.dump_memory:
        start, end = pair(args.dump_memory, "--dump-memory")
        if start < 0 or end <= start:
            raise LaunchFlagError(f"--dump-memory: END must be greater than START, got "
                                  f"'{args.dump_memory}'", "--dump-memory")
        out.append(DumpRequest("memory", start, end - start))
    for kind in DUMP_KINDS:
        spec = getattr(args, f"dump_{kind.replace('-', '_')}")
        if spec:
            offset, count = pair(spec, f"--dump-{kind}")
            if offset < 0 or count < 0:
                raise LaunchFlagError(f"--dump-{kind}: OFFSET and COUNT must not be negative, "
                                      f"got '{spec}'", f"--dump-{kind}")
            out.append(DumpRequest(kind, offset, count))
    return out


def check_dumps(requests: Sequence[DumpRequest], device_memory: int) -> None:
    """Every dump lies inside device memory of `device_memory` bytes (checked before the run)."""
    for r in requests:
        width = 1 if r.kind == "memory" else 4 if r.kind in ("u32", "f32") else 2
        end = r.start + width * r.count
        if end > device_memory:
            flag = "--dump-memory" if r.kind == "memory" else f"--dump-{r.kind}"
            raise LaunchFlagError(f"memory access out of bounds: address 0x{end:016x} ({flag} "
                                  f"reaches byte {end}, device memory is {device_memory} bytes)",
                                  flag)


def _bounded(value: int, low: int, high: int, flag: str, what: str) -> int:
    if not low <= value <= high:
        raise LaunchFlagError(f"{flag}: {what} must be {low}..{high}, got {value}", flag)
    return value


def _sizes(text: str, flag: str, limit: int) -> tuple[int, int, int]:
    x, y, z = triple(text, flag)
    for v in (x, y, z):
        _bounded(v, 1, limit, flag, "each size")
    if x * y * z > limit:
        raise LaunchFlagError(f"{flag}: {x}x{y}x{z} = {x * y * z} is more than {limit}", flag)
    return x, y, z


FILL_TYPES = {"--fill-iota": ("f32",), "--fill-zero": ("u32", "i32", "f32")}


def _fill_type(text: str, flag: str) -> None:
    if text.strip() not in FILL_TYPES[flag]:
        raise LaunchFlagError(f"{flag}: TYPE must be {' or '.join(FILL_TYPES[flag])} "
                              f"(it writes 4-byte values), got '{text}'", flag)


def _limits(args: argparse.Namespace) -> tuple[int, float | None]:
    """--max-instructions (>= 0, 0 = unlimited) and --time-limit (finite, > 0)."""
    max_instructions = number(args.max_instructions, "--max-instructions")
    if max_instructions < 0:
        raise LaunchFlagError(f"--max-instructions: must be 0 (unlimited) or positive, got "
                              f"{max_instructions}", "--max-instructions")
    limit = args.time_limit
    if limit is not None and not (math.isfinite(limit) and 0 < limit <= MAX_TIME_LIMIT):
        raise LaunchFlagError(f"--time-limit: must be a number of seconds in (0, "
                              f"{MAX_TIME_LIMIT}], got {limit}", "--time-limit")
    return max_instructions, limit


MAX_TIME_LIMIT = 7 * 24 * 3600.0


def arg_spec(text: str) -> tuple[int, str]:
    """An `--arg OFFSET:FILE` value as (offset, file name); the file is not touched."""
    offset, sep, name = text.partition(":")
    if not sep or not name:
        raise LaunchFlagError(f"--arg expects OFFSET:FILE, got '{text}'", "--arg")
    return _bounded(number(offset, "--arg"), 0, MAX_DEVICE_MEMORY, "--arg", "OFFSET"), name


def build_launch(args: argparse.Namespace, base_dir: Path | None = None, **overrides) -> Launch:
    """The `Launch` for parsed flags. `--arg` files are read relative to `base_dir` (default: the
    working folder). `overrides` replace Launch fields (e.g. the kernel)."""
    from ..emu import DataFill, IotaFill, Launch, ZeroFill   # numpy: not for --help
    zero, iota, data = [], [], []
    for text in args.fill_zero:
        parts = text.split(":")
        if len(parts) != 3:
            raise LaunchFlagError(f"--fill-zero expects OFFSET:TYPE:COUNT, got '{text}'",
                                  "--fill-zero")
        _fill_type(parts[1], "--fill-zero")
        zero.append(ZeroFill(_bounded(number(parts[0], "--fill-zero"), 0, MAX_DEVICE_MEMORY,
                                      "--fill-zero", "OFFSET"),
                             _bounded(number(parts[2], "--fill-zero"), 0, MAX_DEVICE_MEMORY,
                                      "--fill-zero", "COUNT")))
    for text in args.fill_iota:
        parts = text.split(":")
        if len(parts) not in (3, 4):
            raise LaunchFlagError(f"--fill-iota expects OFFSET:TYPE:COUNT[:SCALE], got '{text}'",
                                  "--fill-iota")
        _fill_type(parts[1], "--fill-iota")
        try:
            scale = float(parts[3]) if len(parts) == 4 else 1.0
        except ValueError:
            raise LaunchFlagError(f"--fill-iota: '{parts[3]}' is not a number",
                                  "--fill-iota") from None
        iota.append(IotaFill(_bounded(number(parts[0], "--fill-iota"), 0, MAX_DEVICE_MEMORY,
                                      "--fill-iota", "OFFSET"),
                             _bounded(number(parts[2], "--fill-iota"), 0, MAX_DEVICE_MEMORY,
                                      "--fill-iota", "COUNT"), scale))
    read: dict[Path, bytes] = {}          # a file named several times is read once
    for text in args.arg:
        offset, name = arg_spec(text)
        path = Path(name)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        if path not in read:
            try:
                read[path] = read_regular(path)  # a FIFO or /dev/zero is refused, not read
            except OSError as err:
                raise LaunchFlagError(f"cannot read '{name}': {err.strerror or err}",
                                      "--arg") from None
        data.append(DataFill(offset, read[path]))
    regs = {}
    for text in args.set_reg:
        reg, sep, value = text.partition(":")
        if not sep:
            raise LaunchFlagError(f"--set-reg expects REG:VALUE, got '{text}'", "--set-reg")
        reg = reg.strip()
        index = _bounded(number(reg[1:] if reg[:1] in "rR" else reg, "--set-reg"), 0,
                         MAX_REGISTER_COUNT - 1, "--set-reg", "the register")
        regs[index] = _bounded(number(value, "--set-reg"), -(1 << 31), (1 << 32) - 1,
                               "--set-reg", "the value (32 bits)") & 0xFFFFFFFF
    fields = dict(
        grid=_sizes(args.grid, "--grid", MAX_GRID_WORKGROUPS),
        workgroup=_sizes(args.workgroup, "--workgroup", MAX_WORKGROUP_THREADS),
        wave_width=_bounded(number(args.wave_width, "--wave-width"), 1, MAX_WAVE_WIDTH,
                            "--wave-width", "the wave width"),
        registers=_bounded(number(args.registers, "--registers"), 1, MAX_REGISTER_COUNT,
                           "--registers", "the register count"),
        local_memory=_bounded(number(args.local_memory, "--local-memory"), 0, MAX_LOCAL_MEMORY,
                              "--local-memory", "the size"),
        device_memory=_bounded(number(args.device_memory, "--device-memory"), 0,
                               MAX_DEVICE_MEMORY, "--device-memory", "the size"),
        kernel=args.kernel, memory_init=zero + iota + data, set_regs=regs, metadata_first=True,
        register_threads=(0,) if args.dump_regs else ())
    fields.update(overrides)
    return Launch(**fields)


def build_options(args: argparse.Namespace, **overrides) -> RunOptions:
    """The `RunOptions` of parsed flags (limits, trace, memory trace, trace filters,
    breakpoints, the uninitialised-read check); `overrides` replace fields (e.g. recording
    options). An editor runs `build_options(args).unobserved()`."""
    from ..emu import RunOptions
    max_instructions, time_limit = _limits(args)
    fields = dict(
        max_instructions=max_instructions, time_limit=time_limit,
        trace=True if getattr(args, "trace_lines", False) else "upstream" if args.trace else False,
        initcheck=not getattr(args, "no_initcheck", False),
        racecheck=getattr(args, "racecheck", None) or RACECHECKS[0],
        mem_trace=bool(getattr(args, "mem_trace", False)),
        trace_filter=trace_filter(getattr(args, "trace_wave", None),
                                  getattr(args, "trace_lane", None),
                                  getattr(args, "trace_pc", None)),
        breakpoints=tuple(breakpoint_of(text) for text in getattr(args, "breaks", [])))
    if fields["trace_filter"] is not None and not (fields["trace"] or fields["mem_trace"]):
        flag = next(f for f in ("--trace-wave", "--trace-lane", "--trace-pc")
                    if getattr(args, f[2:].replace("-", "_"), None) is not None)
        raise LaunchFlagError(f"{flag} filters --trace, --trace-lines and --mem-trace: give "
                              "one of them", flag)
    fields.update(overrides)
    return RunOptions(**fields)


def _index(text: str, flag: str, high: int, what: str, low: int = 0) -> int:
    value = number(text, flag)
    if not low <= value <= high:
        raise LaunchFlagError(f"{flag}: {what} must be {low}..{high}, got {value}", flag)
    return value


MAX_PC = (1 << 32) - 1


def trace_filter(wave: str | None, lane: str | None, pcs: str | None) -> TraceFilter | None:
    from ..emu import TraceFilter
    """The filter of the flags' texts (None where no filter flag was given)."""
    if wave is None and lane is None and pcs is None:
        return None
    start, end = 0, None
    if pcs is not None:
        low, sep, high = pcs.partition(":")
        if not sep:
            raise LaunchFlagError(f"--trace-pc: expected START:END (byte offsets, END "
                                  f"exclusive), got '{pcs}'", "--trace-pc")
        start = _index(low, "--trace-pc", MAX_PC, "START") if low.strip() else 0
        end = _index(high, "--trace-pc", MAX_PC, "END") if high.strip() else None
        if end is not None and end <= start:
            raise LaunchFlagError(f"--trace-pc: END must be greater than START (END is "
                                  f"exclusive), got '{pcs}'", "--trace-pc")
    return TraceFilter(
        wave=None if wave is None else _index(wave, "--trace-wave", MAX_WAVE_WIDTH * 1024,
                                              "the wave"),
        lane=None if lane is None else _index(lane, "--trace-lane", MAX_WAVE_WIDTH - 1,
                                              "the lane"),
        pc_start=start, pc_end=end)


def breakpoint_of(text: str) -> Breakpoint:
    from ..emu import Breakpoint
    """A `--break` value: `PC` (decimal or 0x-hex byte offset) or `line:N`."""
    word = text.strip()
    if word.lower().startswith("line:"):
        return Breakpoint(line=_index(word[5:], "--break", 1 << 24, "the line", 1))
    if not word or not (word[0].isdigit()):
        raise LaunchFlagError(f"--break: expected a pc (e.g. 0x10) or line:N, got '{text}'",
                              "--break")
    return Breakpoint(pc=_index(word, "--break", MAX_PC, "the pc"))
