"""Every flag of `wave-lsp run` (the launch flags of `launch_flags` plus `--json`,
`--wave-widths`, `--compat`, `--device` and `--compare`), and a flag list turned into what to
run and print: `parse_run_flags(tokens, base_dir) -> RunRequest` (the `Launch`, the
`RunOptions`, the dump requests and the output choices), so an editor or a kernel test can
reproduce `wave-lsp run FILE FLAGS` exactly without the command line module.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .launch_flags import (DumpRequest, LaunchFlagError, _RaisingParser, add_launch_flags,
                           build_launch, build_options, check_dumps, dump_requests)

if TYPE_CHECKING:
    from .launch import Launch
    from .options import RunOptions

DEVICES = ("emulator", "cuda")
# flags a GPU run cannot honour: (namespace attribute, flag)
EMULATOR_ONLY = (("stats", "--stats"), ("trace", "--trace"), ("trace_lines", "--trace-lines"),
                 ("dump_regs", "--dump-regs"), ("wave_widths", "--wave-widths"),
                 ("time_limit", "--time-limit"))


def add_run_flags(p: argparse.ArgumentParser) -> None:
    """Add every flag of `wave-lsp run` (not the FILE argument) to `p`."""
    add_launch_flags(p)
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.add_argument("--wave-widths", metavar="W1,W2,...",
                   help="run at each wave width (or 'targets': the configured targets' "
                        "widths) and report the memory that differs")
    p.add_argument("--compat", choices=("wave-asm",),
                   help="assemble source exactly as wave-asm does, defects included")
    p.add_argument("--device", choices=DEVICES, default="emulator",
                   help="where to run: the emulator (default) or a CUDA GPU (needs CuPy)")
    p.add_argument("--compare", action="store_true",
                   help="with --device cuda: run the emulator too and report the first word "
                        "of device memory that differs, with the store line that wrote it")


@dataclass(frozen=True)
class RunRequest:
    """What `wave-lsp run FILE FLAGS` runs and prints."""

    launch: Launch
    options: RunOptions
    dumps: tuple[DumpRequest, ...] = ()
    stats: bool = False             # --stats
    dump_regs: bool = False         # --dump-regs
    json: bool = False              # --json
    wave_widths: str | None = None  # --wave-widths W1,W2,... | targets
    compat: bool = False            # --compat wave-asm
    device: str = "emulator"        # --device
    compare: bool = False           # --compare
    device_problem: str | None = None   # a usage error of --device/--compare (`device_problem`)


def device_problem(args: argparse.Namespace) -> str | None:
    """Why the device flags cannot run as given (checked before anything runs), or None."""
    device = getattr(args, "device", "emulator")
    if getattr(args, "compare", False) and device != "cuda":
        return "--compare compares a GPU run with the emulator: it needs --device cuda"
    if device == "emulator":
        return None
    for name, flag in EMULATOR_ONLY:
        if getattr(args, name, None):
            return f"{flag} is the emulator's: it cannot be used with --device {device}"
    return None


def run_request(args: argparse.Namespace, base_dir: Path | None = None) -> RunRequest:
    """The `RunRequest` of parsed `wave-lsp run` flags (`LaunchFlagError` for a bad value;
    `--arg` files read relative to `base_dir`, default the working folder). Dumps are checked
    against the device memory."""
    launch = build_launch(args, base_dir)
    options = build_options(args)
    dumps = tuple(dump_requests(args))
    check_dumps(dumps, launch.device_memory)
    return RunRequest(launch, options, dumps, bool(args.stats), bool(args.dump_regs),
                      bool(getattr(args, "json", False)), getattr(args, "wave_widths", None),
                      bool(getattr(args, "compat", None)),
                      getattr(args, "device", "emulator"), bool(getattr(args, "compare", False)),
                      device_problem(args))


def run_parser() -> argparse.ArgumentParser:
    """A parser of `wave-lsp run`'s flags (no FILE), raising `LaunchFlagError` on any error."""
    p = _RaisingParser(prog="wave-lsp run", add_help=False, allow_abbrev=False)
    add_run_flags(p)
    return p


def parse_run_flags(tokens: Sequence[str], base_dir: Path | None = None) -> RunRequest:
    """`wave-lsp run FILE TOKENS` as a `RunRequest` (see `run_request`)."""
    return run_request(run_parser().parse_args(list(tokens)), base_dir)
