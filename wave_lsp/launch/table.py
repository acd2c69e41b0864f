"""Every flag of `wave-lsp run`, in one table: its name, how argparse reads it, its help, and
where it applies. The command line's parser, a launch line's (`; wave-lsp run: FLAGS`), a kernel
test's and the debugger's `args` are all built from `FLAGS` (`add_flags`), so a flag added here
is accepted everywhere at once.

`group` says what a flag is about: "launch" (what runs and how: the `Launch` and `RunOptions`
of `flags.build_launch`/`build_options`, the dumps; the debugger takes these), "run" (the
command's other choices: `--json`, `--wave-widths`, `--compat`, `--device`, `--compare`) and
"profile" (the profile table after the output). `editor` says what an inline run in the editor
does with it: "runs" (it shapes the run), "ignored" (accepted; the inline run, which shows
values in the source, leaves it out: traces, `--stats`, `--json`, the profile flags — the editor
profiles a kernel with its Profile lens —, a GPU or several wave widths) or "only" (`--lanes`,
the editor's choice of the threads it shows: not a flag of `wave-lsp run`). `test_only` marks
`--tolerance`, which only `wave-lsp test` reads (the run ignores it).
"""

from __future__ import annotations

import argparse
from collections import namedtuple

from ..isa.launch_defaults import RACECHECKS
from ..isa.profile_presets import PROFILE_TARGETS
from ..syntax.tool_comments import SET_REG

DUMP_KINDS = ("u32", "f32", "f16", "bf16")
DEVICES = ("emulator", "cuda")
LANES_FLAG = "--lanes"
RUN_GROUPS = ("launch", "run", "profile")     # the flags of `wave-lsp run`


class Flag(namedtuple("Flag", "name help argparse group editor test_only")):
    """One flag: `argparse` is the keyword arguments of `add_argument` (action, default,
    metavar, type, choices, dest). (A named tuple, not a dataclass: `wave-lsp run --help`
    loads this table, and the dataclasses module alone costs it a sixth of its start-up.)"""

    __slots__ = ()

    @property
    def takes_value(self) -> bool:
        return self.argparse.get("action") not in ("store_true",)


def _flag(name: str, help: str, group: str = "launch", editor: str = "runs",
          test_only: bool = False, **kwargs) -> Flag:
    return Flag(name, help, kwargs, group, editor, test_only)


_TRACE_FILTER = "(upstream has no trace filters)"

