"""The launch flags of `wave-lsp run` (upstream `wave-emu`'s, plus ours), parsed in one place.

The command line, a `; wave-lsp run: FLAGS` launch line in a source file and the debugger's
`args` all go through `launch_parser()` and `build_launch()`, so they accept exactly the same
flags. Errors raise `LaunchFlagError`, which names the flag at fault so an editor can underline it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .launch import DataFill, IotaFill, Launch, ZeroFill

DUMP_KINDS = ("u32", "f32", "f16", "bf16")


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
    """Add every launch flag (not the FILE argument) to `p`."""
    p.add_argument("--grid", default="1,1,1", help="workgroups per dimension X,Y,Z")
    p.add_argument("--workgroup", default="32,1,1",
                   help="threads per workgroup X,Y,Z (the kernel's metadata wins)")
    p.add_argument("--wave-width", default="32", help="lanes per wave (1-64)")
    p.add_argument("--registers", default="32", help="registers per thread (metadata wins)")
    p.add_argument("--local-memory", default="16384",
                   help="local memory bytes per workgroup (metadata wins)")
    p.add_argument("--device-memory", default="1048576", help="device memory bytes")
    p.add_argument("--arg", action="append", default=[], metavar="OFFSET:FILE",
                   help="copy a file into device memory (repeatable)")
    p.add_argument("--fill-iota", action="append", default=[],
                   metavar="OFFSET:TYPE:COUNT[:SCALE]", help="write f32 values i*SCALE")
    p.add_argument("--fill-zero", action="append", default=[], metavar="OFFSET:TYPE:COUNT",
                   help="write COUNT*4 zero bytes")
    p.add_argument("--set-reg", action="append", default=[], metavar="REG:VALUE",
                   help="initial register value in every thread (repeatable)")
    p.add_argument("--max-instructions", default="10000000",
                   help="wave-instructions per workgroup (0 = unlimited)")
    p.add_argument("--dump-memory", metavar="START:END", help="hex dump of device memory")
    for kind in DUMP_KINDS:
        p.add_argument(f"--dump-{kind}", metavar="OFFSET:COUNT",
                       help=f"print COUNT {kind} values from device memory")
    p.add_argument("--stats", action="store_true", help="print execution statistics")
    p.add_argument("--trace", action="store_true", help="trace every instruction to stderr")
    p.add_argument("--dump-regs", action="store_true", help="print thread 0's registers")
    p.add_argument("--kernel", metavar="NAME", help="kernel to run (default: the first)")
    p.add_argument("--time-limit", type=float, metavar="SECONDS", help="wall-time limit")


def launch_parser() -> argparse.ArgumentParser:
    """A parser of launch flags alone, raising `LaunchFlagError` on any error."""
    p = _RaisingParser(prog="wave-lsp run", add_help=False, allow_abbrev=False)
    add_launch_flags(p)
    return p


def parse_launch_flags(tokens: Sequence[str]) -> argparse.Namespace:
    """Parse a list of flag tokens (no FILE) into argparse's namespace."""
    return launch_parser().parse_args(list(tokens))


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
        out.append(DumpRequest("memory", start, end - start))
    for kind in DUMP_KINDS:
        spec = getattr(args, f"dump_{kind.replace('-', '_')}")
        if spec:
            offset, count = pair(spec, f"--dump-{kind}")
            out.append(DumpRequest(kind, offset, count))
    return out


def build_launch(args: argparse.Namespace, base_dir: Path | None = None, **overrides) -> Launch:
    """The `Launch` for parsed flags. `--arg` files are read relative to `base_dir` (default: the
    working folder). `overrides` replace Launch fields (e.g. recording options)."""
    zero, iota, data = [], [], []
    for text in args.fill_zero:
        parts = text.split(":")
        if len(parts) != 3:
            raise LaunchFlagError(f"--fill-zero expects OFFSET:TYPE:COUNT, got '{text}'",
                                  "--fill-zero")
        zero.append(ZeroFill(number(parts[0], "--fill-zero"), number(parts[2], "--fill-zero")))
    for text in args.fill_iota:
        parts = text.split(":")
        if len(parts) not in (3, 4):
            raise LaunchFlagError(f"--fill-iota expects OFFSET:TYPE:COUNT[:SCALE], got '{text}'",
                                  "--fill-iota")
        try:
            scale = float(parts[3]) if len(parts) == 4 else 1.0
        except ValueError:
            raise LaunchFlagError(f"--fill-iota: '{parts[3]}' is not a number",
                                  "--fill-iota") from None
        iota.append(IotaFill(number(parts[0], "--fill-iota"), number(parts[2], "--fill-iota"),
                             scale))
    for text in args.arg:
        offset, sep, name = text.partition(":")
        if not sep:
            raise LaunchFlagError(f"--arg expects OFFSET:FILE, got '{text}'", "--arg")
        path = Path(name)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        try:
            content = path.read_bytes()
        except OSError as err:
            raise LaunchFlagError(f"cannot read '{name}': {err.strerror or err}", "--arg") from None
        data.append(DataFill(number(offset, "--arg"), content))
    regs = {}
    for text in args.set_reg:
        reg, sep, value = text.partition(":")
        if not sep:
            raise LaunchFlagError(f"--set-reg expects REG:VALUE, got '{text}'", "--set-reg")
        reg = reg.strip()
        regs[number(reg[1:] if reg[:1] in "rR" else reg, "--set-reg")] = \
            number(value, "--set-reg") & 0xFFFFFFFF
    fields = dict(
        grid=triple(args.grid, "--grid"), workgroup=triple(args.workgroup, "--workgroup"),
        wave_width=number(args.wave_width, "--wave-width"),
        registers=number(args.registers, "--registers"),
        local_memory=number(args.local_memory, "--local-memory"),
        device_memory=number(args.device_memory, "--device-memory"),
        kernel=args.kernel, memory_init=zero + iota + data, set_regs=regs,
        max_instructions=number(args.max_instructions, "--max-instructions"),
        time_limit=args.time_limit, metadata_first=True, trace=bool(args.trace),
        register_threads=(0,) if args.dump_regs else ())
    fields.update(overrides)
    return Launch(**fields)
