"""Every flag of `wave-lsp run` (the table's: the launch flags of `flags` plus `--json`,
`--wave-widths`, `--compat`, `--device`, `--compare` and the profile flags), and a flag list
turned into what to run and print: `parse_run_flags(tokens, base_dir) -> RunRequest` (the
`Launch`, the `RunOptions`, the dump requests, the output choices and the profile's) and
`program_for(program, request.compat)` (`--compat wave-asm` source assembled as wave-asm does),
so an editor or a kernel test can reproduce `wave-lsp run FILE FLAGS` exactly without the
command line module (the text it prints: `output.command_text`).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .flag_words import parse_flag_words
from .flags import (DumpRequest, LaunchFlagError, _RaisingParser, build_launch, build_options,
                    check_dumps, dump_requests)
from .profile_text import check_profile_flags
from .table import add_flags

if TYPE_CHECKING:
    from ..emu import Launch, RunOptions

# flags a GPU run cannot honour: (namespace attribute, flag)
EMULATOR_ONLY = (("stats", "--stats"), ("trace", "--trace"), ("trace_lines", "--trace-lines"),
                 ("mem_trace", "--mem-trace"), ("breaks", "--break"),
                 ("dump_regs", "--dump-regs"), ("wave_widths", "--wave-widths"),
                 ("time_limit", "--time-limit"))


class RunRequest:
    """What `wave-lsp run FILE FLAGS` runs and prints (a plain class, not a dataclass: it is
    made once per command, and defining a dataclass costs start-up time)."""

    __slots__ = ("launch", "options", "dumps", "stats", "dump_regs", "json", "wave_widths",
                 "compat", "device", "compare", "device_problem", "profile", "profile_target",
                 "profile_lines", "started")

    def __init__(self, launch: Launch, options: RunOptions, dumps: tuple[DumpRequest, ...] = (),
                 stats: bool = False, dump_regs: bool = False, json: bool = False,
                 wave_widths: str | None = None, compat: bool = False,
                 device: str = "emulator", compare: bool = False,
                 device_problem: str | None = None, profile: bool = False,
                 profile_target: str | None = None, profile_lines: int = 30) -> None:
        self.launch = launch
        self.options = options
        self.dumps = dumps                  # --dump-* regions, in upstream's print order
        self.stats = stats                  # --stats
        self.dump_regs = dump_regs          # --dump-regs
        self.json = json                    # --json
        self.wave_widths = wave_widths      # --wave-widths W1,W2,... | targets
        self.compat = compat                # --compat wave-asm
        self.device = device                # --device
        self.compare = compare              # --compare
        self.device_problem = device_problem  # a usage error of --device/--compare
        self.profile = profile              # --profile (or --profile-target)
        self.profile_target = profile_target  # --profile-target
        self.profile_lines = profile_lines  # --profile-lines
        self.started = time.monotonic()     # the profile's counting shares --time-limit

    def __repr__(self) -> str:
        return "RunRequest(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) \
            + ")"


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
    lane = getattr(options.trace_filter, "lane", None)
    if lane is not None and lane >= launch.wave_width:
        raise LaunchFlagError(f"--trace-lane: lane {lane} is not in a wave of "
                              f"{launch.wave_width} lanes (0..{launch.wave_width - 1})",
                              "--trace-lane")
    dumps = tuple(dump_requests(args))
    check_dumps(dumps, launch.device_memory)
    profile = check_profile_flags(args) if hasattr(args, "profile") else False
    if profile:
        options = replace(options, profile=True)
    return RunRequest(launch, options, dumps, bool(args.stats), bool(args.dump_regs),
                      bool(getattr(args, "json", False)), getattr(args, "wave_widths", None),
                      bool(getattr(args, "compat", None)),
                      getattr(args, "device", "emulator"), bool(getattr(args, "compare", False)),
                      device_problem(args), profile, getattr(args, "profile_target", None),
                      getattr(args, "profile_lines", 30))


def run_parser() -> argparse.ArgumentParser:
    """A parser of `wave-lsp run`'s flags (no FILE), raising `LaunchFlagError` on any error."""
    p = _RaisingParser(prog="wave-lsp run", add_help=False, allow_abbrev=False)
    add_flags(p)
    return p


def parse_run_flags(tokens: Sequence[str], base_dir: Path | None = None) -> RunRequest:
    """`wave-lsp run FILE TOKENS` as a `RunRequest` (see `run_request`)."""
    return run_request(parse_flag_words(run_parser(), tokens), base_dir)


class LaunchRequest:
    """A launch line's flags parsed once, by the parser of `wave-lsp run` (`run_parser`): its
    words as the command takes them (the editor's `--lanes` taken out), argparse's namespace
    of them and the `--lanes` text. The editor's inline run and a kernel test both start from
    it. The namespace is not changed: `args()` gives a copy to work on. Two requests of the
    same words are equal."""

    __slots__ = ("words", "_parsed", "lanes")

    def __init__(self, words: Sequence[str], parsed: argparse.Namespace,
                 lanes: str | None = None) -> None:
        self.words = tuple(words)
        self._parsed = parsed
        self.lanes = lanes

    def args(self, **changes) -> argparse.Namespace:
        """A copy of the parsed flags (lists copied too) with `changes` set."""
        fields = {k: list(v) if isinstance(v, list) else v for k, v in vars(self._parsed).items()}
        fields.update(changes)
        return argparse.Namespace(**fields)

    def extended(self, words: Sequence[str], **changes) -> LaunchRequest:
        """The request of these words followed by `words`, whose parse is `changes` (the
        caller's promise: no second parse)."""
        return LaunchRequest(self.words + tuple(words), self.args(**changes), self.lanes)

    def __eq__(self, other) -> bool:
        return isinstance(other, LaunchRequest) and (self.words, self.lanes) == \
            (other.words, other.lanes)

    def __hash__(self) -> int:
        return hash((self.words, self.lanes))

    def __repr__(self) -> str:
        return f"LaunchRequest({list(self.words)!r}, lanes={self.lanes!r})"


def parse_request(words: Sequence[str], lanes: str | None = None) -> LaunchRequest:
    """`words` parsed as `wave-lsp run`'s flags (`LaunchFlagError` when they do not parse), by
    one parser made once (a parse changes nothing in it: argparse copies an appending flag's
    list before it appends)."""
    return LaunchRequest(words, parse_flag_words(_shared_parser(), words), lanes)


@lru_cache(maxsize=1)
def _shared_parser() -> argparse.ArgumentParser:
    return run_parser()


def program_for(program, compat: bool):
    """The program a request runs: `program` (`pipeline.load_program`'s source or `.wbin`),
    or with `--compat wave-asm` (`RunRequest.compat`) the source assembled as wave-asm does,
    defects included (`LaunchError` when it does not assemble)."""
    if isinstance(program, (bytes, bytearray)) or not compat:
        return program
    from ..asm import AssemblyError, assemble
    from ..emu import LaunchError
    try:
        return assemble(program, compat=True)
    except AssemblyError as err:
        raise LaunchError(f"the program does not assemble: {err}") from None