FLAGS: tuple[Flag, ...] = (
    _flag("--grid", "workgroups per dimension X,Y,Z", default="1,1,1"),
    _flag("--workgroup", "threads per workgroup X,Y,Z (the kernel's metadata wins)",
          default="32,1,1"),
    _flag("--wave-width", "lanes per wave (1-64)", default="32"),
    _flag("--registers", "registers per thread (metadata wins)", default="32"),
    _flag("--local-memory", "local memory bytes per workgroup (metadata wins)",
          default="16384"),
    _flag("--device-memory", "device memory bytes", default="1048576"),
    _flag("--arg", "copy a file into device memory (repeatable)", action="append", default=[],
          metavar="OFFSET:FILE"),
    _flag("--fill-iota", "write f32 values i*SCALE", action="append", default=[],
          metavar="OFFSET:TYPE:COUNT[:SCALE]"),
    _flag("--fill-zero", "write COUNT*4 zero bytes", action="append", default=[],
          metavar="OFFSET:TYPE:COUNT"),
    _flag(SET_REG, "initial register value in every thread (repeatable)", action="append",
          default=[], metavar="REG:VALUE"),
    _flag("--max-instructions", "wave-instructions for the whole launch (0 = unlimited)",
          default="10000000"),
    _flag("--dump-memory", "hex dump of device memory", metavar="START:END"),
    *(_flag(f"--dump-{kind}", f"print COUNT {kind} values from device memory",
            metavar="OFFSET:COUNT") for kind in DUMP_KINDS),
    _flag("--stats", "print execution statistics (upstream wave-emu's counts: a wave stepping "
          "through a region with no active lane counts; --profile counts only waves with an "
          "active lane, as a GPU issues them)", editor="ignored", action="store_true"),
    _flag("--trace", "trace every wave-instruction to stderr (upstream's format)",
          editor="ignored", action="store_true"),
    _flag("--trace-lines", "trace with source lines and active masks (`; line L mask=0x...`)",
          editor="ignored", action="store_true"),
    _flag("--mem-trace", "log every load, store and atomic of every lane to stderr: step, "
          "workgroup, wave, lane, pc, line, address, size, value (upstream has no --mem-trace)",
          editor="ignored", action="store_true"),
    _flag("--trace-wave", "--trace/--trace-lines/--mem-trace: only wave N of each workgroup "
          + _TRACE_FILTER, editor="ignored", metavar="N"),
    _flag("--trace-lane", "--trace/--trace-lines: only instructions lane N executed; "
          "--mem-trace: only lane N's accesses", editor="ignored", metavar="N"),
    _flag("--trace-pc", "--trace/--trace-lines/--mem-trace: only pcs START <= pc < END (byte "
          "offsets, decimal or 0x-hex; either side may be left out)", editor="ignored",
          metavar="START:END"),
    _flag("--break", "stop before the instruction at byte offset PC or the first one of source "
          "line N (repeatable): print the wave's registers for every lane; at a terminal wait "
          "for c(ontinue), s(tep) or q(uit) (upstream has no --break)", editor="ignored",
          action="append", default=[], dest="breaks", metavar="PC|line:N"),
    _flag("--dump-regs", "print thread 0's registers", editor="ignored", action="store_true"),
    _flag("--kernel", "kernel to run (default: the first)", metavar="NAME"),
    _flag("--time-limit", "wall-time limit (a positive number of seconds)", type=float,
          metavar="SECONDS"),
    _flag("--no-initcheck", "do not report reads of registers and memory nothing initialised",
          action="store_true"),
    _flag("--racecheck", "data races between the waves of a workgroup: 'benign' (default, as "
          "compute-sanitizer's racecheck: atomics are not checked, and waves that all store one "
          "same value to a word do not race) or 'strict' (as the specification and `wave-lsp "
          "verify`: a plain store or read meeting an atomic, and equal values stored, race too)",
          choices=RACECHECKS, default=RACECHECKS[0]),
    _flag("--tolerance", "for `wave-lsp test`: numbers in the output may differ from the "
          "expected ones by ATOL + RTOL*|expected| (the run ignores it)", test_only=True,
          metavar="ATOL[:RTOL]"),
    _flag("--json", "print the whole report as JSON", group="run", editor="ignored",
          action="store_true"),
    _flag("--wave-widths", "run at each wave width (or 'targets': the configured targets' "
          "widths) and report the memory that differs", group="run", editor="ignored",
          metavar="W1,W2,..."),
    _flag("--compat", "assemble source exactly as wave-asm does, defects included",
          group="run", editor="ignored", choices=("wave-asm",)),
    _flag("--device", "where to run: the emulator (default) or a CUDA GPU (needs CuPy)",
          group="run", editor="ignored", choices=DEVICES, default="emulator"),
    _flag("--compare", "with --device cuda: run the emulator too and report the first word of "
          "device memory that differs, with the store line that wrote it", group="run",
          editor="ignored", action="store_true"),
    _flag("--profile", "print each line's cost after the output (executions: waves with an "
          "active lane, unlike --stats' upstream count; lanes, divergent branches, bank "
          "conflicts, sectors)", group="profile", editor="ignored", action="store_true"),
    _flag("--profile-target", f"the profile's preset: {', '.join(PROFILE_TARGETS)} (implies "
          "--profile)", group="profile", editor="ignored", metavar="TARGET"),
    _flag("--profile-lines", "lines in the profile table, hottest first (0: all; default 30)",
          group="profile", editor="ignored", metavar="N", type=int, default=30),
    _flag(LANES_FLAG, "threads whose values the editor shows, e.g. 0-7,32 (default: the first "
          "wave of workgroup 0)", group="editor", editor="only", metavar="THREADS"),
)

BY_NAME = {flag.name: flag for flag in FLAGS}
EDITOR_ONLY = tuple(f.name for f in FLAGS if f.editor == "only")
EDITOR_IGNORED = tuple(f.name for f in FLAGS if f.editor == "ignored")


def add_flags(parser: argparse.ArgumentParser, groups: tuple[str, ...] = RUN_GROUPS) -> None:
    """Add the flags of `groups` (in the table's order) to `parser`."""
    for flag in FLAGS:
        if flag.group in groups:
            parser.add_argument(flag.name, help=flag.help, **flag.argparse)
